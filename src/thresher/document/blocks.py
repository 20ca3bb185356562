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

import operator
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, cast, overload

from .. import _core
from .._lazy import cached_property
from ..errors import InputError
from . import jsonld
from .budget import check as check_budget
from .parse import ParseLimits, xml_root, xml_root_of_utf8

if TYPE_CHECKING:
    import numpy as np

    from .decode import Decoded

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


# The numeric element columns the core keeps until a caller reads them (``Page.element_column``).
_NATIVE_COLUMNS = ("parents", "depths", "first_blocks", "end_blocks")


class ElementTable(Sequence[Element]):
    """All elements, in pre-order, stored as columns; ``table[i]`` is an :class:`Element`.

    ``parents`` (-1 for a root), ``depths``, ``first_blocks`` and ``end_blocks`` (each element's
    range of blocks) are given, or made by the native page on first use: the common extraction
    reads none of them, and a page of a million elements would otherwise hold a Python int per
    element and column. Immutable.
    """

    __slots__ = ("_columns", "_native", "attrs", "tags")

    tags: tuple[str, ...]
    attrs: Sequence[Mapping[str, str]]  # the parser's mappings: read them, never change them
    _columns: dict[str, tuple[int, ...]]  # the columns given or made so far
    _native: _core.Page | None

    def __init__(self, tags: tuple[str, ...], parents: tuple[int, ...] | None = None,
                 depths: tuple[int, ...] | None = None, attrs: Sequence[Mapping[str, str]] = (),
                 first_blocks: tuple[int, ...] | None = None, end_blocks: tuple[int, ...] | None = None, *,
                 native: _core.Page | None = None) -> None:
        given = dict(zip(_NATIVE_COLUMNS, (parents, depths, first_blocks, end_blocks)))
        if native is None and any(v is None for v in given.values()):
            raise TypeError("ElementTable needs every column, or the native page that holds them")
        object.__setattr__(self, "tags", tags)
        object.__setattr__(self, "attrs", attrs)
        object.__setattr__(self, "_columns", {k: v for k, v in given.items() if v is not None})
        object.__setattr__(self, "_native", native)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ElementTable is immutable ({name})")

    def _column(self, name: str) -> tuple[int, ...]:
        columns = self._columns
        values = columns.get(name)
        if values is None:
            native = self._native
            assert native is not None
            values = columns.setdefault(name, native.element_column(name))
        return values

    @property
    def parents(self) -> tuple[int, ...]:
        return self._column("parents")

    @property
    def depths(self) -> tuple[int, ...]:
        return self._column("depths")

    @property
    def first_blocks(self) -> tuple[int, ...]:
        return self._column("first_blocks")

    @property
    def end_blocks(self) -> tuple[int, ...]:
        return self._column("end_blocks")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ElementTable):
            return NotImplemented
        return (self.tags == other.tags and tuple(self.attrs) == tuple(other.attrs)
                and all(self._column(n) == other._column(n) for n in _NATIVE_COLUMNS))

    __hash__ = None  # type: ignore[assignment]  # compared by value, as the dataclass it was

    def __repr__(self) -> str:
        return f"ElementTable({len(self.tags)} elements)"

    def __len__(self) -> int:
        return len(self.tags)

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
        import numpy as np  # loaded by the first caller that reads columns

        return np.divide(self.link_chars, self.chars, out=np.zeros(len(self.chars)), where=self.chars > 0)


class PageBlocks(Sequence[Block]):
    """A parsed page's blocks, made by the native core (``_core.Page.blocks``) when a caller
    first reads them: one block at a time for an index, a run for a slice, all of them for an
    iteration. Extraction to text reads none of them; an algorithm written in Python, explain,
    ``blocks=True`` and the structured renderers read those they need. The page
    (:attr:`page`) is the document's one store of its blocks and their text."""

    __slots__ = ("_made", "_whole", "page")

    def __init__(self, page: _core.Page) -> None:
        self.page = page
        # The blocks made so far, by index (None: not yet), and all of them once made.
        self._made: list[Block | None] | None = None
        self._whole: tuple[Block, ...] | None = None

    def __len__(self) -> int:
        return len(self.page)

    def _all(self) -> tuple[Block, ...]:
        whole = self._whole
        if whole is None:
            made = self._made
            if made is None or None in made:
                whole = tuple(cast("list[Block]", self.page.blocks(0, len(self.page), Block)))
                if made is not None:  # blocks read before stay the very objects handed out
                    whole = tuple(old if old is not None else new for old, new in zip(made, whole))
            else:
                whole = tuple(cast("list[Block]", made))
            self._whole = whole
        return whole

    @overload
    def __getitem__(self, index: int) -> Block: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Block, ...]: ...

    def __getitem__(self, index: int | slice) -> Block | tuple[Block, ...]:
        whole = self._whole
        if whole is not None:
            return whole[index]
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return self._all()[index]
            return tuple(self[i] for i in range(start, stop)) if stop - start < 8 else self._run(start, stop)
        n = len(self)
        i = operator.index(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("block index out of range")
        made = self._made
        if made is None:
            made = self._made = [None] * n
        block = made[i]
        if block is None:
            block = made[i] = cast("list[Block]", self.page.blocks(i, i + 1, Block))[0]
        return block

    def _run(self, start: int, stop: int) -> tuple[Block, ...]:
        """Blocks ``start`` to ``stop``, those not made yet made in one native call."""
        made = self._made
        if made is None:
            made = self._made = [None] * len(self)
        if None in made[start:stop]:
            fresh = cast("list[Block]", self.page.blocks(start, stop, Block))
            for i, block in enumerate(fresh, start):
                if made[i] is None:
                    made[i] = block
        return tuple(cast("list[Block]", made[start:stop]))

    def __iter__(self) -> Iterator[Block]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PageBlocks):
            return other is self or self._all() == other._all()
        return isinstance(other, tuple) and self._all() == other

    __hash__ = None  # type: ignore[assignment]  # equal to a tuple, so never hashed like one

    def __repr__(self) -> str:
        return f"PageBlocks({len(self)} blocks)"


