"""Parse decoded text into a lexbor DOM, after making hostile markup safe to parse.

Three real-world patterns make HTML parsers slow or lossy:

* **Attribute floods** (one start tag with 10^5 attributes): lexbor and libxml2
  check each new attribute against all earlier ones, which is quadratic.
  :func:`cap_attributes` keeps the first ``max_attributes`` of any long tag.
* **Deep nesting** (10^5 open elements): libxml2 silently drops everything
  below depth 256 and lexbor's scope checks become quadratic. Browsers cap
  the depth instead and attach deeper elements at the cap, keeping the text.
  :func:`cap_depth` does the same on the token stream, in one linear pass.
* **Option floods** (one ``<select>`` of 10^5 options): lexbor re-runs the
  select's option selectedness on every option it inserts, which is quadratic.
  :func:`defuse_selects` renames the select elements of a page with that many
  options, so that their options parse as in any other container.

The passes look only at tags, never at text, and return the input unchanged
(the same object) when it has nothing to fix, which is the usual case.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from typing import Iterator

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from .errors import InputError

# A start tag long enough to possibly carry an attribute flood: what r"<[A-Za-z][^<>]{4096,}>"
# matches. Real tags this long exist (inline SVG paths, data URIs) and are left alone unless
# they also carry more than ``max_attributes`` attributes. :func:`long_tags` finds them
# without scanning every tag.
LONG_TAG_RUN = 4096  # characters after the tag name's first letter, up to the closing ">"
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ATTRIBUTE = re.compile(r"""[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]*))?""")
_TAG_NAME = re.compile(r"<[A-Za-z][^\s/>]*")
# A start or end tag: (slash of an end tag, name, the rest up to ">"), self-closing when the rest
# ends with "/". Greedy up to the ">": a lazy rest that tries "/?>" at every character took
# three times as long.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)([^<>]*)>")
# Option tags, counted on text or on its UTF-8 bytes (0.1 ms on an average wcxb-dev page),
# and the select tags that defuse_selects renames.
_OPTION_TAG = re.compile(r"<option", re.IGNORECASE)
_OPTION_TAG_BYTES = re.compile(rb"<option", re.IGNORECASE)
_SELECT_TAG = re.compile(r"<(/?)select(?=[\s/>])", re.IGNORECASE)
DEFUSED_SELECT = "thresher-select"  # what defuse_selects renames select elements to

VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split())


@dataclass(frozen=True)
class ParseLimits:
    """Bounds that keep parsing linear on hostile pages.

    max_attributes: attributes kept per start tag (browsers keep all; no real
        page needs more than a few dozen).
    max_depth: element nesting depth; deeper start tags are dropped (their text
        is kept), as browsers do past their own depth cap.
    depth_check_tags: pages with fewer tags than this cannot nest deep enough
        to slow the parser down, and skip the depth pass (its cost is per tag).
    max_options: option tags a page may hold before :func:`defuse_selects`
        renames its select elements. Lexbor's cost is quadratic in one select's
        options: 40,000 take 8 s (37 s when each is marked ``selected``), 2,000
        selected ones 0.06 s. The most any wcxb-dev page holds is 1,854.
    """

    max_attributes: int = 256
    max_depth: int = 400
    depth_check_tags: int = 20000
    max_options: int = 2000


def long_tags(html: str | bytes, window: int = 2048) -> Iterator[tuple[int, int]]:
    """(start, end) of every long start tag of ``html`` (see ``LONG_TAG_RUN``), without
    scanning every tag.

    On UTF-8 bytes lengths count bytes. A tag of 4,096 characters is at least 4,096
    bytes (no byte of a multi-byte character is ``<`` or ``>``), so the bytes of a
    page find every long tag its text has.

    A tag longer than ``2 * window`` characters covers a whole stretch of
    ``window`` characters with no ``>``, after a ``<``. Stretches are looked at
    one after another, keeping the last ``<`` and ``>`` seen, and each ``<``
    is tried as a tag start at most once: linear time, and every search is a
    C-speed ``find`` (a regex would step through the tag character by character).
    """
    lt, gt_char = ("<", ">") if isinstance(html, str) else (b"<", b">")
    last_lt = last_gt = tried = -1
    start = 0
    while start + window <= len(html):
        end = start + window
        gt = html.rfind(gt_char, start, end)
        if gt < 0 and tried < last_lt > last_gt:
            tried = last_lt
            tag_end = _long_tag_end(html, last_lt, lt, gt_char)
            if tag_end > 0:
                yield last_lt, tag_end
                start, last_gt = tag_end, tag_end - 1
                continue
        last_gt = max(last_gt, gt)
        last_lt = max(last_lt, html.rfind(lt, start, end))
        start = end


def _long_tag_end(html: str | bytes, start: int, lt, gt) -> int:
    """End of the long start tag at ``start`` (just past its ``>``), or -1 when none starts there.

    Both searches stop at the next ``<``, so each stretch of the page is searched once."""
    letter = html[start + 1:start + 2]
    if len(letter) != 1 or (chr(letter[0]) if isinstance(letter, bytes) else letter) not in _ASCII_LETTERS:
        return -1
    run = start + 2
    next_lt = html.find(lt, run)
    close = html.find(gt, run, len(html) if next_lt < 0 else next_lt)
    if close < 0 or close - run < LONG_TAG_RUN:
        return -1
    return close + 1


def _flooded(tag: str, max_attributes: int) -> tuple[str, list[str]] | None:
    """The name and first ``max_attributes`` + 1 attributes of a long start tag with more than
    ``max_attributes`` of them, else None.

    The attributes are read only that far: what looks like a tag of a million attributes is
    often script text after a ``<`` (``i<n;i++) ...``). On one 3 MB wcxb-dev page reading all
    of it took 15 ms of :func:`cap_attributes`' time, against 4 ms now."""
    if len(tag) - 3 < LONG_TAG_RUN:  # "<", the first letter, ">"
        return None
    name = _TAG_NAME.match(tag).group(0)
    matches = islice(_ATTRIBUTE.finditer(tag, len(name), len(tag) - 1), max_attributes + 1)
    attributes = [match.group(0) for match in matches]
    return (name, attributes) if len(attributes) > max_attributes else None


