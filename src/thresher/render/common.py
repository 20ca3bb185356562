"""What the structured renderers (markdown, html) share.

Kept blocks are rendered from the document model alone: each block's
delimiting element says what kind of block it is (heading, list item, table
cell, code, quotation) and each span's element says which inline wrappers
(link, bold, italic, code) lie between the block element and the text.

:class:`Layout` answers those questions with one pre-order pass per question
over the element columns ("nearest ancestor-or-self with one of these tags"),
so rendering stays linear however deep the page nests. Because the columns
are in pre-order, an ancestor of a span's element lies *below* the block
element exactly when its index is greater than the block element's.

Purify, the last stage of the declutter write-up, lives here too: the
whitelist of tags and attributes the HTML renderer may emit
(:data:`ALLOWED_TAGS`, :data:`ALLOWED_ATTRIBUTES`) and the URL check
(:func:`safe_url`) used by every renderer that writes links.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from ..document.blocks import HEADING_TAGS, Block, Document
from .formulas import Formulas

# -- purify: the whitelist

# Tags the HTML renderer may write; everything else is flattened to its text.
ALLOWED_TAGS = frozenset(
    "article p h1 h2 h3 h4 h5 h6 ul ol li table thead tbody tr td th pre code blockquote "
    "a b strong i em del br figure figcaption caption img".split())

# Attributes kept per allowed tag (copied from the source element when safe).
ALLOWED_ATTRIBUTES: dict[str, frozenset[str]] = {
    "a": frozenset({"href"}),
    "img": frozenset({"src", "alt"}),
    "td": frozenset({"colspan", "rowspan"}),
    "th": frozenset({"colspan", "rowspan"}),
}

# URL schemes a link may use; relative URLs (no scheme) are always fine.
ALLOWED_SCHEMES = frozenset({"http", "https", "mailto", "ftp", "tel"})

# Inline source tags and the mark they carry ("a" is the link mark).
INLINE_MARKS: dict[str, str] = {
    "a": "a", "b": "b", "strong": "strong", "i": "i", "em": "em", "cite": "i",
    "code": "code", "kbd": "code", "samp": "code", "tt": "code", "del": "del", "s": "del", "strike": "del",
}
BOLD, ITALIC, CODE = frozenset({"b", "strong"}), frozenset({"i", "em"}), frozenset({"code"})
STRIKE = frozenset({"del"})

# More nested inline wrappers than this add nothing (hostile pages nest
# thousands); only the innermost ones are rendered.
MAX_INLINE_DEPTH = 8

# Compiled at their first use (re's cache keeps them): plain text writes no link.
_CONTROL = r"[\x00-\x20\x7f]+"
_SCHEME = r"^([A-Za-z][A-Za-z0-9+.-]*):"


def safe_url(href: str | None, base: str | None = None) -> str:
    """``href`` resolved against ``base``, or "" when it is empty or not a safe link.

    Browsers ignore whitespace and control characters inside a scheme
    (``java\\tscript:``), so the scheme is read with them removed; only
    :data:`ALLOWED_SCHEMES` and relative URLs pass (no ``javascript:``,
    ``vbscript:``, ``data:``).
    """
    href = (href or "").strip()
    if not href:
        return ""
    match = re.match(_SCHEME, re.sub(_CONTROL, "", href))
    if match and match.group(1).lower() not in ALLOWED_SCHEMES:
        return ""
    if base:
        from urllib.parse import urljoin  # links and images only: plain text never resolves one

        try:
            href = urljoin(base, href)
        except ValueError:
            return ""
        match = re.match(_SCHEME, re.sub(_CONTROL, "", href))
        if match and match.group(1).lower() not in ALLOWED_SCHEMES:
            return ""
    return href


# -- text normalisation, shared by every output format

# Characters that are no visible text: the soft hyphen (a hyphenation hint), zero-width
# space, non-joiner and joiner, word joiner and the zero-width no-break space (a BOM
# inside text). Between two spaces one of the spaces goes with them.
_INVISIBLE_CHARS = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_INVISIBLE = re.compile(f" ?[{_INVISIBLE_CHARS}]+(?= )|[{_INVISIBLE_CHARS}]+")


def clean_text(text: str) -> str:
    """``text`` without invisible characters (soft hyphens, zero-width characters), in NFC."""
    if text.isascii():  # constant time in CPython; ASCII holds neither, and is NFC
        return text
    if any(char in text for char in _INVISIBLE_CHARS):  # a substring scan each, faster than the pattern's
        text = _INVISIBLE.sub("", text)
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


# -- layout: nearest ancestors, one column pass each

def nearest(doc: Document, tags: frozenset[str]) -> list[int]:
    """Per element, the nearest ancestor-or-self whose tag is in ``tags`` (-1: none), found by
    the core."""
    found: list[int] = doc.native.nearest(sorted(tags))
    return found


class Layout(NamedTuple):
    """Per-element nearest ancestors the structured renderers need."""

    inline: list[int]  # nearest inline-mark element (a, b, i, code, ...)
    heading: list[int]
    li: list[int]
    lists: list[int]  # nearest ul/ol
    row: list[int]
    table: list[int]
    quote: list[int]
    pre: list[int]
    formulas: Formulas | None = None  # the page's formulas, for the renderers that write TeX


def layout(doc: Document) -> Layout:
    return Layout(
        inline=nearest(doc, frozenset(INLINE_MARKS) - doc.unmarked), heading=nearest(doc, HEADING_TAGS),
        li=nearest(doc, frozenset({"li"})), lists=nearest(doc, frozenset({"ul", "ol"})),
        row=nearest(doc, frozenset({"tr"})), table=nearest(doc, frozenset({"table"})),
        quote=nearest(doc, frozenset({"blockquote"})), pre=nearest(doc, frozenset({"pre"})))


def above(doc: Document, column: Sequence[int], element: int) -> int:
    """The nearest ``column`` element strictly above ``element`` (-1: none)."""
    parent = doc.elements.parents[element]
    return column[parent] if parent >= 0 else -1


def heading_level(doc: Document, lay: Layout, block: Block) -> int:
    """1-6 for a heading block, 0 otherwise."""
    if not block.is_heading:
        return 0
    element = lay.heading[block.element]
    tag = doc.elements.tags[element] if element >= 0 else block.tag
    return int(tag[1]) if tag in HEADING_TAGS else 2


def is_cell(block: Block) -> bool:
    """A table cell block: text directly delimited by ``td``/``th``."""
    return block.tag in ("td", "th")


def is_code(lay: Layout, block: Block) -> bool:
    return lay.pre[block.element] >= 0


def code_run_end(pre: Sequence[int], blocks: Sequence[Block], start: int) -> int:
    """The end (exclusive) of the run of ``blocks`` from ``start`` that lie in the same ``pre``
    element (``pre``: :attr:`Layout.pre`, the nearest ``pre`` of each element).

    Code highlighters (CodeMirror, Shiki, Prism's line plugins) write each line of code
    as an element of its own, so each line is a block; the run is one piece of code."""
    within = pre[blocks[start].element]
    end = start + 1
    while end < len(blocks) and pre[blocks[end].element] == within:
        end += 1
    return end


def code_text(blocks: Sequence[Block]) -> str:
    """The text of a run of code blocks: one line break between two blocks."""
    return "\n".join(block.text for block in blocks)


def list_chain(doc: Document, lay: Layout, li: int) -> list[int]:
    """The ``ul``/``ol`` elements enclosing list item ``li``, outermost first."""
    chain = []
    current = above(doc, lay.lists, li)
    while current >= 0:
        chain.append(current)
        current = above(doc, lay.lists, current)
    chain.reverse()
    return chain


def subtree_end(doc: Document, element: int) -> int:
    """The index after the last element of ``element``'s subtree (elements are in pre-order)."""
    depths = doc.elements.depths
    end = element + 1
    while end < len(depths) and depths[end] > depths[element]:
        end += 1
    return end


def table_rows(doc: Document, table: Sequence[int], row: Sequence[int], element: int) -> list[list[int]]:
    """The cells (``td``/``th`` elements) of table ``element``, row by row, empty cells included;
    cells of tables nested inside are not its cells. ``table``/``row``: each element's nearest
    ``table``/``tr`` (:func:`nearest`)."""
    tags = doc.elements.tags
    rows: dict[int, list[int]] = {}
    for i in range(element + 1, subtree_end(doc, element)):
        if table[i] != element:
            continue
        if tags[i] == "tr":
            rows.setdefault(i, [])
        elif tags[i] in ("td", "th") and row[i] >= 0 and table[row[i]] == element:
            rows.setdefault(row[i], []).append(i)
    return [cells for cells in rows.values() if cells]


# Spans beyond these are clamped: a hostile colspan="1000" on every cell would multiply the output.
MAX_COLSPAN, MAX_ROWSPAN = 64, 256


def _span(doc: Document, cell: int, name: str, most: int) -> int:
    try:
        value = int((doc.elements.attrs[cell].get(name) or "1").strip())
    except ValueError:
        return 1
    return min(max(value, 1), most)


def table_grid(doc: Document, rows: Sequence[Sequence[int]]) -> list[list[int]]:
    """``rows`` of cell elements (:func:`table_rows`) laid out on the table's grid: a cell with
    ``colspan`` n is followed by n-1 places of -1, one with ``rowspan`` n holds its column in
    the next n-1 rows with -1, so every cell sits in its own column."""
    grid: list[list[int]] = []
    pending: dict[int, int] = {}  # column -> rows it is still held by a rowspan above
    for cells in rows:
        out: list[int] = []
        for cell in cells:
            _fill_held(out, pending)
            colspan = _span(doc, cell, "colspan", MAX_COLSPAN)
            rowspan = _span(doc, cell, "rowspan", MAX_ROWSPAN)
            for k in range(colspan):
                if rowspan > 1:
                    pending[len(out)] = rowspan - 1
                out.append(cell if k == 0 else -1)
        last_held = max((column for column, count in pending.items() if count > 0), default=-1)
        while len(out) <= last_held:
            _fill_held(out, pending)
            if len(out) <= last_held and pending.get(len(out), 0) <= 0:
                out.append(-1)
        grid.append(out)
    return grid


def _fill_held(out: list[int], pending: dict[int, int]) -> None:
    """Append a -1 for each column from ``len(out)`` on that a rowspan above still holds."""
    while pending.get(len(out), 0) > 0:
        pending[len(out)] -= 1
        out.append(-1)


def table_caption(doc: Document, table: Sequence[int], element: int) -> int:
    """The ``caption`` element of table ``element`` (-1: none)."""
    tags = doc.elements.tags
    for i in range(element + 1, subtree_end(doc, element)):
        if tags[i] == "caption" and table[i] == element:
            return i
    return -1


def cell_blocks(doc: Document, cell: int) -> Sequence[Block]:
    """The blocks inside a cell (or caption) element; none for -1."""
    if cell < 0:
        return ()
    return doc.blocks[doc.elements.first_blocks[cell]:doc.elements.end_blocks[cell]]


def quote_depth(doc: Document, lay: Layout, element: int) -> int:
    depth, current = 0, lay.quote[element]
    while current >= 0:
        depth += 1
        current = above(doc, lay.quote, current)
    return depth


# -- inline runs

class Run(NamedTuple):
    """Consecutive span text under the same inline wrappers."""

    text: str
    kinds: tuple[str, ...]  # mark names ("a", "b", "em", "code", ...), outermost first, no repeats
    href: str  # raw href of the innermost link ("" when not a link)
    br: bool = False  # a line break, not text


def inline_marks(doc: Document, lay: Layout, element: int, block_element: int) -> tuple[int, ...]:
    """Inline-mark elements between ``block_element`` and ``element``, outermost first."""
    marks: list[int] = []
    current = lay.inline[element]
    while current > block_element and len(marks) < MAX_INLINE_DEPTH:
        marks.append(current)
        current = above(doc, lay.inline, current)
    marks.reverse()
    return tuple(marks)


def _style(doc: Document, marks: Sequence[int]) -> tuple[tuple[str, ...], str]:
    tags, attrs = doc.elements.tags, doc.elements.attrs
    kinds: list[str] = []
    href = ""
    for m in marks:
        kind = INLINE_MARKS[tags[m]]
        if kind == "a":
            href = attrs[m].get("href") or ""
        if kind not in kinds:
            kinds.append(kind)
    return tuple(kinds), href


def runs(doc: Document, lay: Layout, block: Block) -> list[Run]:
    """The block's spans merged into runs of equal style; a ``<br>`` is a run of its own (``br``)."""
    out: list[Run] = []
    tags = doc.elements.tags
    for text, element in block.spans:
        text = clean_text(text)
        if tags[element] == "br":
            out.append(Run("\n", (), "", br=True))
            continue
        kinds, href = _style(doc, inline_marks(doc, lay, element, block.element))
        last = out[-1] if out else None
        if last is not None and not last.br and (last.kinds, last.href) == (kinds, href):
            out[-1] = Run(last.text + text, kinds, href)
        else:
            out.append(Run(text, kinds, href))
    return out


def split_space(text: str) -> tuple[str, str, str]:
    """(leading space, collapsed core, trailing space) of ``text``; spaces are " " or ""."""
    core = " ".join(text.split())
    lead = " " if core and text[:1].isspace() else ""
    trail = " " if core and text[-1:].isspace() else ""
    if not core and text:
        lead = " "
    return lead, core, trail


# -- images

class Image(NamedTuple):
    """An image to write: its URL (resolved, safe), alternative text and caption."""

    src: str
    alt: str
    caption: str = ""
    element: int = -1  # the img element


class ImagePlacement(NamedTuple):
    """Images to write before / after a block, by block index."""

    before: dict[int, list[Image]]
    after: dict[int, list[Image]]

    def around(self, blocks: Sequence[Block]) -> tuple[list[Image], list[Image]]:
        """Images before the first of a run of ``blocks`` written as one piece, and those after it
        (images inside the run come after it)."""
        head = list(self.before.get(blocks[0].index, ())) if blocks else []
        tail: list[Image] = []
        for n, block in enumerate(blocks):
            if n:
                tail.extend(self.before.get(block.index, ()))
            tail.extend(self.after.get(block.index, ()))
        return head, tail


NO_IMAGES = ImagePlacement({}, {})


def image_placement(doc: Document, blocks: Sequence[Block]) -> ImagePlacement:
    """Where the page's ``<img>`` elements go among ``blocks`` (the blocks being written).

    An image read while a block was open (``<p>text <img></p>``) goes after that block,
    when it is written. An image between blocks goes with them (:func:`_image_slot`) when
    it sits in written content: inside a ``figure`` with a written block (its caption), or
    next to a written block inside its nearest ancestor that holds blocks: before the next
    (``<figure><img><figcaption>``), else after the previous one. Images without a real
    source (:func:`image_source`) or that are pixels (:func:`is_pixel`) are left out; a
    figure's image carries the figure's caption (:func:`figure_caption`) when the caption is
    not written as a block of its own."""
    columns = doc.elements
    if "img" not in columns.tags:
        return NO_IMAGES
    written = {block.index for block in blocks}
    placement = ImagePlacement({}, {})
    figure = nearest(doc, _FIGURE) if "figure" in columns.tags else None
    for i, tag in enumerate(columns.tags):
        if tag != "img":
            continue
        unit = figure[i] if figure is not None and figure[i] >= 0 else i
        slot = _image_slot(doc, i, unit, written)
        if slot is None:
            continue
        image = image_of(doc, i, unit, caption=not _written_inside(doc, unit, written))
        if image is not None:
            target = placement.before if slot[1] else placement.after
            target.setdefault(slot[0], []).append(image)
    return placement


_FIGURE = frozenset({"figure"})
# Hosts that serve tracking pixels and beacons, never content images.
TRACKING_HOSTS = (
    "doubleclick.net", "google-analytics.com", "googletagmanager.com", "scorecardresearch.com", "quantserve.com",
    "facebook.com/tr", "pixel.wp.com", "stats.wp.com", "analytics.twitter.com", "bat.bing.com", "ads.linkedin.com",
    "agkn.com", "dmtracker.com",
    "adnxs.com", "demdex.net", "krxd.net", "omtrdc.net", "chartbeat.net", "newrelic.com", "nr-data.net",
)
_WIDTH_DESCRIPTOR = r"^(\d+(?:\.\d+)?)([wx])$"  # compiled at its first use (an image's srcset)


def srcset_largest(srcset: str | None) -> str:
    """The URL of the largest candidate of a ``srcset`` (by its ``w`` or ``x`` descriptor; a
    candidate without one counts as ``1x``); "" when there is none."""
    best, best_size = "", -1.0
    for candidate in (srcset or "").split(","):
        parts = candidate.split()
        if not parts or parts[0].startswith("data:"):
            continue
        size = 1.0
        if len(parts) > 1:
            match = re.match(_WIDTH_DESCRIPTOR, parts[-1])
            size = float(match.group(1)) if match else 1.0
        if size > best_size:
            best, best_size = parts[0], size
    return best


def _usable(src: str | None) -> str:
    src = (src or "").strip()
    return "" if not src or src.lower().startswith(("data:", "about:", "javascript:")) else src


def image_source(doc: Document, element: int) -> str:
    """The real source of ``img`` ``element``, unresolved: ``src`` unless it is missing or a
    ``data:`` placeholder, then the lazy loaders' ``data-src``, ``data-lazy-src``,
    ``data-original``, the largest candidate of ``srcset``/``data-srcset``/``data-lazy-srcset``,
    then that of a ``<source>`` of its ``<picture>``; "" when there is none."""
    attrs = doc.elements.attrs[element]
    for name in ("src", "data-src", "data-lazy-src", "data-original", "data-lazy", "data-url"):
        src = _usable(attrs.get(name))
        if src:
            return src
    for name in ("srcset", "data-srcset", "data-lazy-srcset"):
        src = _usable(srcset_largest(attrs.get(name)))
        if src:
            return src
    parent = doc.elements.parents[element]
    if parent >= 0 and doc.elements.tags[parent] == "picture":
        for i in range(parent + 1, element):
            if doc.elements.tags[i] == "source" and doc.elements.parents[i] == parent:
                src = _usable(srcset_largest(doc.elements.attrs[i].get("srcset")
                                             or doc.elements.attrs[i].get("data-srcset")))
                if src:
                    return src
    return ""


def _dimension(value: str | None) -> float | None:
    text = (value or "").strip().lower().removesuffix("px")
    try:
        return float(text)
    except ValueError:
        return None


def is_pixel(doc: Document, element: int, src: str) -> bool:
    """A tracking pixel or spacer, not a picture: declared 0 or 1 pixel wide or high (and not
    responsive: a ``srcset`` offers real sizes), or served by a known tracking host
    (:data:`TRACKING_HOSTS`)."""
    attrs = doc.elements.attrs[element]
    responsive = any(attrs.get(name) for name in ("srcset", "data-srcset", "sizes"))
    for name in ("width", "height"):
        size = _dimension(attrs.get(name))
        if size is not None and size <= 1 and not responsive:  # a responsive image is sized by its CSS
            return True
    return is_tracking_url(src)


def is_tracking_url(url: str) -> bool:
    """``url`` is served by a host of :data:`TRACKING_HOSTS` (or a subdomain of one; an
    entry with a path matches URLs under it)."""
    from urllib.parse import urlsplit  # images only: plain text never reads one

    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    for entry in TRACKING_HOSTS:
        entry_host, _, entry_path = entry.partition("/")
        if (host == entry_host or host.endswith("." + entry_host)) and parts.path.lstrip("/").startswith(entry_path):
            return True
    return False


def image_of(doc: Document, element: int, unit: int = -1, caption: bool = True) -> Image | None:
    """The image to write for ``img`` ``element``, or None without a real source or for a
    pixel; with ``caption``, that of its ``figure`` ``unit`` (the image itself: none)."""
    src = safe_url(image_source(doc, element), doc.url)
    if not src or is_pixel(doc, element, src):
        return None
    attrs = doc.elements.attrs[element]
    alt = " ".join((attrs.get("alt") or attrs.get("data-alt") or "").split())
    return Image(src, alt, figure_caption(doc, unit) if caption and unit != element else "", element)


def _written_inside(doc: Document, element: int, written: set[int]) -> bool:
    return any(b in written for b in range(doc.elements.first_blocks[element], doc.elements.end_blocks[element]))


def figure_caption(doc: Document, figure: int) -> str:
    """The text of the ``figcaption`` of ``figure`` (-1: none), space-collapsed."""
    if figure < 0:
        return ""
    tags, parents = doc.elements.tags, doc.elements.parents
    for i in range(figure + 1, subtree_end(doc, figure)):
        if tags[i] == "figcaption" and parents[i] >= 0:
            blocks = cell_blocks(doc, i)
            return " ".join(clean_text(" ".join(block.text.split())) for block in blocks).strip()
    return ""


def _image_slot(doc: Document, element: int, unit: int, written: set[int]) -> tuple[int, bool] | None:
    """(block index, before it?) for an image element, or None when it is not written.

    ``unit``: the image's ``figure`` (or the image itself). A figure with a written block
    (its caption) has its image written before that block. Otherwise the image goes with the
    blocks around ``unit`` inside the nearest ancestor that holds blocks beside it: when the block after
    it is written, before that one; else when the block before it is, after that one. An image
    with no written neighbour there (a teaser among dropped links, a logo in a dropped header)
    is not written."""
    columns = doc.elements
    first, end = columns.first_blocks[element], columns.end_blocks[element]
    if end > first:
        return (first, False) if first in written else None
    if unit != element:
        inside = [b for b in range(columns.first_blocks[unit], columns.end_blocks[unit]) if b in written]
        if inside:
            return (inside[0], True) if inside[0] >= first else (inside[-1], False)
    holder = columns.parents[unit]
    unit_first, unit_end = columns.first_blocks[unit], columns.end_blocks[unit]
    while holder >= 0 and columns.first_blocks[holder] >= unit_first and columns.end_blocks[holder] <= unit_end:
        holder = columns.parents[holder]  # no block of its own beside the unit's
    if holder < 0:
        return None
    low, high = columns.first_blocks[holder], columns.end_blocks[holder]
    before, after = columns.first_blocks[unit] - 1, columns.end_blocks[unit]
    if low <= after < high and after in written:
        return after, True
    if low <= before < high and before in written:
        return before, False
    return None
