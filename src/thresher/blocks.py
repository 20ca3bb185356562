"""The document model: one immutable document of elements and blocks per page.

A page is parsed once (:mod:`thresher.parse`) and walked once, iteratively, into

* an **element table** (:class:`Element`, in document pre-order, so a parent's
  index is always smaller than its children's), and
* a list of **blocks** (:class:`Block`) in reading order, segmented as jusText
  does: every block-level tag and every run of two or more ``<br>`` ends the
  current block and starts a new one.

Each block knows the element that delimits it (its innermost open block-level
element) and that element's path from the root; each element knows the range
of blocks its subtree contains. Algorithms read a :class:`Document` and
return labels or scores; nothing here is mutated after construction.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from collections.abc import Sequence
from typing import Iterator, NamedTuple

import numpy as np

from . import jsonld
from .parse import ParseLimits, parse

BLOCK_TAGS = frozenset(
    "blockquote caption center col colgroup dd div dl dt fieldset form h1 h2 h3 h4 h5 h6 "
    "legend li optgroup option p pre table td textarea tfoot th thead tr ul "
    # HTML5 sectioning and grouping elements, displayed as blocks by browsers
    "ol article aside section nav header footer main figure figcaption details summary "
    "address hgroup menu dialog search body html tbody".split())
HEADING_TAGS = frozenset("h1 h2 h3 h4 h5 h6".split())
# Elements whose content is never page text. MathML is page text (browsers render it, as
# Readability keeps it); its <annotation> encodings (TeX, say) are not rendered.
SKIPPED_TAGS = frozenset(
    "script style template iframe object embed svg canvas video audio "
    "map head annotation annotation-xml".split())
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_WS = re.compile(r"\s+")
# What an element's ``attrs`` is when the document is built without attributes.
NO_ATTRIBUTES = MappingProxyType({})
# Elements whose attributes are always read: the page language and the head facts need them.
_ATTRIBUTES_ALWAYS = SKIPPED_TAGS | {"html"}


class Element(NamedTuple):
    """One element of the page. ``parent`` is -1 for the root.

    ``attrs`` is the parser's attribute mapping; treat it as read-only.
    """

    index: int
    tag: str
    parent: int
    depth: int
    attrs: dict
    first_block: int  # blocks [first_block, end_block) lie inside this element
    end_block: int

    @property
    def id(self) -> str:
        return (self.attrs.get("id") or "").strip()

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple((self.attrs.get("class") or "").split())

    def attr(self, name: str, default: str = "") -> str:
        value = self.attrs.get(name)
        return default if value is None else value


@dataclass(frozen=True)
class ElementTable(Sequence):
    """All elements, in pre-order, stored as columns; ``table[i]`` is an :class:`Element`."""

    tags: tuple[str, ...]
    parents: tuple[int, ...]
    depths: tuple[int, ...]
    attrs: tuple[dict, ...]
    first_blocks: tuple[int, ...]
    end_blocks: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.tags)

    @cached_property
    def arrays(self) -> "ElementArrays":
        """The integer columns as read-only int64 arrays, converted once per document
        (several feature stages read them)."""
        n = len(self.tags)
        columns = [np.asarray(c, np.int64).reshape(n) for c in
                   (self.parents, self.depths, self.first_blocks, self.end_blocks)]
        for column in columns:
            column.flags.writeable = False
        return ElementArrays(*columns)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self.tags)
        return Element(index, self.tags[index], self.parents[index], self.depths[index],
                       self.attrs[index], self.first_blocks[index], self.end_blocks[index])


class ElementArrays(NamedTuple):
    """:class:`ElementTable`'s integer columns as arrays (``parents`` keeps -1 for the root)."""

    parents: np.ndarray
    depths: np.ndarray
    first_blocks: np.ndarray
    end_blocks: np.ndarray


# A run of text and the element that directly contains it: (text, element). A plain tuple, not
# a NamedTuple: CPython's collector stops tracking a tuple of strings and ints, never a NamedTuple,
# and a page holds hundreds of spans until it is done. Over wcxb-dev, one page after another in
# one process: 28 full collections instead of 38, and 3,556 young ones instead of 4,550.
Span = tuple[str, int]


