"""HTML: a small, safe document built from the kept blocks (the *purify* stage).

Nothing of the source markup is copied through: the renderer writes its own
tags, only those in :data:`~thresher.render.common.ALLOWED_TAGS`, with only
the attributes in :data:`~thresher.render.common.ALLOWED_ATTRIBUTES` (``a``:
``href``; ``img``: ``src``, ``alt``; ``td``/``th``: ``colspan``, ``rowspan``), every text and attribute
value HTML-escaped, and links only to :data:`~thresher.render.common.ALLOWED_SCHEMES`
or relative URLs (resolved against the page URL). So no script, no event
handler, no ``javascript:``/``vbscript:``/``data:`` URL can come through.

Structure comes from the document model: headings, ``pre`` as
``<pre><code>``, consecutive list-item blocks as (nested) ``ul``/``ol``,
consecutive ``td``/``th`` blocks as ``tr`` rows of one ``table``, blocks
inside a ``blockquote`` inside one ``<blockquote>``, figure captions, and
paragraphs for the rest; inline ``a``/``b``/``strong``/``i``/``em``/``code``
wrappers between a block element and its text are kept, all others flattened.
``links=False`` drops the ``<a>`` wrappers (their text stays).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..document.blocks import Block, Document
from .common import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_TAGS,
    NO_IMAGES,
    Image,
    ImagePlacement,
    Layout,
    above,
    cell_blocks,
    clean_text,
    code_run_end,
    code_text,
    heading_level,
    image_placement,
    is_cell,
    is_code,
    layout,
    list_chain,
    runs,
    safe_url,
    split_space,
    table_caption,
    table_rows,
)
from .extraction import Extraction
from .selection import select, title_heading_needed

_LANG = re.compile(r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$")
_MAX_SPAN = 1000


def open_tag(tag: str, attrs: Mapping[str, str] | None = None) -> str:
    """A start tag from the whitelist, with only whitelisted, escaped attributes."""
    if tag not in ALLOWED_TAGS:
        raise ValueError(f"<{tag}> is not in the purify whitelist")
    allowed = ALLOWED_ATTRIBUTES.get(tag, frozenset())
    pieces = [tag]
    for name, value in (attrs or {}).items():
        if name in allowed and value:
            pieces.append(f'{name}="{escape(value, quote=True)}"')
    return "<" + " ".join(pieces) + ">"


def element(tag: str, inner: str, attrs: Mapping[str, str] | None = None) -> str:
    return f"{open_tag(tag, attrs)}{inner}</{tag}>"


def _span_attrs(attrs: Mapping[str, str]) -> dict[str, str]:
    """colspan/rowspan of a source cell, when they are small positive numbers."""
    out = {}
    for name in ("colspan", "rowspan"):
        value = (attrs.get(name) or "").strip()
        if value.isdigit() and 1 < int(value) <= _MAX_SPAN:
            out[name] = str(int(value))
    return out


# -- inline

def _wrappers(kinds: Sequence[str], href: str, links: bool, base: str | None) -> list[tuple[str, str]]:
    """(tag, href) of the wrappers a run gets, outermost first; unsafe or unwanted links go."""
    out = []
    for kind in kinds:
        if kind != "a":
            out.append((kind, ""))
        elif links:
            url = safe_url(href, base)
            if url:
                out.append(("a", url))
    return out


def inline(doc: Document, lay: Layout, block: Block, links: bool) -> str:
    """The block's text as escaped HTML with its whitelisted inline wrappers.

    Wrappers stay open across runs that share them, so ``<b>x <i>y</i></b>``
    comes out nested as it went in.
    """
    pieces: list[str] = []
    stack: list[tuple[str, str]] = []
    space = ""  # a space owed before the next text, written outside the wrappers it ended
    for run in runs(doc, lay, block):
        if run.br:
            pieces.append("<br>")
            space = ""
            continue
        lead, core, trail = split_space(run.text)
        if not core:
            space = space or lead
            continue
        wanted = _wrappers(run.kinds, run.href, links, doc.url)
        common = 0
        while common < min(len(stack), len(wanted)) and stack[common] == wanted[common]:
            common += 1
        while len(stack) > common:
            pieces.append(f"</{stack.pop()[0]}>")
        pieces.append(space or lead)
        for tag, url in wanted[common:]:
            pieces.append(open_tag(tag, {"href": url} if url else None))
            stack.append((tag, url))
        pieces.append(escape(core, quote=False))
        space = trail
    while stack:
        pieces.append(f"</{stack.pop()[0]}>")
    return _trim_breaks("".join(pieces).strip())


def _trim_breaks(text: str) -> str:
    while text.startswith("<br>"):
        text = text[4:].lstrip()
    while text.endswith("<br>"):
        text = text[:-4].rstrip()
    return text


# -- blocks

def code(blocks: Sequence[Block]) -> str:
    """Blocks of code (one, or a run in one ``pre``) as one ``<pre><code>``."""
    return element("pre", element("code", escape(code_text(blocks), quote=False)))


def _plain_block(doc: Document, lay: Layout, block: Block, links: bool) -> str:
    """A block that is neither a cell nor code (code runs go through :func:`code`)."""
    body = inline(doc, lay, block, links)
    level = heading_level(doc, lay, block)
    if level:
        return element(f"h{level}", body)
    if block.tag == "figcaption":
        return element("figure", element("figcaption", body))
    return element("p", body)


def table(doc: Document, lay: Layout, cells: Sequence[Block], links: bool) -> str:
    """Consecutive cell blocks of one table, one ``tr`` per source row.

    Blocks of the same cell (split by ``<br><br>``) share one cell, joined by
    ``<br>``.
    """
    rows: list[list[tuple[int, list[str]]]] = []  # rows of (cell element, bodies)
    current_row = None
    for block in cells:
        row = lay.row[block.element]
        if not rows or row != current_row or row < 0:
            rows.append([])
            current_row = row
        body = inline(doc, lay, block, links)
        if rows[-1] and rows[-1][-1][0] == block.element:
            rows[-1][-1][1].append(body)
        else:
            rows[-1].append((block.element, [body]))
    return element("table", element("tbody", "".join(
        element("tr", "".join(_cell(doc, cell, bodies) for cell, bodies in row)) for row in rows)))


def whole_table(doc: Document, lay: Layout, table_element: int, links: bool) -> str:
    """Every row and cell of table ``table_element``, empty cells included, and its caption."""
    rows = [[(cell, [inline(doc, lay, block, links) for block in cell_blocks(doc, cell)]) for cell in cells]
            for cells in table_rows(doc, lay.table, lay.row, table_element)]
    caption = "<br>".join(inline(doc, lay, block, links)
                          for block in cell_blocks(doc, table_caption(doc, lay.table, table_element)))
    return element("table", (element("caption", caption) if caption else "") + element("tbody", "".join(
        element("tr", "".join(_cell(doc, cell, bodies) for cell, bodies in row)) for row in rows)))


def _cell(doc: Document, cell: int, bodies: Sequence[str]) -> str:
    return element(doc.elements.tags[cell], "<br>".join(bodies), _span_attrs(doc.elements.attrs[cell]))


_NO_ITEM, _HOLDER = -1, -2  # list state: no item yet / an item opened only to hold a nested list


def lists(doc: Document, lay: Layout, blocks: Sequence[Block], links: bool) -> str:
    """Consecutive blocks inside list items as nested ``ul``/``ol``.

    ``stack`` holds the open lists, outermost first, each with the item open
    in it (an ``li`` element, or ``_NO_ITEM`` / ``_HOLDER``). A further block
    of an open item becomes a paragraph inside it.
    """
    out: list[str] = []
    stack: list[list[int]] = []  # [list element, open item]
    tags = doc.elements.tags
    i = 0
    while i < len(blocks):
        block = blocks[i]
        piece = None  # code: the block's run of lines in its pre, as one <pre>
        if is_code(lay, block):
            end = code_run_end(lay.pre, blocks, i)
            piece, i = code(blocks[i:end]), end
        else:
            i += 1
        li = lay.li[block.element]
        chain = list_chain(doc, lay, li)
        common = 0
        while common < min(len(stack), len(chain)) and stack[common][0] == chain[common]:
            common += 1
        _close(out, stack, tags, common)
        while len(stack) < len(chain):
            if stack and stack[-1][1] == _NO_ITEM:
                out.append("<li>")
                stack[-1][1] = _HOLDER
            out.append(open_tag(tags[chain[len(stack)]]))
            stack.append([chain[len(stack)], _NO_ITEM])
        top = stack[-1]
        if top[1] == li:
            out.append(_plain_block(doc, lay, block, links) if piece is None else piece)
            continue
        if top[1] != _NO_ITEM:
            out.append("</li>")
        out.append("<li>" + (_item_body(doc, lay, block, links) if piece is None else piece))
        top[1] = li
    _close(out, stack, tags, 0)
    return "".join(out)


def _item_body(doc: Document, lay: Layout, block: Block, links: bool) -> str:
    """The first block of a list item, not code: bare inline text unless it is a heading."""
    if heading_level(doc, lay, block) or block.tag == "figcaption":
        return _plain_block(doc, lay, block, links)
    return inline(doc, lay, block, links)


def _close(out: list[str], stack: list[list[int]], tags: Sequence[str], keep: int) -> None:
    """Close open lists (and their items) until ``keep`` remain."""
    while len(stack) > keep:
        list_element, item = stack.pop()
        if item != _NO_ITEM:
            out.append("</li>")
        out.append(f"</{tags[list_element]}>")


def _in_list(doc: Document, lay: Layout, block: Block) -> bool:
    li = lay.li[block.element]
    return li >= 0 and above(doc, lay.lists, li) >= 0


def flow(doc: Document, lay: Layout, blocks: Sequence[Block], links: bool,
         tables: frozenset[int] = frozenset(), images: ImagePlacement = NO_IMAGES) -> list[str]:
    """Blocks as HTML pieces: tables and lists grouped, the rest one element each;
    the blocks of a table in ``tables`` as that whole table; ``images`` around them."""
    out: list[str] = []
    i = 0
    while i < len(blocks):
        start = len(out)
        block = blocks[i]
        j = i + 1
        whole = lay.table[block.element]
        if whole in tables:
            end = doc.elements.end_blocks[whole]
            while j < len(blocks) and blocks[j].index < end:
                j += 1
            out.append(whole_table(doc, lay, whole, links))
        elif is_cell(block):
            while j < len(blocks) and is_cell(blocks[j]) and lay.table[blocks[j].element] == lay.table[block.element]:
                j += 1
            out.append(table(doc, lay, blocks[i:j], links))
        elif _in_list(doc, lay, block):
            while j < len(blocks) and not is_cell(blocks[j]) and _in_list(doc, lay, blocks[j]):
                j += 1
            out.append(lists(doc, lay, blocks[i:j], links))
        elif is_code(lay, block):
            j = code_run_end(lay.pre, blocks, i)
            out.append(code(blocks[i:j]))
        else:
            out.append(_plain_block(doc, lay, block, links))
        head, tail = images.around(blocks[i:j])
        out[start:start] = [figure(image) for image in head]
        out.extend(figure(image) for image in tail)
        i = j
    return out


def figure(image: Image) -> str:
    """An image as ``<figure><img src alt></figure>``, with a ``<figcaption>`` when it has a caption."""
    caption = element("figcaption", escape(image.caption, quote=False)) if image.caption else ""
    return element("figure", open_tag("img", {"src": image.src, "alt": image.alt}) + caption)


def _outer_quote(doc: Document, lay: Layout, block: Block) -> int:
    quote = lay.quote[block.element]
    while quote >= 0:
        outer = above(doc, lay.quote, quote)
        if outer < 0:
            return quote
        quote = outer
    return -1


def article(doc: Document, blocks: Sequence[Block], links: bool = True,
            tables: frozenset[int] = frozenset(), images: ImagePlacement = NO_IMAGES) -> str:
    """The inside of ``<article>``: blocks in order, quotations grouped, tables in ``tables`` whole."""
    lay = layout(doc)
    out: list[str] = []
    i = 0
    while i < len(blocks):
        quote = _outer_quote(doc, lay, blocks[i])
        j = i + 1
        while j < len(blocks) and _outer_quote(doc, lay, blocks[j]) == quote:
            j += 1
        pieces = flow(doc, lay, blocks[i:j], links, tables, images)
        out.append(element("blockquote", "\n".join(pieces)) if quote >= 0 else "\n".join(pieces))
        i = j
    return "\n".join(out)


def render(result: Extraction, *, links: bool = True, title: bool = True, images: bool = False, **_options: Any) -> str:
    """A complete HTML document holding the selected blocks (:func:`~thresher.render.selection.select`);
    ``links=False`` drops ``<a>``; ``title=True`` opens the article with the page title as
    ``<h1>`` unless the first block already is that heading; ``images=True`` writes the images
    among the blocks as ``<figure><img src alt></figure>``."""
    doc = result.document
    lang = result.language if result.language and _LANG.match(result.language) else ""
    html_open = f'<html lang="{lang}">' if lang else "<html>"
    head_title = escape(clean_text(result.title or ""), quote=False)
    selection = select(result)
    placement = image_placement(doc, selection.blocks) if images else NO_IMAGES
    body = article(doc, selection.blocks, links, selection.tables, placement)
    if title and title_heading_needed(result.title or "", selection.blocks):
        body = element("h1", escape(" ".join(result.title.split()), quote=False)) + "\n" + body
    body = clean_text(body)
    return (f'<!DOCTYPE html>\n{html_open}<head><meta charset="utf-8"><title>{head_title}</title></head>'
            f"<body><article>\n{body}\n</article></body></html>\n")
