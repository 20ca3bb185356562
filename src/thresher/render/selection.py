"""What the renderers write: the kept blocks, completed and tidied.

An algorithm labels blocks; rendering them one by one as labelled has defects
of its own, which this module corrects for every output format:

* **whole tables**: when most blocks of a data table (:func:`is_data_table`)
  are kept, every block of it is, so rows keep all their cells and labels;
* **whole lists**: a list between two kept blocks is kept whole when it is short and not
  navigation, or when part of it is kept and it is not navigation or its links all point
  into the page (a table of contents) (:func:`whole_lists`);
* **section headings**: a self-anchored heading whose section's first block is kept
  is kept (:func:`opening_headings`), and so is a ``<summary>`` whose ``<details>`` content
  is (:func:`summaries`);
* **headings**: Wikipedia-style ``[edit]`` section links are dropped from
  headings, headings left empty are not written, and a heading that is the
  last block (a dangling pull quote or a "Related" title) is written as a
  plain paragraph;
* **the title**: :func:`title_heading_needed` says whether the structured
  formats open with the page title as a heading;
* **the empty result**: a page whose kept text is navigation only
  (:func:`navigation_only`) has no main content, so nothing is written.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from typing import NamedTuple

import numpy as np

from ..document.blocks import Block, Document, normalize_space
from .common import clean_text, nearest, subtree_end
from .extraction import Extraction

_TABLE = frozenset({"table"})
# Link text of a section's edit link (MediaWiki: "edit", "edit source").
_EDIT_WORDS = frozenset({"edit", "edit source"})
_EDIT_SECTION_CLASS = "mw-editsection"
# What an edit link leaves around it once its text is gone: "[ ]", "[ | ]".
_EMPTY_BRACKETS = re.compile(r"\s*\[[\s|]*\]")
_OPEN_BRACKET_TAIL = re.compile(r"\[[\s|]*$")


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


class Selection(NamedTuple):
    """The blocks to write, in document order, and the tables to write whole."""

    blocks: list[Block]
    tables: frozenset[int]  # table elements every block of which is in ``blocks``


def select(result: Extraction, params: SelectionParams = SelectionParams()) -> Selection:
    """The blocks of ``result`` to render (see the module docstring)."""
    doc: Document = result.document
    keep = list(result.labels)
    tables = whole_tables(doc, keep, params)
    for table in tables:
        for index in doc.element_blocks(table):
            keep[index] = True
    for index in whole_lists(doc, keep, params):
        keep[index] = True
    for index in opening_headings(doc, keep, params):
        keep[index] = True
    blocks = kept_blocks(doc, keep)
    if navigation_only(blocks, params):
        return Selection([], frozenset())
    if blocks and blocks[-1].is_heading:
        blocks[-1] = blocks[-1]._replace(is_heading=False)
    return Selection(blocks, tables)


def kept_blocks(doc: Document, keep: Sequence[bool]) -> list[Block]:
    """The kept blocks in order, headings through :func:`tidy_heading` and those left empty
    (:func:`is_empty_heading`) left out. Only the kept headings are looked at one by one."""
    blocks = list(compress(doc.blocks, keep))
    if not blocks:
        return blocks
    kept = np.flatnonzero(np.asarray(keep, bool))
    empty = []
    for i in np.flatnonzero(doc.numbers.is_heading[kept]).tolist():
        blocks[i] = tidy_heading(doc, blocks[i])
        if is_empty_heading(blocks[i]):
            empty.append(i)
    if empty:
        drop = set(empty)
        blocks = [block for i, block in enumerate(blocks) if i not in drop]
    return blocks


# -- the empty result

def is_link_dominated(block: Block, params: SelectionParams = SelectionParams()) -> bool:
    return block.link_density >= params.navigation_min_link_density


def navigation_only(blocks: Sequence[Block], params: SelectionParams = SelectionParams()) -> bool:
    """Kept text of fewer than ``navigation_max_words`` words, every block of it link-dominated:
    a menu, a breadcrumb or a "Home" link, no main content. Short text that is not links
    (a tiny page's one or two paragraphs) is main content however short."""
    words = 0
    for block in blocks:
        words += block.word_count
        if words >= params.navigation_max_words or not is_link_dominated(block, params):
            return False
    return bool(blocks)


# -- whole lists

_LISTS = frozenset({"ul", "ol"})
_ITEMS = frozenset({"li"})


def whole_lists(doc: Document, keep: Sequence[bool], params: SelectionParams = SelectionParams()) -> list[int]:
    """The dropped blocks of lists in content, each kept whole: an outermost ``ul``/``ol``
    whose neighbouring blocks (before and after) are both kept, not all of whose blocks are, and

    * of at most ``short_list_max_blocks`` blocks whose text is not mostly links
      (``list_max_link_density``): an enumeration inside the article, not a menu; or
    * of any length, with a kept block, whose text is not mostly links or whose links all point
      into the page (:func:`links_into_page`, a table of contents): the algorithm took part of a
      list inside the content (a long reference list whose later items it dropped one by one),
      and a list is one unit.

    A list of links out of the page ("Related", "You might also like") is not completed."""
    columns = doc.elements
    if "li" not in columns.tags:
        return []
    out: list[int] = []
    n = len(keep)
    lists, items = nearest(doc, _LISTS), nearest(doc, _ITEMS)
    for element, tag in enumerate(columns.tags):
        parent = columns.parents[element]
        if tag not in _LISTS or (parent >= 0 and lists[parent] >= 0):  # outermost lists only: disjoint
            continue
        first, end = columns.first_blocks[element], columns.end_blocks[element]
        if not (first < end and first > 0 and end < n and keep[first - 1] and keep[end]):
            continue
        kept = sum(keep[first:end])
        if kept == end - first:
            continue
        links = _link_share(doc.blocks[first:end]) > params.list_max_link_density
        if end - first <= params.short_list_max_blocks and not links:
            out.extend(i for i in range(first, end) if not keep[i])
        elif kept and (not links or links_into_page(doc, element)):
            out.extend(_dropped_items(doc, keep, items, first, end))
    return out


def _dropped_items(doc: Document, keep: Sequence[bool], items: Sequence[int], first: int, end: int) -> list[int]:
    """The blocks of ``first:end`` whose list item (``items``: each element's nearest ``li``)
    has no kept block: the items the algorithm dropped whole. Inside an item it kept, its
    choices stand (a teaser's photo credit stays out)."""
    taken = {items[doc.blocks[i].element] for i in range(first, end) if keep[i]}
    return [i for i in range(first, end) if not keep[i] and items[doc.blocks[i].element] not in taken]


def _link_share(blocks: Sequence[Block]) -> float:
    chars = sum(block.char_count for block in blocks)
    return sum(block.link_char_count for block in blocks) / chars if chars else 1.0


# -- section headings

def summaries(doc: Document, keep: Sequence[bool]) -> list[int]:
    """Dropped ``<summary>`` blocks whose next block is kept and lies in the same ``<details>``:
    a summary titles the content it discloses."""
    if "summary" not in doc.elements.tags:
        return []
    columns, out = doc.elements, []
    for i, block in enumerate(doc.blocks):
        if block.tag != "summary" or keep[i] or i + 1 >= len(keep) or not keep[i + 1]:
            continue
        details = columns.parents[block.element]
        if details >= 0 and columns.tags[details] == "details" and i + 1 < columns.end_blocks[details]:
            out.append(i)
    return out


def is_self_anchored(doc: Document, block: Block) -> bool:
    """Every link in ``block`` points into the page itself (``href="#..."``): a section's
    self-anchor, not a teaser's link to another page."""
    return links_into_page(doc, block.element)


def links_into_page(doc: Document, element: int) -> bool:
    """``element`` holds a link and every link in it points into the page itself
    (``href="#..."``)."""
    columns = doc.elements
    found = False
    for i in range(element, subtree_end(doc, element)):
        if columns.tags[i] == "a":
            href = (columns.attrs[i].get("href") or "").strip()
            if not href.startswith("#"):
                return False
            found = True
    return found


def opening_headings(doc: Document, keep: Sequence[bool], params: SelectionParams = SelectionParams()) -> list[int]:
    """Dropped self-anchored headings that open kept content: a heading block at least
    ``heading_min_link_density`` links, all of them into the page (:func:`is_self_anchored`:
    a section heading made its own anchor, which an algorithm may drop for its links; a
    teaser's title links elsewhere), whose next block is kept and not a heading."""
    out = summaries(doc, keep)
    for i in np.flatnonzero(doc.numbers.is_heading).tolist():
        if (not keep[i] and i + 1 < len(keep) and keep[i + 1] and not doc.blocks[i + 1].is_heading
                and doc.blocks[i].link_density >= params.heading_min_link_density
                and is_self_anchored(doc, doc.blocks[i])):
            out.append(i)
    return out


# -- whole tables

def whole_tables(doc: Document, keep: Sequence[bool], params: SelectionParams = SelectionParams()) -> frozenset[int]:
    """The data tables (innermost ``table`` elements) with a kept block whose blocks are mostly
    kept (:func:`mostly_kept`) or that sit between kept blocks (:func:`between_kept`)."""
    if "table" not in doc.elements.tags:
        return frozenset()
    table = nearest(doc, _TABLE)
    touched = {table[block.element] for block, kept in zip(doc.blocks, keep) if kept}
    touched.discard(-1)
    return frozenset(t for t in touched if (mostly_kept(doc, keep, t, params) or between_kept(doc, keep, t))
                     and is_data_table(doc, table, t, params))


def between_kept(doc: Document, keep: Sequence[bool], element: int) -> bool:
    """The blocks just before and just after ``element`` are kept: it sits inside kept content."""
    first, end = doc.elements.first_blocks[element], doc.elements.end_blocks[element]
    return first > 0 and end < len(keep) and keep[first - 1] and keep[end]


def mostly_kept(doc: Document, keep: Sequence[bool], element: int, params: SelectionParams = SelectionParams()) -> bool:
    """At least ``table_min_kept_share`` of the blocks inside ``element`` are kept."""
    first, end = doc.elements.first_blocks[element], doc.elements.end_blocks[element]
    return sum(keep[first:end]) >= params.table_min_kept_share * (end - first)


def is_data_table(doc: Document, table: Sequence[int], element: int,
                  params: SelectionParams = SelectionParams()) -> bool:
    """A table of two cells or more, short ones, few of them links, with no table inside: data,
    not page layout.

    ``table``: each element's nearest ``table`` (:func:`~thresher.render.common.nearest`)."""
    if not has_cells(doc, table, element, 2):
        return False  # a one-cell table is a box around its content (a highlighter's code, a layout)
    blocks = doc.blocks[doc.elements.first_blocks[element]:doc.elements.end_blocks[element]]
    chars = link_chars = 0
    for block in blocks:
        if table[block.element] != element or block.char_count > params.table_max_cell_chars:
            return False
        chars += block.char_count
        link_chars += block.link_char_count
    return chars > 0 and link_chars <= params.table_max_link_density * chars


def has_cells(doc: Document, table: Sequence[int], element: int, count: int) -> bool:
    """Table ``element`` has at least ``count`` cells (``td``/``th``) of its own."""
    tags = doc.elements.tags
    found = 0
    for i in range(element + 1, subtree_end(doc, element)):
        if tags[i] in _CELLS and table[i] == element:
            found += 1
            if found >= count:
                return True
    return False


_CELLS = frozenset({"td", "th"})


# -- headings

def tidy_heading(doc: Document, block: Block) -> Block:
    """A heading block without its section edit links (``[edit]``); other blocks as they are."""
    if not block.is_heading or "[" not in block.text:
        return block
    drop = [is_edit_link(doc, block, text, element) for text, element in block.spans]
    if not any(drop):
        return block
    spans = [span for span, dropped in zip(block.spans, drop) if not dropped]
    spans = [(_EMPTY_BRACKETS.sub("", text), element) for text, element in _merge_brackets(spans)]
    text = normalize_space(_EMPTY_BRACKETS.sub("", "".join(text for text, _ in spans)))
    return block._replace(spans=tuple(span for span in spans if span[0]), text=text)


def is_edit_link(doc: Document, block: Block, text: str, element: int) -> bool:
    """A span of a section edit link: inside a ``mw-editsection`` element, or the text "edit"
    of a link inside the heading."""
    tags, parents, attrs = doc.elements.tags, doc.elements.parents, doc.elements.attrs
    is_edit_text = normalize_space(text).strip("[] ").lower() in _EDIT_WORDS
    current = element
    while current > block.element:
        if _EDIT_SECTION_CLASS in (attrs[current].get("class") or "").split():
            return True
        if tags[current] == "a" and is_edit_text:
            return True
        current = parents[current]
    return False


def _merge_brackets(spans: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Spans with each "[" that ends one and "]" that starts a later one moved together, so the
    empty brackets an edit link leaves can be found within one span."""
    texts = [text for text, _ in spans]
    for i in range(len(texts) - 1):
        tail = _OPEN_BRACKET_TAIL.search(texts[i])
        if tail and texts[i + 1].lstrip()[:1] in ("]", "|"):
            texts[i] = texts[i][:tail.start()]
            texts[i + 1] = tail.group(0) + texts[i + 1].lstrip()
    return [(text, element) for text, (_, element) in zip(texts, spans)]


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
    return " ".join(clean_text(text).casefold().split())


def is_empty_heading(block: Block) -> bool:
    return block.is_heading and not clean_text(block.text).strip()