class Block(NamedTuple):
    """A segment of text between two block boundaries, with its shallow statistics."""

    index: int
    text: str  # whitespace-collapsed text (``pre`` keeps its line breaks)
    tag: str  # tag of the delimiting element
    element: int  # index of the delimiting element
    spans: tuple[Span, ...]  # (text, element) pairs
    char_count: int
    word_count: int
    link_char_count: int
    link_word_count: int
    tag_count: int  # start tags opened while this block was being read
    is_heading: bool
    offset: int  # characters of block text before this block

    @property
    def link_density(self) -> float:
        return self.link_char_count / self.char_count if self.char_count else 0.0


class BlockNumbers(NamedTuple):
    """The blocks' counts as numpy columns, one row per block (float64; ``element`` int64)."""

    chars: np.ndarray
    words: np.ndarray
    link_chars: np.ndarray
    link_words: np.ndarray
    tags: np.ndarray
    is_heading: np.ndarray
    element: np.ndarray

    @property
    def link_density(self) -> np.ndarray:
        """:attr:`Block.link_density` of every block."""
        return np.divide(self.link_chars, self.chars, out=np.zeros(len(self.chars)), where=self.chars > 0)


_NUMBER_FIELDS = tuple(Block._fields.index(name) for name in (
    "char_count", "word_count", "link_char_count", "link_word_count", "tag_count", "is_heading", "element"))


def block_numbers(blocks: Sequence[Block]) -> BlockNumbers:
    """The counts of ``blocks`` as columns, in one pass over them."""
    if not blocks:
        return BlockNumbers(*(np.zeros(0) for _ in range(6)), np.zeros(0, np.int64))
    fields = list(zip(*blocks))
    *counts, element = (fields[i] for i in _NUMBER_FIELDS)
    columns = [np.array(c, np.float64) for c in counts] + [np.array(element, np.int64)]
    for column in columns:
        column.flags.writeable = False  # shared by every reader of the document
    return BlockNumbers(*columns)


@dataclass(frozen=True)
class Document:
    """A parsed page: elements, blocks and the page-level facts extractors need."""

    elements: ElementTable
    blocks: tuple[Block, ...]
    title: str = ""
    lang: str = ""
    url: str | None = None
    meta: tuple[tuple[str, str], ...] = ()
    json_ld: tuple[str, ...] = ()
    encoding: str = ""
    source_length: int = 0
    skipped: frozenset[int] = field(default_factory=frozenset)  # elements not walked (script, ...)

    def __len__(self) -> int:
        return len(self.blocks)

    @cached_property
    def numbers(self) -> BlockNumbers:
        """The blocks' counts as numpy columns, built on first use (derived, never changed)."""
        return block_numbers(self.blocks)

    @property
    def text_length(self) -> int:
        return sum(block.char_count for block in self.blocks)

    def element_blocks(self, element: int) -> range:
        """Indices of the blocks inside ``element``'s subtree."""
        el = self.elements[element]
        return range(el.first_block, el.end_block)

    def block_element(self, block: int) -> Element:
        return self.elements[self.blocks[block].element]

    def path(self, block: int) -> tuple[int, ...]:
        """Element indices from the root down to the block's delimiting element."""
        return tuple(reversed([el.index for el in self.ancestors(self.blocks[block].element)]))

    def path_elements(self, block: int) -> list[Element]:
        return [self.elements[i] for i in self.path(block)]

    def ancestors(self, element: int) -> Iterator[Element]:
        """``element`` and its ancestors, innermost first."""
        while element >= 0:
            el = self.elements[element]
            yield el
            element = el.parent

    def meta_content(self, *names: str) -> str:
        wanted = {name.lower() for name in names}
        for key, value in self.meta:
            if key in wanted and value.strip():
                return value.strip()
        return ""

    def json_ld_objects(self) -> list[dict]:
        """Parsed JSON-LD objects (``@graph`` flattened); malformed, huge or too deeply nested
        scripts are skipped (see :mod:`thresher.jsonld`)."""
        return jsonld.json_ld_objects(self.json_ld)


def normalize_space(text: str) -> str:
    return _WS.sub(" ", text).strip()


# ----------------------------------------------------------------- building

