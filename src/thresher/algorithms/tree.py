"""HTML-tree filter (Viveros-Jiménez, Sanchez-Perez, Gómez-Adorno, Posadas-Durán,
Sidorov, Gelbukh, Computación y Sistemas 22(2), 2018).

Good content tends to sit in one subtree. The filter runs a base extractor and
keeps only the part of its selection that lies in the subtree holding most of
the selected text:

1. every selected block is mapped to its *paragraph element*: the innermost
   div, table, ul, ol, p, section, article, h1-h6, header or body on the
   block's path (a paragraph never contains another one: the closest
   paragraph descendant that holds the block wins, i.e. the nearest such
   ancestor-or-self of the block's element);
2. paragraphs are grouped by their ``depth``-th ancestor (1 = parent,
   2 = grandparent, the paper's best);
3. the group with the most selected text (characters) is kept; every other
   selected block is dropped.

:func:`wrap` turns any registered algorithm into ``<name>+tree``. It never
wraps a wrapped algorithm again.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

from ..document.blocks import Document
from .base import Algorithm, Classification, Context

SUFFIX = "+tree"
SOURCE = ("Viveros-Jiménez et al.: Improving the Boilerpipe Algorithm for Boilerplate Removal in News "
          "Articles Using HTML Tree Structure (Computación y Sistemas 22(2), 2018)")
PARAGRAPH_TAGS = frozenset("div table ul ol p section article h1 h2 h3 h4 h5 h6 header body".split())
MIN_DEPTH, MAX_DEPTH = 1, 5


@dataclass(frozen=True)
class Params:
    """The tree filter's settings.

    depth: paragraphs are grouped by their ancestor this many levels up
        (1 = parent, 2 = grandparent, the paper's best; 1 to 5).
    base_params: the wrapped algorithm's own ``Params``; None takes its defaults.
    """

    depth: int = 2
    base_params: Any = None

    def __post_init__(self) -> None:
        if not (isinstance(self.depth, int) and MIN_DEPTH <= self.depth <= MAX_DEPTH):
            raise ValueError(f"depth must be an integer from {MIN_DEPTH} to {MAX_DEPTH}, not {self.depth!r}")


class Group(NamedTuple):
    """Selected blocks sharing one ancestor."""

    ancestor: int  # element index; -1 when the paragraphs sit at the root
    blocks: tuple[int, ...]
    chars: int


def is_paragraph(tag: str) -> bool:
    return tag in PARAGRAPH_TAGS


def paragraph_element(doc: Document, element: int) -> int:
    """The nearest ancestor-or-self of ``element`` that is a paragraph element
    (``element`` itself when there is none)."""
    tags, parents = doc.elements.tags, doc.elements.parents
    current = element
    while current >= 0:
        if is_paragraph(tags[current]):
            return current
        current = parents[current]
    return element


def nth_ancestor(doc: Document, element: int, n: int) -> int:
    """The ancestor ``n`` levels above ``element``; the root when the path is shorter."""
    parents = doc.elements.parents
    current = element
    for _ in range(n):
        parent = parents[current]
        if parent < 0:
            break
        current = parent
    return current


def group_selected(doc: Document, labels: Sequence[bool], depth: int) -> list[Group]:
    """Selected blocks grouped by the ``depth``-th ancestor of their paragraph, in document order."""
    paragraph_of: dict[int, int] = {}  # delimiting element -> paragraph element, for this call only
    members: dict[int, list[int]] = {}
    chars: dict[int, int] = {}
    for block in doc.blocks:
        if not labels[block.index]:
            continue
        element = block.element
        if element not in paragraph_of:
            paragraph_of[element] = paragraph_element(doc, element)
        key = nth_ancestor(doc, paragraph_of[element], depth)
        members.setdefault(key, []).append(block.index)
        chars[key] = chars.get(key, 0) + block.char_count
    return [Group(key, tuple(blocks), chars[key]) for key, blocks in members.items()]


def winning_group(groups: Sequence[Group]) -> Group | None:
    """The group with the most text; the earliest one on ties."""
    return max(groups, key=lambda g: g.chars) if groups else None


def describe(doc: Document, element: int) -> str:
    """``<div#main>``, ``<div.article-body>`` or ``<div>``."""
    if element < 0:
        return "<root>"
    el = doc.elements[element]
    if el.id:
        return f"<{el.tag}#{el.id}>"
    if el.classes:
        return f"<{el.tag}.{el.classes[0]}>"
    return f"<{el.tag}>"


def tree_filter(doc: Document, base: Classification, depth: int) -> Classification:
    """Keep only the base's selected blocks in the winning group."""
    winner = winning_group(group_selected(doc, base.labels, depth))
    if winner is None:
        return base
    keep = frozenset(winner.blocks)
    name = describe(doc, winner.ancestor)
    base_reasons = base.reasons or ("",) * len(base.labels)
    labels, reasons = [], []
    for i, (selected, why) in enumerate(zip(base.labels, base_reasons)):
        labels.append(i in keep)
        if i in keep:
            note = f"tree filter: group of {name} {winner.chars:,} chars kept"
        elif selected:
            note = f"tree filter: outside the winning group {name}"
        else:
            note = ""
        reasons.append(f"{why}; {note}" if why and note else (note or why))
    return Classification.from_labels(labels, reasons, base.scores)


def _run(base: Algorithm, doc: Document, p: Params, context: Context) -> Classification:
    return tree_filter(doc, base.run(doc, p.base_params, context), p.depth)


def wrap(base: Algorithm) -> Algorithm:
    """``base`` followed by the tree filter, as ``<base>+tree``; a wrapped algorithm comes back as is."""
    if base.name.endswith(SUFFIX):
        return base
    return Algorithm(
        name=f"{base.name}{SUFFIX}", params_type=Params, run_fn=partial(_run, base), source=SOURCE,
        needs_language=base.needs_language, needs_attributes=base.needs_attributes,
        summary=f"{base.summary}; then the HTML-tree filter keeps the subtree with the most selected text")
