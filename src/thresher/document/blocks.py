"""The document model: one immutable document of elements and blocks per page.

A page is parsed once (:mod:`thresher.document.parse`) and walked once, iteratively, into

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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, cast, overload

import numpy as np

from .. import _core
from .._lazy import cached_property
from ..errors import InputError
from . import jsonld
from .budget import check as check_budget
from .parse import ParseLimits, xml_root

# The walk's tag classes, as the core defines them (crates/core/src/document.rs): elements that
# start and end a block, headings, and elements whose content is never page text (scripts, the
# head, SVG, media, ruby annotations ...). MathML is page text; its <annotation>s are not.
BLOCK_TAGS = frozenset(_core.BLOCK_TAGS)
HEADING_TAGS = frozenset(_core.HEADING_TAGS)
SKIPPED_TAGS = frozenset(_core.SKIPPED_TAGS)
_WS = re.compile(r"\s+")
# What an element's ``attrs`` is when the document is built without attributes.
NO_ATTRIBUTES: Mapping[str, str] = MappingProxyType({})


class Element(NamedTuple):
    """One element of the page. ``parent`` is -1 for the root; ``attrs`` is read-only."""

    index: int  # type: ignore[assignment]  # a field named like tuple.index, as NamedTuple allows
    tag: str
    parent: int
    depth: int
    attrs: Mapping[str, str]
    first_block: int  # blocks [first_block, end_block) lie inside this element
    end_block: int

    @property
    def id(self) -> str:
        return (self.attrs.get("id") or "").strip()

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple((self.attrs.get("class") or "").split())


class ElementAttributes(Sequence[Mapping[str, str]]):
    """Each element's attributes (:attr:`ElementTable.attrs`), as read-only mappings.

    Made by the core on first use, all at once: most extractions read none of them.
    """

    __slots__ = ("_dicts", "_native")

    def __init__(self, native: _core.ElementAttributes | None = None,
                 dicts: Sequence[Mapping[str, str]] = ()) -> None:
        self._native = native
        self._dicts: tuple[Mapping[str, str], ...] | None = None if native is not None else tuple(dicts)

    def _all(self) -> tuple[Mapping[str, str], ...]:
        dicts = self._dicts
        if dicts is None:
            native = self._native
            assert native is not None
            dicts = self._dicts = tuple(native.dicts())
            self._native = None
        return dicts

    def __len__(self) -> int:
        native = self._native
        return len(native) if native is not None else len(self._all())

    @overload
    def __getitem__(self, index: int) -> Mapping[str, str]: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Mapping[str, str], ...]: ...

    def __getitem__(self, index: int | slice) -> Mapping[str, str] | tuple[Mapping[str, str], ...]:
        return self._all()[index]

    def __iter__(self) -> Iterator[Mapping[str, str]]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ElementAttributes):
            return self._all() == other._all()
        return isinstance(other, tuple) and self._all() == other

    __hash__ = None  # type: ignore[assignment]  # mappings are not hashable

    def __repr__(self) -> str:
        return f"ElementAttributes({self._all()!r})"


@dataclass(frozen=True)
class ElementTable(Sequence[Element]):
    """All elements, in pre-order, stored as columns; ``table[i]`` is an :class:`Element`."""

    tags: tuple[str, ...]
    parents: tuple[int, ...]
    depths: tuple[int, ...]
    attrs: Sequence[Mapping[str, str]]  # the parser's mappings: read them, never change them
    first_blocks: tuple[int, ...]
    end_blocks: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.tags)

    @cached_property
    def arrays(self) -> ElementArrays:
        """The integer columns as read-only int64 arrays, converted once per document
        (several feature stages read them)."""
        n = len(self.tags)
        columns = [np.asarray(c, np.int64).reshape(n) for c in
                   (self.parents, self.depths, self.first_blocks, self.end_blocks)]
        for column in columns:
            column.flags.writeable = False
        return ElementArrays(*columns)

    @overload
    def __getitem__(self, index: int) -> Element: ...

    @overload
    def __getitem__(self, index: slice) -> list[Element]: ...

    def __getitem__(self, index: int | slice) -> Element | list[Element]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self.tags)
        return Element(index, self.tags[index], self.parents[index], self.depths[index],
                       MappingProxyType(self.attrs[index]), self.first_blocks[index], self.end_blocks[index])


class ElementArrays(NamedTuple):
    """:class:`ElementTable`'s integer columns as arrays (``parents`` keeps -1 for the root)."""

    parents: np.ndarray
    depths: np.ndarray
    first_blocks: np.ndarray
    end_blocks: np.ndarray


# A run of text and the element that directly contains it: (text, element). A plain tuple, not
# a NamedTuple: CPython's collector stops tracking a tuple of strings and ints, never a NamedTuple,
# and a page holds hundreds of spans until it is done.
Span = tuple[str, int]