def _pre_text(raw: str) -> str:
    lines = [line.rstrip() for line in raw.replace("\r\n", "\n").split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


# What the walk does with an element, by tag. The bits from _SKIP up are handled on entry and
# are never pushed: skipped content, <br>, and <math> (skipped when hidden, else inline).
_BLOCK, _PRE, _ANCHOR, _HEADING, _SKIP, _BR, _MATH = 1, 2, 4, 8, 16, 32, 64
# Frequent inline tags are listed with role 0, so that only unknown tags are checked for
# parser-internal names (comments and the like).
_INLINE_TAGS = frozenset(
    "span b i em strong img input label button small sup sub abbr cite code kbd samp var time mark q s u "
    "del ins font picture source".split())
_ROLES: dict[str, int] = {tag: 0 for tag in _INLINE_TAGS}
_ROLES.update({tag: _BLOCK for tag in BLOCK_TAGS})
_ROLES.update({"pre": _BLOCK | _PRE, "textarea": _BLOCK | _PRE, "a": _ANCHOR})
_ROLES.update({tag: _BLOCK | _HEADING for tag in HEADING_TAGS})
_ROLES.update({tag: _SKIP for tag in SKIPPED_TAGS})
_ROLES.update({"br": _BR, "math": _MATH})
_INHERITED = _ANCHOR | _PRE  # roles that hold for everything inside the element


_new_tuple = tuple.__new__  # builds a NamedTuple from a tuple of its fields, skipping its __new__


class _Builder:
    """The element columns, blocks and page facts of one walk. Private to :func:`build_document`."""

    def __init__(self) -> None:
        self.tags: list[str] = []
        self.parents: list[int] = []
        self.depths: list[int] = []
        self.attrs: list[dict] = []
        self.first_block: list[int] = []
        self.end_block: list[int] = []
        self.blocks: list[Block] = []
        self.offset = 0
        self.title = ""
        self.meta: list[tuple[str, str]] = []
        self.json_ld: list[str] = []
        self.skipped: set[int] = set()

    def add_block(self, pending: "_Pending", owner: int, in_heading: bool) -> None:
        """Make a block of the pending text, delimited by element ``owner``."""
        raw = "".join([span[0] for span in pending.spans])
        if pending.pre:
            text = _pre_text(raw)
            words = len(text.split())
        else:
            split = raw.split()
            text, words = " ".join(split), len(split)
        tag = self.tags[owner]
        self.blocks.append(_new_tuple(Block, (  # Block(...) without the named constructor's call
            len(self.blocks), text, tag, owner, tuple(pending.spans), len(text), words,
            min(pending.link_chars, len(text)), pending.link_words, pending.tag_count,
            in_heading or tag in HEADING_TAGS, self.offset)))
        self.offset += len(text)

    def table(self) -> ElementTable:
        """The element columns, once the last block is flushed.

        Ranges need no clamping: an element's range starts at the number of
        blocks when it opens and ends at that number when it closes, plus one
        when text was pending (that pending block is always flushed later).
        """
        return ElementTable(tuple(self.tags), tuple(self.parents), tuple(self.depths),
                            tuple(self.attrs), tuple(self.first_block), tuple(self.end_block))


class _Pending(NamedTuple):
    """What the walk has read of the current block when it hands it to :meth:`_Builder.add_block`."""

    spans: list
    pre: bool
    link_chars: int
    link_words: int
    tag_count: int


# The counters of a block that has no text yet: has_text, pre, link_chars, link_words, tag_count, brs.
_NEW_BLOCK = (False, False, 0, 0, 0, 0)
# What :func:`_walk` does next with its current node: enter it, or (it is done) go on to its next
# sibling, or close it first (an element just opened, without children).
_ENTER, _NEXT, _CLOSE = 0, 1, 2


def _walk(root, b: _Builder, attributes: bool = True) -> None:
    """One iterative pre/post-order walk over the DOM: no recursion, whatever the depth.

    The walk follows the tree's own links: into an element's first child, on to a node's
    next sibling, and, past a last child, back out of the open elements (``open_elements``:
    the node, its element index, its role and the ``inherited`` bits outside it), closing
    each. The innermost open element is the parent of the next node entered, and it gives
    that node its depth and the anchor and pre bits (``inherited``) of its ancestors. Leaves
    without a role are closed on entry. This loop is the hot path of every extraction, so
    the current block's counters are local variables and the element columns are appended
    to directly. Without ``attributes`` only the elements in ``_ATTRIBUTES_ALWAYS`` read theirs.
    """
    roles, new_tuple = _ROLES, _new_tuple
    # lexbor's tag id -> (tag, role) of each tag of _ROLES met so far: reading a node's tag id
    # costs half of reading its name. Only _ROLES' tags are kept: they are HTML names, one per
    # id, where an id may stand for two spellings of another name (SVG's clipPath, clippath).
    seen: dict[int, tuple[str, int]] = {}
    tags, parents, depths, attrs_col = b.tags, b.parents, b.depths, b.attrs
    firsts, ends, blocks = b.first_block, b.end_block, b.blocks
    block_owners = [0]  # innermost open block-level element (the root stands in before one opens)
    headings = 0  # open heading elements
    # The current block: its spans, and the counters a block records.
    spans: list = []
    has_text = pre = False
    link_chars = link_words = tag_count = brs = 0
    parent, depth, inherited = -1, 0, 0
    open_elements: list = []
    push, pop = open_elements.append, open_elements.pop
    # ``node`` is entered, unless ``step`` says it is done: _NEXT, go on to its next sibling
    # (or out of the open elements past the last one); _CLOSE, it was just opened with no
    # children, so close it first.
    node, step = root, _ENTER
    while True:
        if step:
            nxt = node.next if step == _NEXT and open_elements else None  # the root's siblings are not walked
            while nxt is None:  # out of the innermost open element
                if not open_elements:
                    break
                node, index, role, inherited = pop()
                if role & _BLOCK:  # its pending text becomes a block
                    if has_text:
                        b.add_block(new_tuple(_Pending, (spans, pre, link_chars, link_words, tag_count)),
                                    block_owners[-1], headings > 0)
                    spans, (has_text, pre, link_chars, link_words, tag_count, brs) = [], _NEW_BLOCK
                    block_owners.pop()
                    if role & _HEADING:
                        headings -= 1
                    ends[index] = len(blocks)
                else:
                    ends[index] = len(blocks) + has_text
                parent = parents[index]
                depth -= 1
                if not open_elements:  # the root is closed
                    break
                nxt = node.next
            if nxt is None:
                break
            node = nxt
        step = _NEXT
        text = node.text_content  # None unless a text node, the commonest kind
        if text is not None:
            if text and parent >= 0:
                if not text.isspace():
                    spans.append((text, parent))
                    has_text, brs = True, 0
                    if inherited & _PRE:
                        pre = True
                    if inherited & _ANCHOR:
                        words = text.split()
                        link_chars += len(" ".join(words))
                        link_words += len(words)
                elif has_text or inherited & _PRE:  # white space before a block's first text is not kept
                    spans.append((text, parent))
            continue
        known = seen.get(node.tag_id)
        if known is None:  # a tag not met before in this walk, or not one of _ROLES
            tag = node.tag
            role = roles.get(tag)
            if role is None:
                if not tag or tag[0] in "-_#!":
                    continue
                role = 0
            else:
                seen[node.tag_id] = (tag, role)
        else:
            tag, role = known
        if role & _BLOCK:  # a block-level element ends the current block
            if has_text:
                b.add_block(new_tuple(_Pending, (spans, pre, link_chars, link_words, tag_count)),
                            block_owners[-1], headings > 0)
            spans, (has_text, pre, link_chars, link_words, tag_count, brs) = [], _NEW_BLOCK
        index = len(tags)
        attrs = node.attributes if attributes or tag in _ATTRIBUTES_ALWAYS else NO_ATTRIBUTES
        tags.append(tag)
        parents.append(parent)
        depths.append(depth)
        attrs_col.append(attrs)
        count = len(blocks)
        firsts.append(count)
        if role >= _SKIP:  # skipped content, a line break or MathML
            if role & _SKIP or (role & _MATH and is_hidden_math(node)):
                ends.append(count)
                _collect_head_facts(b, node, tag, attrs)
                b.skipped.add(index)
                continue
            if role & _BR:  # a second <br> in a row ends the block
                ends.append(count)
                if not brs:
                    spans.append(("\n", index))
                    brs = 1
                    continue
                if has_text:
                    b.add_block(new_tuple(_Pending, (spans, pre, link_chars, link_words, tag_count)),
                                block_owners[-1], headings > 0)
                spans, (has_text, pre, link_chars, link_words, tag_count, brs) = [], _NEW_BLOCK
                brs = 1
                continue
            role = 0  # visible MathML is inline text
        tag_count += 1
        child = node.first_child
        if role:
            if role & _BLOCK:
                block_owners.append(index)
            if role & _HEADING:
                headings += 1
        elif child is None:
            ends.append(count + has_text)
            continue
        push((node, index, role, inherited))
        inherited |= role & _INHERITED
        ends.append(count)
        parent = index
        depth += 1
        if child is None:
            step = _CLOSE
        else:
            node, step = child, _ENTER
    if has_text:
        b.add_block(new_tuple(_Pending, (spans, pre, link_chars, link_words, tag_count)),
                    block_owners[-1], headings > 0)


def is_hidden_math(node) -> bool:
    """MathML hidden by an inline style on itself or its parent: the accessible copy some
    pages (Wikipedia) keep beside a rendered image of the same formula. Read from the DOM
    node, so the document is the same with or without element attributes."""
    return any(element is not None and element.is_element_node and hidden_by_style(element.attributes)
               for element in (node, node.parent))


def hidden_by_style(attrs: dict) -> bool:
    """An inline ``display:none`` or ``visibility:hidden`` style."""
    style = attrs.get("style")
    return bool(style) and _HIDDEN_STYLE.search(style) is not None


def _is_json_ld(attrs: dict) -> bool:
    return (attrs.get("type") or "").strip().lower().startswith("application/ld+json")


def _collect_head_facts(b: _Builder, node, tag: str, attrs: dict) -> None:
    """Title, meta tags and JSON-LD live in elements whose text is not page text."""
    if tag == "head":
        for child in node.traverse(include_text=False):
            _head_child(b, child)
    elif tag == "script" and _is_json_ld(attrs):
        b.json_ld.append(node.text(deep=True) or "")


def _head_child(b: _Builder, node) -> None:
    tag = node.tag
    if tag == "title" and not b.title:
        b.title = normalize_space(node.text(deep=True) or "")
    elif tag == "meta":
        attrs = node.attributes
        key = attrs.get("property") or attrs.get("name") or attrs.get("itemprop") or attrs.get("http-equiv")
        if key and attrs.get("content") is not None:
            b.meta.append((key.strip().lower(), attrs.get("content") or ""))
    elif tag == "script" and _is_json_ld(node.attributes):
        b.json_ld.append(node.text(deep=True) or "")
    elif tag == "link":
        attrs = node.attributes
        if "canonical" in (attrs.get("rel") or "").lower().split() and attrs.get("href"):
            b.meta.append(("canonical", attrs.get("href") or ""))


def build_document(html: str, url: str | None = None, *, encoding: str = "",
                   limits: ParseLimits = ParseLimits(), attributes: bool = True,
                   utf8: bytes | None = None) -> Document:
    """Parse ``html`` once and build its :class:`Document`.

    ``utf8`` is ``html`` in UTF-8 when the caller already has it (see :func:`thresher.parse.parse`).

    ``attributes=False`` leaves every element's ``attrs`` empty (:data:`NO_ATTRIBUTES`)
    except ``<html>``'s and the head's, which is faster, for algorithms and
    outputs that never read ids, classes or links.
    """
    tree = parse(html, limits, utf8)
    builder = _Builder()
    _walk(tree.root, builder, attributes)
    elements = builder.table()
    lang = ""
    if len(elements) and elements.tags[0] == "html":
        lang = (elements.attrs[0].get("lang") or "").replace("_", "-").split("-")[0].strip().lower()
    return Document(
        elements=elements, blocks=tuple(builder.blocks), title=builder.title, lang=lang, url=url,
        meta=tuple(builder.meta), json_ld=tuple(builder.json_ld), encoding=encoding,
        source_length=len(html), skipped=frozenset(builder.skipped))
