"""A small CSS selector matcher over a document's element table, for ``prune``.

Supported: type selectors and ``*``, ``#id``, ``.class``, ``[attr]``, ``[attr=value]``,
``[attr~=value]`` (one of the whitespace-separated words), ``[attr^=value]``,
``[attr$=value]``, ``[attr*=value]`` (quoted or bare values), the descendant (space) and
child (``>``) combinators, and comma-separated lists. Tag and attribute names are
matched case-insensitively, values and classes exactly, as in HTML documents.

Matching is one pass over the element table in pre-order (parents before children), with
per element a bit set of the selector prefixes that end there and of those that end at the
element or an ancestor: no recursion and no backtracking, linear in the elements times the
compound selectors.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .blocks import Document

_TOKEN = re.compile(r"""
    \s*(?P<comb>>)\s*
  | (?P<space>\s+)
  | (?P<tag>\*|[A-Za-z][A-Za-z0-9-]*)
  | \#(?P<id>[A-Za-z0-9_-]+)
  | \.(?P<cls>[A-Za-z0-9_-]+)
  | \[\s*(?P<attr>[A-Za-z_:][A-Za-z0-9_:.-]*)\s*
        (?:(?P<op>[~^$*]?=)\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\]\s]+))\s*)?\]
""", re.VERBOSE)
_ATTR_OPS = frozenset({"", "=", "~=", "^=", "$=", "*="})
MAX_SELECTOR_CHARS = 1000


@dataclass(frozen=True)
class AttrTest:
    name: str
    op: str = ""  # "" tests presence
    value: str = ""

    def matches(self, attrs: Mapping[str, str | None]) -> bool:
        actual = attrs.get(self.name)
        if actual is None:
            return False
        return attribute_matches(self.op, actual, self.value)


def attribute_matches(op: str, actual: str, value: str) -> bool:
    if op == "":
        return True
    if op == "=":
        return actual == value
    if op == "~=":
        return value in actual.split()
    if op == "^=":
        return bool(value) and actual.startswith(value)
    if op == "$=":
        return bool(value) and actual.endswith(value)
    return bool(value) and value in actual  # "*="


@dataclass(frozen=True)
class Compound:
    """One compound selector: a tag (or "" for any) and attribute tests."""

    tag: str = ""
    tests: tuple[AttrTest, ...] = ()

    def matches(self, tag: str, attrs: Mapping[str, str | None]) -> bool:
        return (not self.tag or self.tag == tag) and all(test.matches(attrs) for test in self.tests)


@dataclass(frozen=True)
class Selector:
    """Compound selectors left to right; ``child[k]`` is True when compound k is joined to
    compound k-1 by ``>`` (``child[0]`` is unused)."""

    compounds: tuple[Compound, ...]
    child: tuple[bool, ...]


def _test(match: re.Match[str]) -> AttrTest | None:
    if match.group("id") is not None:
        return AttrTest("id", "=", match.group("id"))
    if match.group("cls") is not None:
        return AttrTest("class", "~=", match.group("cls"))
    if match.group("attr") is not None:
        value = next((v for v in (match.group("dq"), match.group("sq"), match.group("bare")) if v is not None), "")
        return AttrTest(match.group("attr").lower(), match.group("op") or "", value)
    return None


def parse_selector(text: str) -> Selector:
    """One selector without commas; :class:`ValueError` when it cannot be read."""
    source = text.strip()
    if not source or len(source) > MAX_SELECTOR_CHARS:
        raise ValueError(f"bad CSS selector {text!r}")
    compounds: list[Compound] = []
    child: list[bool] = []
    tests: list[AttrTest] = []
    tag, pending, position = "", False, 0
    joined_by_child = False
    while position < len(source):
        match = _TOKEN.match(source, position)
        if match is None or match.end() == position:
            raise ValueError(f"bad CSS selector {text!r} at {source[position:position + 10]!r}")
        position = match.end()
        if match.group("comb") is not None or match.group("space") is not None:
            if not pending:
                raise ValueError(f"bad CSS selector {text!r}: a combinator without a selector before it")
            compounds.append(Compound(tag, tuple(tests)))
            child.append(joined_by_child)
            tag, tests, pending = "", [], False
            joined_by_child = match.group("comb") is not None
            continue
        if match.group("tag") is not None:
            if pending:
                raise ValueError(f"bad CSS selector {text!r}: a type selector must come first")
            tag = "" if match.group("tag") == "*" else match.group("tag").lower()
        else:
            test = _test(match)
            assert test is not None
            tests.append(test)
        pending = True
    if not pending:
        raise ValueError(f"bad CSS selector {text!r}: it ends with a combinator")
    compounds.append(Compound(tag, tuple(tests)))
    child.append(joined_by_child)
    return Selector(tuple(compounds), tuple(child))


@lru_cache(maxsize=256)
def _parse_list(text: str) -> tuple[Selector, ...]:
    return tuple(parse_selector(part) for part in text.split(","))


def parse_selectors(texts: Iterable[str]) -> tuple[Selector, ...]:
    """Every selector of comma-separated lists ``texts``."""
    return tuple(selector for text in texts for selector in _parse_list(text))


def matching_elements(doc: Document, selectors: Sequence[Selector]) -> list[int]:
    """Indices of the elements that match any of ``selectors``, in document order."""
    tags, parents, attrs = doc.elements.tags, doc.elements.parents, doc.elements.attrs
    found: list[int] = []
    for selector in selectors:
        found.extend(_matches(tags, parents, attrs, selector))
    return sorted(set(found))


def _matches(tags: Sequence[str], parents: Sequence[int], attrs: Sequence[Mapping[str, str | None]],
             selector: Selector) -> list[int]:
    last = len(selector.compounds) - 1
    ends = [0] * len(tags)  # bit k: compounds 0..k match a chain ending at this element
    below = [0] * len(tags)  # bit k: such a chain ends at this element or an ancestor
    out: list[int] = []
    for i, (tag, parent) in enumerate(zip(tags, parents)):
        parent_ends = ends[parent] if parent >= 0 else 0
        parent_below = below[parent] if parent >= 0 else 0
        bits = 0
        for k, compound in enumerate(selector.compounds):
            if k and not (parent_ends if selector.child[k] else parent_below) >> (k - 1) & 1:
                continue
            if compound.matches(tag, attrs[i]):
                bits |= 1 << k
        ends[i] = bits
        below[i] = bits | parent_below
        if bits >> last & 1:
            out.append(i)
    return out
