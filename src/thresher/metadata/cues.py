"""In-page cues near the headline: bylines and dates marked up in the element columns or written in blocks."""
from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from ..document.blocks import Document
from .sources import _clean

MAX_AUTHOR_CHARS = 100  # a longer "name" is prose
# In-page bylines and dates are looked for this many blocks before / after the first h1
# (from the top of the page when there is none): further away they belong to other items.
CUE_WINDOW = (5, 20)
MAX_CUES = 12  # in-page cues tried per field, strongest first
MAX_CUE_ELEMENTS = 2000  # descendants and ...
MAX_CUE_BLOCKS = 4  # ... blocks read for one cue's text
_BYLINE_TOKENS = frozenset(("author", "authors", "byline", "byl", "username", "bigusername", "poster"))
# Last part of a class token that marks an author's picture, bio or container, not the name.
_NOT_BYLINE_TOKENS = frozenset((
    "avatar", "image", "img", "photo", "pic", "picture", "bio", "description", "desc", "box",
    "about", "label", "title", "social", "follow", "more", "list", "wrapper", "wrap", "posts",
    "icon", "section", "card", "headshot", "container", "block", "area", "details", "content",
    "comment", "comments", "reply", "say", "says"))
_TOKEN_PARTS = re.compile(r"[-_]+")
_AUTHOR_PATH = re.compile(r"/(?:authors?|writers?|contributors?|columnists?|byline|journalists?)/[^/?#]",
                          re.IGNORECASE)
_BY_LINE = re.compile(r"(?:(?:written|posted|published)\s+)?by\s*[:\s]\s*\w|(?-i:By[A-Z][a-z])",
                      re.IGNORECASE)


class _Cue(NamedTuple):
    """One piece of in-page evidence: a lower rank is stronger evidence."""

    rank: int
    element: int
    value: str = ""  # the attribute value when the cue carries one (content, datetime)


class _Scan(NamedTuple):
    """The cues found in the blocks ``[block_from, block_to)`` around the headline."""

    authors: tuple[_Cue, ...]
    dates: tuple[_Cue, ...]
    block_from: int
    block_to: int


# Author cue ranks.
_REL_AUTHOR, _ITEMPROP_AUTHOR, _BYLINE_CLASS, _AUTHOR_LINK, _BY_TEXT = range(5)
# Date cue ranks.
_ITEMPROP_DATE, _TIME_ELEMENT = range(2)


def _scan_page(doc: Document) -> _Scan:
    """One pass over the element columns collecting byline and date cues."""
    tags, attrs, first_blocks = doc.elements.tags, doc.elements.attrs, doc.elements.first_blocks
    block_from, block_to = _headline_range(doc, CUE_WINDOW)
    start, end = bisect_left(first_blocks, block_from), bisect_left(first_blocks, block_to)
    authors: list[_Cue] = []
    dates: list[_Cue] = []
    for index in range(start, end):
        element_attrs = attrs[index]
        if not element_attrs:
            continue
        itemprop = element_attrs.get("itemprop")
        if itemprop:
            _itemprop_cue(index, itemprop.lower(), element_attrs, authors, dates)
        tag = tags[index]
        if tag == "a":
            _link_cue(index, element_attrs, authors)
        elif tag == "time":
            dates.append(_Cue(_TIME_ELEMENT, index, element_attrs.get("datetime") or ""))
        if _is_byline_class(element_attrs.get("class")):
            authors.append(_Cue(_BYLINE_CLASS, index))
    authors.extend(_Cue(_BY_TEXT, block.element, block.text)
                   for block in doc.blocks[block_from:block_to] if _is_by_line(block.text))
    return _Scan(tuple(sorted(authors)), tuple(sorted(dates)), block_from, block_to)


def _itemprop_cue(index: int, itemprop: str, attrs: Mapping[str, str], authors: list[_Cue], dates: list[_Cue]) -> None:
    props = itemprop.split()
    if "author" in props or "creator" in props:
        authors.append(_Cue(_ITEMPROP_AUTHOR, index, attrs.get("content") or ""))
    elif "datepublished" in props or "datecreated" in props:
        dates.append(_Cue(_ITEMPROP_DATE, index, attrs.get("content") or attrs.get("datetime") or ""))