@dataclass(frozen=True)
class Document:
    """A parsed page: elements, blocks and the page-level facts extractors need.

    A parsed page's ``blocks`` are a :class:`PageBlocks`, a view over the native page, which
    holds the blocks and computes the feature columns (:attr:`native`); a document built in
    Python (a tuple of blocks) has no native page."""

    elements: ElementTable
    blocks: Sequence[Block]
    title: str = ""
    lang: str = ""
    url: str | None = None
    meta: tuple[tuple[str, str], ...] = ()
    json_ld: tuple[str, ...] = ()
    encoding: str = ""
    source_length: int = 0
    skipped: frozenset[int] = field(default_factory=frozenset)  # elements not walked (script, ...)
    # Inline tags the renderers write as plain text (``include_formatting=False``:
    # :func:`thresher.filters.unformatted`).
    unmarked: frozenset[str] = frozenset()

    def __len__(self) -> int:
        return len(self.blocks)

    @property
    def native(self) -> Any:
        """The native core's page (``thresher._core.Page``) this document is a view of: it holds
        the blocks and computes the feature columns. None for a document built in Python."""
        blocks = self.blocks
        return blocks.page if isinstance(blocks, PageBlocks) else None

    @cached_property
    def numbers(self) -> BlockNumbers:
        """The blocks' counts as numpy columns, made by the core on first use (derived, never
        changed)."""
        return BlockNumbers(*self.native.block_numbers())

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
_SURROGATE = "[\ud800-\udfff]"  # compiled at its first use (a page holding lone surrogates only)


def _parse_and_walk(html: str | bytes, limits: ParseLimits, attributes: bool) -> _core.DocumentColumns:
    """The core's document of ``html``: its element columns, head facts and native page (which
    makes the blocks when they are read: :class:`PageBlocks`)."""
    try:
        return _core.build_document(html, max_attributes=limits.max_attributes, max_depth=limits.max_depth,
                                    attributes=attributes, empty=NO_ATTRIBUTES)
    except RuntimeError as exc:  # the core's parser failed (a bug): the page cannot be read
        raise InputError(f"the page could not be parsed: {exc}") from None


def build_document(html: str, url: str | None = None, *, encoding: str = "",
                   limits: ParseLimits = ParseLimits(), attributes: bool = True) -> Document:
    """Parse ``html`` once and build its :class:`Document`, in the native core.

    The core (``thresher._core``) parses with html5ever under ``limits``, walks the tree
    once into the element columns and the blocks, and collects the head facts, with the
    GIL released.

    A page decoded from bytes goes through :func:`document_of`, which parses strict UTF-8 from
    the bytes themselves.

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
        raw = _parse_and_walk(html, limits, attributes)
    except UnicodeEncodeError:
        html = re.sub(_SURROGATE, "\ufffd", html)  # one replacement character for each
        raw = _parse_and_walk(html, limits, attributes)
    return _document(raw, url, encoding, len(html))


def document_of(decoded: Decoded, url: str | None = None, *, limits: ParseLimits = ParseLimits(),
                attributes: bool = True) -> Document:
    """:func:`build_document` of a decoded page. A page of strict UTF-8 is parsed from its bytes
    and never made a ``str`` here: only an XML-like start makes it read the whole text."""
    if decoded.utf8 is None:
        return build_document(decoded.text, url, encoding=decoded.encoding, limits=limits, attributes=attributes)
    if not decoded.length or decoded.all_space:
        raise InputError("empty input")
    root = xml_root_of_utf8(decoded.utf8, lambda: decoded.text)
    if root is not None:
        raise InputError(f"an XML document (<{root}>), not an HTML page")
    return _document(_parse_and_walk(decoded.utf8, limits, attributes), url, decoded.encoding, decoded.length)


def _document(raw: _core.DocumentColumns, url: str | None, encoding: str, source_length: int) -> Document:
    check_budget()
    tags = tuple(raw["tags"])
    if not tags:
        raise InputError("the parser produced no document")
    elements = ElementTable(tags, attrs=ElementAttributes(raw["attrs"]), native=raw["page"])
    lang = (raw["lang"] or "").replace("_", "-").split("-")[0].strip().lower()
    return Document(
        elements=elements, blocks=PageBlocks(raw["page"]),
        title=raw["title"], lang=lang, url=url, meta=tuple(raw["meta"]), json_ld=tuple(raw["json_ld"]),
        encoding=encoding, source_length=source_length, skipped=frozenset(raw["skipped"]))