def cap_attributes(html: str, max_attributes: int = 256) -> str:
    """Return ``html`` with every start tag cut to its first ``max_attributes`` attributes."""
    pieces: list[str] = []
    last = 0
    for start, end in long_tags(html):
        flood = _flooded(html[start:end], max_attributes)
        if flood is None:
            continue
        name, attributes = flood
        pieces.append(html[last:start])
        pieces.append(name + " " + " ".join(attributes[:max_attributes]) + ">")
        last = end
    if not pieces:
        return html
    pieces.append(html[last:])
    return "".join(pieces)


def cap_depth(html: str, max_depth: int = 400, min_tags: int = 0) -> str:
    """Drop start tags (and their end tags) that would nest deeper than ``max_depth``.

    Pages with at most ``max(max_depth, min_tags)`` ``<`` characters are returned as is.
    """
    if html.count("<") <= max(max_depth, min_tags):
        return html
    stack: list[str] = []
    dropped: dict[str, int] = {}
    cuts: list[tuple[int, int]] = []
    for match in _TAG.finditer(html):
        closing, name, rest = match.groups()
        name = name.lower()
        if closing:
            if dropped.get(name):
                dropped[name] -= 1
                cuts.append(match.span())
            else:
                _pop_to(stack, name)
        elif name in VOID_TAGS or rest.endswith("/"):
            continue
        elif len(stack) >= max_depth:
            dropped[name] = dropped.get(name, 0) + 1
            cuts.append(match.span())
        else:
            stack.append(name)
    return _cut(html, cuts) if cuts else html


def _pop_to(stack: list[str], name: str, window: int = 32) -> None:
    """Close ``name`` if it is among the innermost ``window`` open elements."""
    for back in range(1, min(window, len(stack)) + 1):
        if stack[-back] == name:
            del stack[-back:]
            return