def _link_cue(index: int, attrs: Mapping[str, str], authors: list[_Cue]) -> None:
    rel = attrs.get("rel")
    if rel and "author" in rel.lower().split():
        authors.append(_Cue(_REL_AUTHOR, index))
    elif _AUTHOR_PATH.search(attrs.get("href") or ""):
        authors.append(_Cue(_AUTHOR_LINK, index))


def _is_byline_class(classes: str | None) -> bool:
    """A class token naming an author or byline, but not its avatar, bio or box."""
    if not classes:
        return False
    lowered = classes.lower()
    if ("author" not in lowered and "byl" not in lowered and "username" not in lowered
            and "poster" not in lowered):  # cheap test before tokenising
        return False
    for token in lowered.split():
        parts = _TOKEN_PARTS.split(token)
        if (_BYLINE_TOKENS.intersection(parts) or any(p.startswith(("author", "byline")) for p in parts)) \
                and parts[-1] not in _NOT_BYLINE_TOKENS:
            return True
    return False


def _is_by_line(text: str) -> bool:
    return len(text) < MAX_AUTHOR_CHARS and _BY_LINE.match(text) is not None


def _headline_block(doc: Document) -> int:
    """Index of the first h1 block, -1 when the page has none."""
    return next(_h1_blocks(doc), -1)


def _headline_range(doc: Document, window: tuple[int, int]) -> tuple[int, int]:
    """Block range from ``window[0]`` blocks before the first h1 to ``window[1]`` after it.

    Without an h1 the range starts at the top of the page.
    """
    h1 = _headline_block(doc)
    if h1 < 0:
        return 0, window[0] + window[1]
    return max(0, h1 - window[0]), h1 + window[1] + 1


def _itemprop_author(doc: Document, element: int) -> str:
    """The ``itemprop=name`` inside an ``itemprop=author`` element, else all its text."""
    attrs = doc.elements.attrs
    for index in range(element + 1, _subtree_end(doc, element)):
        if (attrs[index].get("itemprop") or "").lower() == "name":
            return attrs[index].get("content") or _element_text(doc, index)
    return _element_text(doc, element)


def _subtree_end(doc: Document, element: int) -> int:
    """One past the last descendant of ``element`` (pre-order keeps subtrees contiguous).

    The walk stops after :data:`MAX_CUE_ELEMENTS` descendants: no byline is
    that large, and a hostile page must not make each cue cost the whole page.
    """
    depths = doc.elements.depths
    depth = depths[element]
    end = element + 1
    limit = min(len(depths), element + 1 + MAX_CUE_ELEMENTS)
    while end < limit and depths[end] > depth:
        end += 1
    return end


def _element_parts(doc: Document, element: int) -> list[str]:
    """The non-blank text runs inside ``element``'s subtree, whitespace-collapsed.

    Only the first :data:`MAX_CUE_BLOCKS` blocks are read: a byline or date is short.
    """
    el = doc.elements[element]
    end = _subtree_end(doc, element)
    last = min(el.end_block, el.first_block + MAX_CUE_BLOCKS)
    parts = (_clean(text)
             for block in doc.blocks[el.first_block:last]
             for text, owner in block.spans if element <= owner < end)
    return [part for part in parts if part]


def _element_text(doc: Document, element: int) -> str:
    """Text inside ``element``'s subtree; runs of different elements are space-separated."""
    return " ".join(_element_parts(doc, element))


def _find_tags(doc: Document, tag: str) -> Iterator[int]:
    """Indices of the elements with ``tag``, found with C-level tuple scans."""
    tags = doc.elements.tags
    start = 0
    while True:
        try:
            index = tags.index(tag, start)
        except ValueError:
            return
        yield index
        start = index + 1


def _h1_blocks(doc: Document) -> Iterator[int]:
    """Indices of the blocks delimited by an h1, in page order (found by C-level tag scans)."""
    blocks, last = doc.blocks, -1
    for element in _find_tags(doc, "h1"):
        el = doc.elements[element]
        for index in range(max(el.first_block, last + 1), el.end_block):
            if blocks[index].tag == "h1":
                last = index
                yield index
                break
