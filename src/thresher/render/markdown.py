"""Markdown: the kept blocks with their structure.

* headings as ``#``..``######``;
* list items as ``- `` / ``1. ``, nested by their enclosing ``ul``/``ol``;
* runs of ``td``/``th`` blocks as tables (one line per ``tr``, a header
  separator after a table's first row);
* ``pre`` as fenced code, ``blockquote`` content behind ``>``;
* ``**bold**``, ``*italic*`` and ```code``` from inline wrappers below the
  block element; links as ``[text](url)`` only with ``links=True`` (resolved
  against the page URL, unsafe schemes dropped).

Text is escaped minimally: the characters that would start emphasis, code or
a link anywhere, and those that would start a heading, list or quote at the
start of a line.
"""
from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..document.blocks import Block, Document
from ..metadata import extract_title
from .comments import comment_view
from .common import (
    BOLD,
    CODE,
    INLINE_MARKS,
    ITALIC,
    NO_IMAGES,
    STRIKE,
    Image,
    ImagePlacement,
    Layout,
    above,
    cell_blocks,
    clean_text,
    code_run_end,
    code_text,
    heading_level,
    image_of,
    image_placement,
    inline_marks,
    is_cell,
    is_code,
    layout,
    list_chain,
    nearest,
    quote_depth,
    safe_url,
    subtree_end,
    table_caption,
    table_grid,
    table_rows,
)
from .extraction import Extraction
from .formulas import Formulas, formula_markdown
from .selection import SelectionParams, has_cells, select, title_heading_needed