class Block(NamedTuple):
    """A segment of text between two block boundaries, with its shallow statistics."""

    index: int  # type: ignore[assignment]  # a field named like tuple.index, as NamedTuple allows
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
        none = np.zeros(0)
        return BlockNumbers(none, none, none, none, none, none, np.zeros(0, np.int64))
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
    # The native core's copy of this document, which computes feature columns (thresher._core.Page);
    # a document derived from another (pruned blocks) carries the matching native copy.
    native: Any = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.blocks)

    @cached_property
    def numbers(self) -> BlockNumbers:
        """The blocks' counts as numpy columns, built on first use (derived, never changed):
        by the core when the document has its native copy, else from the blocks."""
        native = self.native
        if native is not None and len(native) == len(self.blocks):
            return BlockNumbers(*native.block_numbers())
        return block_numbers(self.blocks)

    def element_blocks(self, element: int) -> range:
        """Indices of the blocks inside ``element``'s subtree."""
        elements = self.elements
        return range(elements.first_blocks[element], elements.end_blocks[element])

    def block_element(self, block: int) -> Element:
        return self.elements[self.blocks[block].element]

    def path(self, block: int) -> tuple[int, ...]:
        """Element indices from the root down to the block's delimiting element."""
        return tuple(reversed([el.index for el in self.ancestors(self.blocks[block].element)]))

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
        scripts are skipped (see :mod:`thresher.document.jsonld`). Parsed once per document:
        the features and the metadata both read them."""
        return list(self._json_ld_parsed)

    @cached_property
    def _json_ld_parsed(self) -> tuple[dict, ...]:
        return tuple(jsonld.json_ld_objects(self.json_ld))


def normalize_space(text: str) -> str:
    return _WS.sub(" ", text).strip()


def hidden_signals(attrs: Mapping[str, str | None]) -> tuple[str, ...]:
    """The attributes that hide an element by the core's one rule (``crates/core/src/hidden.rs``),
    in ``attrs`` order: "hidden" (not ``until-found``), "aria-hidden" (``true``) and "style"
    (an inline ``display:none`` or ``visibility:hidden``)."""
    if not attrs:
        return ()
    return tuple(_core.hidden_signals([(name, value or "") for name, value in attrs.items()]))


# Lone surrogates: a str can hold them (decoded with "surrogateescape", say), UTF-8 cannot.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _parse_and_walk(html: str | bytes, limits: ParseLimits, attributes: bool) -> _core.DocumentColumns:
    """The core's document of ``html``. The core makes one :class:`Block` per block and leaves
    the blocks and their spans out of the cyclic garbage collector's care (they hold only
    strings, ints and such tuples): on a page of very many blocks, collections then have
    nothing of the page to walk, and no process-wide collector setting is touched."""
    try:
        return _core.build_document(html, max_attributes=limits.max_attributes, max_depth=limits.max_depth,
                                    attributes=attributes, empty=NO_ATTRIBUTES, block_type=Block)
    except RuntimeError as exc:  # the core's parser failed (a bug): the page cannot be read
        raise InputError(f"the page could not be parsed: {exc}") from None


def _block_numbers(column: np.ndarray, blocks: tuple[Block, ...]) -> tuple[int, ...]:
    """``column``'s block numbers as a tuple of ints, each the very int object of its block's
    ``index`` (and the block count's one int past the last): on a page of many elements the
    numbers then take no memory of their own."""
    values = column.tolist()
    if not values or column.min() < 0 or column.max() > len(blocks):
        return tuple(values)
    pool = [block.index for block in blocks]
    pool.append(len(blocks))
    return tuple(map(pool.__getitem__, values))


def build_document(html: str, url: str | None = None, *, encoding: str = "",
                   limits: ParseLimits = ParseLimits(), attributes: bool = True,
                   utf8: bytes | None = None) -> Document:
    """Parse ``html`` once and build its :class:`Document`, in the native core.

    The core (``thresher._core``) parses with html5ever under ``limits``, walks the tree
    once into the element columns and the blocks, and collects the head facts, with the
    GIL released.

    ``utf8``: the page's own bytes when they are exactly ``html`` in UTF-8
    (:attr:`thresher.document.decode.Decoded.utf8`); the core then reads them instead of encoding ``html``.

    ``attributes=False`` leaves every element's ``attrs`` empty (:data:`NO_ATTRIBUTES`)
    except ``<html>``'s and the skipped elements' (script, head ...), which is faster, for
    algorithms and outputs that never read ids, classes or links.
    """
    if not html or html.isspace():
        raise InputError("empty input")
    root = xml_root(html)
    if root is not None:
        raise InputError(f"an XML document (<{root}>), not an HTML page")
    try:
        raw = _parse_and_walk(html if utf8 is None else utf8, limits, attributes)
    except UnicodeEncodeError:
        html = _SURROGATE.sub("\ufffd", html)  # one replacement character for each
        raw = _parse_and_walk(html, limits, attributes)
    check_budget()
    tags = tuple(raw["tags"])
    if not tags:
        raise InputError("the parser produced no document")
    arrays = ElementArrays(raw["parents"], raw["depths"], raw["first_blocks"], raw["end_blocks"])
    blocks = cast("tuple[Block, ...]", tuple(raw["blocks"]))
    parents, depths = (tuple(column.tolist()) for column in arrays[:2])
    first_blocks, end_blocks = (_block_numbers(column, blocks) for column in arrays[2:])
    check_budget()
    elements = ElementTable(tags, parents, depths, ElementAttributes(raw["attrs"]), first_blocks, end_blocks)
    elements.__dict__["arrays"] = arrays  # the cached columns, already read-only arrays
    lang = (raw["lang"] or "").replace("_", "-").split("-")[0].strip().lower()
    return Document(
        elements=elements, blocks=blocks,
        title=raw["title"], lang=lang, url=url, meta=tuple(raw["meta"]), json_ld=tuple(raw["json_ld"]),
        encoding=encoding, source_length=len(html), skipped=frozenset(raw["skipped"]), native=raw["page"])