def _cut(html: str, cuts: list[tuple[int, int]]) -> str:
    pieces, last = [], 0
    for start, end in cuts:
        pieces.append(html[last:start])
        last = end
    pieces.append(html[last:])
    return "".join(pieces)


def many_options(html: str | bytes, max_options: int) -> bool:
    """Whether ``html`` (text, or that text in UTF-8) holds more than ``max_options`` option tags."""
    pattern = _OPTION_TAG if isinstance(html, str) else _OPTION_TAG_BYTES
    return next(islice(pattern.finditer(html), max_options, None), None) is not None


def defuse_selects(html: str, max_options: int = 2000) -> str:
    """Rename every select element (to ``DEFUSED_SELECT``, a custom element) when ``html``
    holds more than ``max_options`` option tags, so that the parser reads their options as
    it reads options anywhere else: in linear time. The options and their text stay."""
    if not many_options(html, max_options):
        return html
    return _SELECT_TAG.sub(rf"<\1{DEFUSED_SELECT}", html)


def sanitize(html: str, limits: ParseLimits = ParseLimits()) -> str:
    """Apply the caps; NUL characters are dropped as the HTML tokenizer would."""
    if "\x00" in html:
        html = html.replace("\x00", "")
    html = defuse_selects(cap_attributes(html, limits.max_attributes), limits.max_options)
    return cap_depth(html, limits.max_depth, limits.depth_check_tags)


def is_tame(html: str | bytes, limits: ParseLimits = ParseLimits()) -> bool:
    """Whether :func:`sanitize` leaves ``html`` (text, or that text in UTF-8) as it is:
    no NUL, no long start tag with an attribute flood, too few option tags to defuse, too
    few tags to nest past the cap.

    The long tags of the bytes include every long tag of the text; each is decoded and
    judged as the text's own would be."""
    nul = "\x00" if isinstance(html, str) else b"\x00"
    if nul in html or count_lt(html) > max(limits.max_depth, limits.depth_check_tags):
        return False
    if many_options(html, limits.max_options):
        return False
    for start, end in long_tags(html):
        tag = html[start:end]
        try:
            text = tag if isinstance(tag, str) else tag.decode("utf-8")
        except UnicodeDecodeError:
            return False
        if _flooded(text, limits.max_attributes) is not None:
            return False
    return True


# Bytes counted per numpy pass: bounds the pass's temporary mask on a huge page.
_COUNT_STRETCH = 1 << 20


def count_lt(html: str | bytes) -> int:
    """How many ``<`` ``html`` holds. Bytes are counted by numpy, in a quarter of
    ``bytes.count``'s time (0.03 against 0.11 ms on an average wcxb-dev page)."""
    if isinstance(html, str):
        return html.count("<")
    codes = np.frombuffer(html, np.uint8)
    return sum(int(np.count_nonzero(codes[i:i + _COUNT_STRETCH] == 60)) for i in range(0, len(codes), _COUNT_STRETCH))


def parse(html: str, limits: ParseLimits = ParseLimits(), utf8: bytes | None = None) -> LexborHTMLParser:
    """Parse text to a DOM; raise :class:`InputError` when nothing parses.

    ``utf8``, when given, must be ``html`` encoded in UTF-8 (the page's own bytes, say).
    A tame page (:func:`is_tame`) is then parsed from those bytes: the checks cost less
    on bytes than on text, and the parser need not encode the text again. So is a page
    that :func:`sanitize` leaves as it is (returning the text itself).
    """
    if not html or html.isspace():
        raise InputError("empty input")
    tree = LexborHTMLParser(_source(html, limits, utf8))
    if tree.root is None:
        raise InputError("the parser produced no document")
    return tree


def _source(html: str, limits: ParseLimits, utf8: bytes | None) -> str | bytes:
    """What the parser reads: the page's UTF-8 bytes when the caps change nothing, else the capped text."""
    if utf8 is not None and is_tame(utf8, limits):
        return utf8
    safe = sanitize(html, limits)
    return utf8 if safe is html and utf8 is not None else safe