_INLINE_SPECIAL = re.compile(r"([\\`*\[\]]|~~)|(?<!\w)_|_(?!\w)|<(?=[A-Za-z/!?])")
_LINE_START = re.compile(r"^(\s*)(#{1,6}|[>+-]|\d+)([.)]?)(?=\s|$)", re.M)
_RULE_LINE = re.compile(r"^(\s*)([-=])(?=[-=\s]*$)", re.M)  # "---" / "===" would make a rule or heading
_BACKTICKS = re.compile(r"`+")
# A heading's self-anchor drawn as a mark ("¶", "#", "§", a link symbol): a link with no words.
_ANCHOR_MARK_LINK = re.compile(r"\[(?:¶|\\#|#|§|🔗|\u00b6)\]\([^)\s]*\)")
# ASCII a link destination keeps raw: RFC 3986's unreserved and reserved characters but the
# parentheses, which would end the destination when unbalanced ("%" is kept only in escapes).
_DESTINATION_ASCII = frozenset(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'*+,;=")
_URL_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")
_HEX_PAIR = re.compile(r"[0-9A-Fa-f]{2}")


class Chunk(NamedTuple):
    """One rendered piece; consecutive chunks with the same non-empty ``group`` are joined by a single newline."""

    text: str
    group: tuple[str, int] | tuple[()] = ()  # blocks of one group (a list) join with one newline
    quote: int = -1  # the outermost blockquote it is in: chunks of one quote join inside it


def escape(text: str) -> str:
    """Backslash-escape what markdown would read as markup."""
    return escape_line_starts(escape_inline(text))


def escape_inline(text: str) -> str:
    """Escape what starts emphasis, code, a link or HTML anywhere in a line."""
    return _INLINE_SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def escape_line_starts(text: str) -> str:
    """Escape what starts a heading, list, quote or rule at the start of a line."""
    text = _LINE_START.sub(_escape_line_start, text)
    return _RULE_LINE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def _escape_line_start(match: re.Match[str]) -> str:
    indent, mark, dot = match.group(1, 2, 3)
    if mark.isdigit():  # "1." starts an ordered list; a bare number does not
        return indent + mark + ("\\" + dot if dot else "")
    return indent + "\\" + mark + dot


def code_span(text: str) -> str:
    ticks = max((len(t) for t in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: str, language: str = "") -> str:
    ticks = max((len(t) for t in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, ticks + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def link_destination(url: str) -> str:
    """``url`` made safe as a Markdown link destination: ``[text](destination)``.

    Tabs, newlines and other ASCII control characters are dropped (a browser's
    URL parser drops tabs and newlines too; the others cannot be meant), then
    every character that could end or break the destination is percent-encoded
    as UTF-8: spaces, ``<``, ``>``, ``"``, parentheses, backslashes (Markdown
    escapes), backticks and the other characters URLs never hold raw, and
    non-ASCII controls, format characters and separators (Unicode spaces,
    bidi overrides). A ``%`` that does not start an ``%XX`` escape is encoded;
    existing escapes are kept as they are. Other non-ASCII text stays readable.
    """
    kept = _URL_CONTROLS.sub("", url)
    return "".join(ch if _is_kept_in_destination(ch, kept, i) else _percent_encoded(ch)
                   for i, ch in enumerate(kept))


def _is_kept_in_destination(ch: str, url: str, index: int) -> bool:
    if ch == "%":
        return _is_percent_escape(url, index)
    if ch < "\x80":
        return ch in _DESTINATION_ASCII
    return unicodedata.category(ch)[0] not in "CZ"


def _is_percent_escape(url: str, index: int) -> bool:
    return _HEX_PAIR.fullmatch(url, index + 1, index + 3) is not None


def _percent_encoded(ch: str) -> str:
    return "".join(f"%{byte:02X}" for byte in ch.encode("utf-8", errors="surrogatepass"))


class _Mark(NamedTuple):
    """An inline element open while a block's spans are written."""

    element: int
    opener: str  # "" for a wrapper that writes nothing (a repeated kind, a link not written)
    closer: str
    code: bool  # a code element: its text is gathered and written as one code span


class _Inline:
    """Writes a block's spans with markers at its inline elements' edges, so one ``<b>``
    holding a link is one ``**...**`` and one ``<a>`` holding bold text is one link.

    Markers open lazily, before the first text that is not space, and close with the
    element; space at an element's edges goes outside its markers (CommonMark's flanking
    rules), and an element without text writes no markers."""

    def __init__(self, links: bool, base: str | None) -> None:
        self.links, self.base = links, base
        self.out: list[str] = []
        self.stack: list[tuple[_Mark, bool]] = []  # (mark, opened)
        self.code: list[str] | None = None  # the text of the open code element

    def mark(self, doc: Document, element: int, open_kinds: set[str]) -> _Mark:
        kind = INLINE_MARKS[doc.elements.tags[element]]
        if kind in CODE:
            return _Mark(element, "", "", True)
        if kind in open_kinds:
            return _Mark(element, "", "", False)
        if kind == "a":
            url = link_destination(safe_url(doc.elements.attrs[element].get("href"), self.base)) if self.links else ""
            return _Mark(element, "[", f"]({url})", False) if url else _Mark(element, "", "", False)
        marker = "**" if kind in BOLD else "*" if kind in ITALIC else "~~" if kind in STRIKE else ""
        return _Mark(element, marker, marker, False)

    def enter(self, doc: Document, marks: Sequence[int]) -> None:
        """Close the open elements that are not in ``marks`` and open those that are new."""
        keep = 0
        while keep < len(self.stack) and keep < len(marks) and self.stack[keep][0].element == marks[keep]:
            keep += 1
        while len(self.stack) > keep:
            self.close()
        for element in marks[keep:]:
            if self.code is not None:
                break  # inside code nothing else is marked
            kinds = {INLINE_MARKS[doc.elements.tags[m.element]] for m, _ in self.stack if m.opener}
            mark = self.mark(doc, element, kinds)
            self.stack.append((mark, False))
            if mark.code:
                self.code = []

    def close(self) -> None:
        mark, opened = self.stack.pop()
        if mark.code:
            if self.code is not None and "".join(self.code).strip():
                self.text_piece(code_span(" ".join("".join(self.code).split())), raw=True)
            self.code = None
            return
        if not opened or not mark.closer:
            return
        space = ""
        while self.out and self.out[-1].isspace():
            space = self.out.pop() + space
        if self.out and self.out[-1][-1:].isspace():
            last = self.out[-1]
            stripped = last.rstrip()
            space = last[len(stripped):] + space
            self.out[-1] = stripped
        self.out.append(mark.closer)
        if space:
            self.out.append(space)

    def text(self, text: str) -> None:
        if self.code is not None:
            self.code.append(text)
            return
        self.text_piece(text, raw=False)

    def text_piece(self, text: str, raw: bool) -> None:
        core = text.strip()
        if not core:
            if text:
                self.out.append(" ")
            return
        if text[:1].isspace():
            self.out.append(" ")
        for i, (mark, opened) in enumerate(self.stack):
            if not opened:
                self.stack[i] = (mark, True)
                if mark.opener:
                    self.out.append(mark.opener)
        self.out.append(core if raw else escape_inline(" ".join(core.split())))
        if text[-1:].isspace():
            self.out.append(" ")

    def finish(self) -> str:
        while self.stack:
            self.close()
        return "".join(self.out)


def _formula_span(doc: Document, lay: Layout, block: Block, formulas: Formulas, element: int, writer: _Inline,
                  written: set[int]) -> bool:
    """Write the formula ``element`` is part of, once per block; False when it is in none (or
    one without TeX: its text is written as text)."""
    unit = formulas.unit[element]
    formula = formulas.formula(unit, (block,)) if unit >= 0 else None
    if formula is None:
        return False
    if unit not in written:
        written.add(unit)
        alone = all(formulas.unit[e] == unit for t, e in block.spans if t.strip())
        writer.enter(doc, inline_marks(doc, lay, unit, block.element))
        writer.text_piece(formula_markdown(formula._replace(display=formula.display and alone)), raw=True)
    return True


def inline(doc: Document, lay: Layout, block: Block, links: bool) -> str:
    """The block's text with inline markup; ``<br>`` becomes a newline; a formula (``formulas``)
    its TeX as ``$...$`` or ``$$...$$`` (the layout's :class:`~thresher.render.formulas.Formulas`)."""
    writer = _Inline(links, doc.url)
    tags = doc.elements.tags
    formulas = lay.formulas
    written: set[int] = set()
    for text, element in block.spans:
        if tags[element] == "br":
            writer.enter(doc, ())
            writer.out.append("\n")
            continue
        if formulas is not None and _formula_span(doc, lay, block, formulas, element, writer, written):
            continue
        writer.enter(doc, inline_marks(doc, lay, element, block.element))
        writer.text(clean_text(text))
    lines = (" ".join(line.split()) for line in writer.finish().split("\n"))
    return escape_line_starts("\n".join(line for line in lines if line))


_LANGUAGE_PREFIXES = ("language-", "lang-", "highlight-source-", "highlight-", "brush:")
_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.-]+")


def _code_language(doc: Document, pre: int) -> str:
    """The language a ``pre`` (or a ``code`` inside it, or its wrapper) names in its classes: ``language-x``,
    ``lang-x``, ``highlight-x`` / ``highlight-source-x`` (GitHub), or SyntaxHighlighter's
    ``brush: x``; "" when none does."""
    columns = doc.elements
    candidates = [pre] + [i for i in range(pre + 1, min(pre + 3, len(columns.tags)))
                          if columns.tags[i] == "code" and columns.parents[i] in (pre, pre + 1)]
    if columns.parents[pre] >= 0:  # GitHub's and Pygments' wrapper: <div class="highlight-source-x"><pre>
        candidates.append(columns.parents[pre])
    for element in candidates:
        classes = (columns.attrs[element].get("class") or "").replace("brush: ", "brush:").split()
        for token in classes:
            for prefix in _LANGUAGE_PREFIXES:
                name = token[len(prefix):].rstrip(";")
                if token.startswith(prefix) and _LANGUAGE.fullmatch(name) and name not in ("none", "plain"):
                    return name.lower()
    return ""


def _quote(text: str, depth: int) -> str:
    if not depth:
        return text
    prefix = "> " * depth
    return "\n".join((prefix + line).rstrip() for line in text.split("\n"))


def _indent(text: str, indent: str) -> str:
    return "\n".join(indent + line if line else line for line in text.split("\n"))


class Lists:
    """List item markers: ``- `` in a ``ul``, ``N. `` in an ``ol`` (numbered from its ``start``
    by the item's place among the list's items), computed once per list."""

    def __init__(self, doc: Document, lay: Layout) -> None:
        self.doc, self.lay = doc, lay
        self.numbers: dict[int, int] = {}
        self.numbered: set[int] = set()

    def marker(self, li: int) -> str:
        tags = self.doc.elements.tags
        parent = self.lay.lists[self.doc.elements.parents[li]] if self.doc.elements.parents[li] >= 0 else -1
        if parent < 0 or tags[parent] != "ol":
            return "- "
        if parent not in self.numbered:
            self._number(parent)
        return f"{self.numbers.get(li, 1)}. "

    def _number(self, ol: int) -> None:
        self.numbered.add(ol)
        columns = self.doc.elements
        try:
            number = int((columns.attrs[ol].get("start") or "1").strip())
        except ValueError:
            number = 1
        number = min(max(number, 0), 999_999_999)  # CommonMark: at most nine digits
        for i in range(ol + 1, subtree_end(self.doc, ol)):
            if columns.tags[i] == "li" and self.lay.lists[columns.parents[i]] == ol:
                try:
                    value = columns.attrs[i].get("value")
                    number = int(value) if value else number
                except ValueError:
                    pass
                self.numbers[i] = number
                number += 1


def _item_indent(lists: Lists, doc: Document, lay: Layout, chain: Sequence[int], item_seen: set[int]) -> str:
    """Spaces for an item nested in ``chain``: the marker widths of the items of its outer lists
    that hold it and were written (an item whose parent item was left out is not indented under
    it: indented alone it would read as code)."""
    indent = ""
    for inner in chain[1:]:
        parent_item = above(doc, lay.li, inner)
        if parent_item >= 0 and parent_item in item_seen:
            indent += " " * len(lists.marker(parent_item))
    return indent


def _block_chunk(doc: Document, lay: Layout, block: Block, links: bool, item_seen: set[int],
                 lists: Lists) -> Chunk:
    """One block that is neither a cell nor code; ``item_seen`` collects the list items already started."""
    depth = quote_depth(doc, lay, block.element)
    quote = _outer_quote(doc, lay, block.element)
    body = inline(doc, lay, block, links)
    level = heading_level(doc, lay, block)
    if level:
        body = " ".join(_ANCHOR_MARK_LINK.sub("", body).split())
        return Chunk(_quote("#" * level + " " + body, depth), quote=quote)
    if block.tag == "summary" and body:  # a <details>' summary: its title, in bold
        body = f"**{body}**" if "\n" not in body and not body.startswith("*") else body
    li = lay.li[block.element]
    if li < 0:
        return Chunk(_quote(body, depth), quote=quote)
    chain = list_chain(doc, lay, li)
    if not chain:
        return Chunk(_quote(body, depth), quote=quote)
    marker, indent = lists.marker(li), _item_indent(lists, doc, lay, chain, item_seen)
    if li in item_seen:  # a further paragraph of an item already started
        return Chunk(_quote(_indent(body, indent + " " * len(marker)), depth), quote=quote)
    item_seen.add(li)
    text = indent + marker + _indent(body, " " * len(marker)).lstrip(" ")
    return Chunk(_quote(text, depth), ("list", chain[0]), quote)


def _outer_quote(doc: Document, lay: Layout, element: int) -> int:
    """The outermost ``blockquote`` around ``element`` (-1: none)."""
    quote, outer = lay.quote[element], -1
    while quote >= 0:
        outer, quote = quote, above(doc, lay.quote, quote)
    return outer


def _code_chunk(doc: Document, lay: Layout, code: Sequence[Block]) -> Chunk:
    """A run of blocks in one ``pre`` as one fenced code block."""
    text = code_block(code_text(code), _code_language(doc, lay.pre[code[0].element]))
    return Chunk(_quote(text, quote_depth(doc, lay, code[0].element)), quote=_outer_quote(doc, lay, code[0].element))


def _cell_text(doc: Document, lay: Layout, block: Block, links: bool) -> str:
    """A block's Markdown inside a table cell: line breaks as ``<br>``, pipes escaped, code
    (a ``pre`` in a cell) a code span per line."""
    if is_code(lay, block):
        lines = [line for line in block.text.split("\n") if line.strip()]
        text = "<br>".join(code_span(line) for line in lines)
    else:
        text = "<br>".join(" ".join(line.split()) for line in inline(doc, lay, block, links).split("\n"))
    return text.replace("|", "\\|")


def whole_table(doc: Document, lay: Layout, element: int, links: bool, images: bool = False) -> str:
    """Every row and cell of table ``element`` as a markdown table (the first row the header),
    after its caption: cells in their grid columns (:func:`~thresher.render.common.table_grid`),
    the blocks of a cell joined by ``<br>``, and with ``images`` the cell's images in it."""
    rows = [[_whole_cell(doc, lay, cell, links, images) if cell >= 0 else "" for cell in cells]
            for cells in table_grid(doc, table_rows(doc, lay.table, lay.row, element))]
    rows = [row for row in rows if any(row)]
    caption_blocks = cell_blocks(doc, table_caption(doc, lay.table, element))
    caption = " ".join(inline(doc, lay, block, links) for block in caption_blocks)
    return "\n\n".join(filter(None, (caption.strip(), pipe_table(rows) if rows else "")))


def _whole_cell(doc: Document, lay: Layout, cell: int, links: bool, images: bool) -> str:
    pieces = [_cell_text(doc, lay, block, links) for block in cell_blocks(doc, cell)]
    if images and "img" in doc.elements.tags:
        tags = doc.elements.tags
        for i in range(cell + 1, subtree_end(doc, cell)):
            if tags[i] == "img" and lay.table[i] == lay.table[cell]:
                image = image_of(doc, i)
                if image is not None:
                    pieces.append(image_chunk(image).text.replace("|", "\\|"))
    return "<br>".join(piece for piece in pieces if piece)


def pipe_table(rows: Sequence[list[str]]) -> str:
    """Rows of cell texts (escaped) as a markdown table, short rows padded."""
    width = max(len(row) for row in rows)
    lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
    lines.insert(1, "|" + "|".join(["---"] * width) + "|")
    return "\n".join(lines)


class Nesting(NamedTuple):
    """Tables inside the cells of other tables, flattened into those cells."""

    grid: dict[int, int]  # nested table -> the table whose grid its cells are written in
    cell: dict[int, tuple[int, int]]  # nested table -> (row, cell) of that grid table holding it
    cells: Sequence[int] = ()  # per element, its nearest td/th (-1: none); empty without tables


NO_NESTING = Nesting({}, {})


def nesting(doc: Document, lay: Layout, max_chars: int = SelectionParams().table_max_cell_chars) -> Nesting:
    """The tables held in a cell of a table with text in two cells or more of its own, short ones
    (each of its blocks, nested tables' included, at most ``max_chars``): a data table, not a
    layout table holding an article, a one-cell box, or tables set side by side. Their cells
    are written inside the holding cell, since a GFM table cannot hold a table. Linear: each
    table's longest block is gathered bottom-up over the tables in reverse document order."""
    tags, parents = doc.elements.tags, doc.elements.parents
    if "table" not in tags:
        return NO_NESTING
    tables = [i for i, tag in enumerate(tags) if tag == "table"]
    outer = {t: above(doc, lay.table, t) for t in tables}
    cells = nearest(doc, _CELL_TAGS)
    if all(o < 0 for o in outer.values()):
        return Nesting({}, {}, cells)
    longest = dict.fromkeys(tables, 0)
    texts = dict.fromkeys(tables, 0)  # cells with text of the table's own
    for block in doc.blocks:
        t = lay.table[block.element]
        if t >= 0:
            longest[t] = max(longest[t], block.char_count)
            texts[t] += is_cell(block)
    for t in reversed(tables):
        if outer[t] >= 0:
            longest[outer[t]] = max(longest[outer[t]], longest[t])
    grid: dict[int, int] = {}
    cell: dict[int, tuple[int, int]] = {}
    for t in tables:  # document order: a table's holder is settled before it
        holder = outer[t]
        if holder < 0 or longest[holder] > max_chars or texts[holder] < 2:
            continue  # a box, or a layout of tables side by side: what it holds is written as it is
        current = parents[t]  # up to the holder's cell: a walk inside the holder, not to the root
        while current > holder and not (tags[current] in _CELL_TAGS and lay.table[current] == holder):
            current = parents[current]
        if current <= holder or lay.row[current] < 0:
            continue
        root = grid.get(holder, holder)
        grid[t] = root
        cell[t] = cell.get(holder, (lay.row[current], current))
    return Nesting(grid, cell, cells)


_CELL_TAGS = frozenset({"td", "th"})


def _in_cell(lay: Layout, nested: Nesting, block: Block, owner: int) -> bool:
    """``block`` is written in a cell of table ``owner``: a cell's text, or a line of a ``pre``
    in a cell, of ``owner`` or of a table flattened into it."""
    table_of = lay.table[block.element]
    if nested.grid.get(table_of, table_of) != owner:
        return False
    if is_cell(block):
        return True
    cell = nested.cells[block.element] if nested.cells else -1
    return is_code(lay, block) and cell >= 0 and lay.table[cell] == table_of


def table(doc: Document, lay: Layout, cells: Sequence[Block], links: bool, nested: Nesting = NO_NESTING) -> str:
    """Consecutive cell blocks of one table as a markdown table; the cells of a table nested in
    one of its cells (:func:`nesting`) inside that cell, a nested row a line (``<br>``) and its
    cells apart by an escaped pipe."""
    rows: list[list[str]] = []
    current_row = None
    current_cell = None
    inner_row = -1
    for block in cells:
        table_of = lay.table[block.element]
        own = nested.cells[block.element] if nested.cells and not is_cell(block) else block.element
        row, cell = nested.cell.get(table_of, (lay.row[block.element], own))
        if not rows or row != current_row or row < 0:
            rows.append([])
            current_row, current_cell = row, None
        text = _cell_text(doc, lay, block, links)
        if cell == current_cell and rows[-1]:
            if table_of in nested.cell and lay.row[block.element] == inner_row:
                rows[-1][-1] += " \\| " + text  # the next cell of a nested row
            else:
                rows[-1][-1] += "<br>" + text  # a cell split by <br><br>, or a nested row
        else:
            rows[-1].append(text)
        current_cell = cell
        inner_row = lay.row[block.element] if table_of in nested.cell else -1
    return pipe_table(rows)


def _chunks(doc: Document, kept: Sequence[Block], links: bool, tables: frozenset[int] = frozenset(),
            images: ImagePlacement = NO_IMAGES) -> list[Chunk]:
    lay = layout(doc)._replace(formulas=Formulas.of(doc))
    lists = Lists(doc, lay)
    nested = nesting(doc, lay)
    item_seen: set[int] = set()
    out: list[Chunk] = []
    i = 0
    while i < len(kept):
        chunk, j = _run_chunk(doc, lay, kept, i, links, tables, item_seen, lists, images is not NO_IMAGES, nested)
        head, tail = images.around(kept[i:j])
        whole = lay.table[kept[i].element]
        if whole in tables:  # the table's own images are in its cells
            tail = [image for image in tail if lay.table[image.element] != whole]
        out.extend(image_chunk(image) for image in head)
        out.append(chunk)
        out.extend(image_chunk(image) for image in tail)
        i = j
    return out


def _run_chunk(doc: Document, lay: Layout, kept: Sequence[Block], i: int, links: bool, tables: frozenset[int],
               item_seen: set[int], lists: Lists, images: bool,
               nested: Nesting = NO_NESTING) -> tuple[Chunk, int]:
    """The chunk of the run of blocks starting at ``kept[i]`` and the run's end (exclusive): a
    whole table, consecutive cells of one table, the lines of one ``pre``, or a block."""
    block = kept[i]
    whole = lay.table[block.element]
    if whole in tables and whole not in nested.grid:  # a table nested in a cell is written in the cell
        end, j = doc.elements.end_blocks[whole], i
        while j < len(kept) and kept[j].index < end:
            j += 1
        return Chunk(_quote(whole_table(doc, lay, whole, links, images), quote_depth(doc, lay, block.element)),
                     quote=_outer_quote(doc, lay, block.element)), j
    owner = lay.table[block.element]
    owner = nested.grid.get(owner, owner)
    if is_cell(block) and (owner < 0 or has_cells(doc, lay.table, owner, 2)):  # one cell: a box, no table
        j = i + 1
        while j < len(kept) and _in_cell(lay, nested, kept[j], owner):  # a pre in a later cell too
            j += 1
        return Chunk(_quote(table(doc, lay, kept[i:j], links, nested), quote_depth(doc, lay, block.element)),
                     quote=_outer_quote(doc, lay, block.element)), j
    if is_code(lay, block):
        j = code_run_end(lay.pre, kept, i)
        return _code_chunk(doc, lay, kept[i:j]), j
    return _block_chunk(doc, lay, block, links, item_seen, lists), i + 1


def image_chunk(image: Image) -> Chunk:
    """An image as ``![alt](url)``, with its figure's caption as the title: ``![alt](url "caption")``."""
    title = ""
    if image.caption:
        title = ' "' + escape_inline(" ".join(image.caption.split())).replace('"', '\\"') + '"'
    return Chunk(f"![{escape_inline(image.alt)}]({link_destination(image.src)}{title})")


def join(chunks: Sequence[Chunk]) -> str:
    """The chunks one after the other: one line break inside a group (a list), a line holding
    ``>`` between chunks of one blockquote (so it stays one quote), a blank line otherwise."""
    parts: list[str] = []
    previous = Chunk("")
    for chunk in chunks:
        if not chunk.text:
            continue
        if parts:
            if chunk.group and chunk.group == previous.group:
                parts.append("\n")
            elif chunk.quote >= 0 and chunk.quote == previous.quote:
                parts.append("\n>\n")
            else:
                parts.append("\n\n")
        parts.append(chunk.text)
        previous = chunk
    return "".join(parts)


def markdown_title(result: Extraction) -> str:
    """The title the Markdown opens with: the metadata's cleaned title (the article's own h1
    when it agrees with a declared title, no site-name suffix: :func:`~thresher.metadata.extract_title`),
    found whether or not the metadata was extracted; the document's ``<title>`` when the
    metadata finds none."""
    return extract_title(result.document) or result.title or ""


def render(result: Extraction, *, links: bool = False, title: bool = True, images: bool = False,
           **_options: Any) -> str:
    """Markdown of the selected blocks (:func:`~thresher.render.selection.select`);
    ``links=True`` writes links as ``[text](url)``; ``title=True`` opens with the page
    title as a ``#`` heading unless the first block already is that heading; ``images=True``
    writes the images among the blocks as ``![alt](url)``. With ``include_comments`` the
    page's comments follow the main content, written the same way."""
    text = _markdown(result, links, title, images)
    view = comment_view(result)
    if view is None:
        return text
    return "\n\n".join(filter(None, (text, _markdown(view, links, False, images))))


def _markdown(result: Extraction, links: bool, title: bool, images: bool) -> str:
    """:func:`render` of the kept blocks alone (no comments added)."""
    selection = select(result)
    if not selection.blocks:
        return ""
    placement = image_placement(result.document, selection.blocks) if images else NO_IMAGES
    chunks = _chunks(result.document, selection.blocks, links, selection.tables, placement)
    heading = markdown_title(result) if title else ""
    if heading and title_heading_needed(heading, selection.blocks):
        chunks.insert(0, Chunk("# " + escape_inline(" ".join(heading.split()))))
    return clean_text(join(chunks))
