"""Plain text: one paragraph per block, separated by a blank line.

The blocks are those :func:`~thresher.render.selection.select` picks. Headings,
list items and table cells are blocks of their own, so each sits on its own
line; ``pre`` blocks keep their line breaks (the document model keeps them),
and consecutive blocks of one ``pre`` (a highlighter's one element per line of
code) are one paragraph, a line each. With ``include_comments`` the page's comments follow
the main content, written the same way. A table written whole is one paragraph:
its caption, then a line per row, its cells separated by `` | ``. A block holding a MathML
formula says it in TeX (``$...$``: :mod:`~thresher.render.formulas`). This is the benchmarks'
hot path: a page without ``pre``, ``math`` or whole tables is nothing but a join.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..document.blocks import Block, Document
from .comments import CommentView, comment_view
from .common import cell_blocks, clean_join, clean_text, code_run_end, code_text, nearest, table_caption, table_rows
from .extraction import Extraction
from .formulas import Formulas, block_text, has_formula
from .selection import select

_PRE = frozenset({"pre"})
_TABLE = frozenset({"table"})
_ROW = frozenset({"tr"})
CELL_SEPARATOR = " | "


def render(result: Extraction, **_options: Any) -> str:
    """The main content's text, then with ``include_comments`` the page's comments."""
    text = main_text(result)
    view = comment_view(result)
    if view is None:
        return text
    return "\n\n".join(filter(None, (text, main_text(view))))


def comments_text(result: Extraction) -> str:
    """The page's comments as plain text (whatever ``include_comments`` says)."""
    return main_text(CommentView(result)) if result.comment_entries else ""


def main_text(result: Extraction) -> str:
    """The kept blocks' text (no comments added)."""
    selection = select(result)
    kept = selection.blocks
    doc = result.document
    formulas = Formulas.of(doc, scripts=False)
    if formulas is not None:  # a formula's block says it in TeX
        kept = [block._replace(text=block_text(formulas, block)) if has_formula(formulas, block) else block
                for block in kept]
    if not selection.tables and "pre" not in doc.elements.tags:
        return clean_join([block.text for block in kept])
    pre = nearest(doc, _PRE)
    table = nearest(doc, _TABLE) if selection.tables else []
    row = nearest(doc, _ROW) if selection.tables else []
    paragraphs: list[str] = []
    i = 0
    while i < len(kept):
        whole = table[kept[i].element] if table else -1
        if whole in selection.tables:
            paragraphs.append(table_text(doc, table, row, whole))
            end = doc.elements.end_blocks[whole]
            while i < len(kept) and kept[i].index < end:
                i += 1
            continue
        end = code_run_end(pre, kept, i) if pre[kept[i].element] >= 0 else i + 1
        paragraphs.append(clean_text(code_text(kept[i:end])))
        i = end
    return "\n\n".join(filter(None, paragraphs))


def table_text(doc: Document, table: Sequence[int], row: Sequence[int], element: int) -> str:
    """Every row of a table on a line of its own, cells separated by :data:`CELL_SEPARATOR`
    (``table``/``row``: each element's nearest ``table``/``tr``)."""
    caption = _cell_text(cell_blocks(doc, table_caption(doc, table, element)))
    lines = [caption] if caption else []
    for cells in table_rows(doc, table, row, element):
        texts = [_cell_text(cell_blocks(doc, cell)) for cell in cells]
        if any(texts):
            lines.append(CELL_SEPARATOR.join(texts))
    return "\n".join(lines)


def _cell_text(blocks: Sequence[Block]) -> str:
    return " ".join(clean_text(" ".join(block.text.split())) for block in blocks).strip()
