"""What the renderers write: the kept blocks, completed and tidied.

An algorithm labels blocks; rendering them one by one as labelled has defects
of its own, which this module corrects for every output format:

* **whole tables**: when most blocks of a data table (two short cells or more, few links,
  no table inside) are kept, or it sits between kept blocks, every block of it is, so rows
  keep all their cells and labels;
* **whole lists**: a list between two kept blocks is completed when it is short and not
  navigation (all of it), or when part of it is kept and it is not navigation or its links all
  point into the page, a table of contents (its items with no kept block);
* **section headings**: a self-anchored heading whose section's first block is kept
  is kept, and so is a ``<summary>`` whose ``<details>`` content is;
* **headings**: Wikipedia-style ``[edit]`` section links are dropped from
  headings, headings left empty are not written, and a heading that is the
  last block (a dangling pull quote or a "Related" title) is written as a
  plain paragraph;
* **the title**: :func:`title_heading_needed` says whether the structured
  formats open with the page title as a heading;
* **the empty result**: a page whose kept text is navigation only
  (fewer than ``navigation_max_words`` words, every block link-dominated) has no main
  content, so nothing is written.

The native core makes the selection (``crates/core/src/selection.rs``, ``_core.Page.select``)
from the labels alone; :func:`select` makes a :class:`~thresher.document.blocks.Block` of each
block it picked, and no other. The text output is made by the core in the same call
(``_core.Page.plain_text``: :mod:`.text`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass
from functools import lru_cache
from typing import NamedTuple

from .. import _core
from ..document.blocks import Block, Document
from .extraction import Extraction


@dataclass(frozen=True)
class SelectionParams:
    """Thresholds of the selection."""

    # Navigation only: fewer kept words than this, every kept block link-dominated.
    navigation_max_words: int = 20
    # A block is link-dominated from this share of its characters in links on.
    navigation_min_link_density: float = 0.7
    # A data table has no block (cell text) longer than this; layout tables hold whole articles.
    table_max_cell_chars: int = 400
    # ... and at most this share of its characters in links (menus built as tables have more).
    table_max_link_density: float = 0.5
    # A table is completed when at least this share of its blocks is kept: the algorithm dropped
    # a few cells of a table it took, rather than took a few cells of a table it rejected.
    table_min_kept_share: float = 0.5
    # A list of at most this many blocks between two kept blocks is content (an enumeration), and
    # so is a longer one part of which is kept ...
    short_list_max_blocks: int = 4
    # ... unless more than this share of its characters are links (menus and link lists), and
    # for a list part of which is kept, those links lead out of the page.
    list_max_link_density: float = 0.5
    # A dropped heading that opens kept content is kept when at least this share of it is links
    # into the page (a self-anchor, dropped for its links).
    heading_min_link_density: float = 0.5


@lru_cache(maxsize=8)
def native_rules(params: SelectionParams) -> _core.SelectionRules:
    """``params`` as the core reads them, built once per parameter set."""
    return _core.SelectionRules(*astuple(params))


class Selection(NamedTuple):
    """The blocks to write, in document order, and the tables to write whole."""

    blocks: list[Block]
    tables: frozenset[int]  # table elements every block of which is in ``blocks``


def select(result: Extraction, params: SelectionParams = SelectionParams()) -> Selection:
    """The blocks of ``result`` to render (see the module docstring): chosen by the core, and
    only those made into :class:`Block`\\ s."""
    doc: Document = result.document
    indices, tidied, tables, last_plain = doc.native.select(result.labels, native_rules(params))
    blocks = picked(doc, indices)
    for i, index in enumerate(indices):
        if index in tidied:
            text, spans = tidied[index]
            blocks[i] = blocks[i]._replace(text=text, spans=spans)
    if last_plain:
        blocks[-1] = blocks[-1]._replace(is_heading=False)
    return Selection(blocks, frozenset(tables))


def picked(doc: Document, indices: Sequence[int]) -> list[Block]:
    """The blocks of ``indices`` (ascending), each run of consecutive ones read at once."""
    out: list[Block] = []
    i, n = 0, len(indices)
    while i < n:
        end = i + 1
        while end < n and indices[end] == indices[end - 1] + 1:
            end += 1
        out.extend(doc.blocks[indices[i]:indices[end - 1] + 1])
        i = end
    return out


def has_cells(doc: Document, table: Sequence[int], element: int, count: int) -> bool:
    """Table ``element`` has at least ``count`` cells (``td``/``th``) of its own."""
    from .common import subtree_end  # markdown's tables only: plain text is written by the core

    tags = doc.elements.tags
    found = 0
    for i in range(element + 1, subtree_end(doc, element)):
        if tags[i] in _CELLS and table[i] == element:
            found += 1
            if found >= count:
                return True
    return False


_CELLS = frozenset({"td", "th"})


def title_heading_needed(title: str, blocks: Sequence[Block]) -> bool:
    """Whether the page title should open the output as a heading: there is a title and
    something to write, and the first block is not a heading that already says it."""
    key = _title_key(title)
    if not key or not blocks:
        return False
    return not (blocks[0].is_heading and same_title(key, _title_key(blocks[0].text)))


def same_title(title_key: str, heading_key: str) -> bool:
    """A heading that says the title: the same words, or most of them (titles add the site's
    name: "Story - Site")."""
    shorter, longer = sorted((title_key, heading_key), key=len)
    return bool(shorter) and shorter in longer and 2 * len(shorter) >= len(longer)


def _title_key(text: str) -> str:
    from .common import clean_text  # markdown's and html's titles only: plain text has none

    return " ".join(clean_text(text).casefold().split())
