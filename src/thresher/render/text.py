"""Plain text: one paragraph per block, separated by a blank line.

The blocks are those :func:`~thresher.render.selection.select` picks. Headings,
list items and table cells are blocks of their own, so each sits on its own
line; ``pre`` blocks keep their line breaks (the document model keeps them),
and consecutive blocks of one ``pre`` (a highlighter's one element per line of
code) are one paragraph, a line each. With ``include_comments`` the page's comments follow
the main content, written the same way. A table written whole is one paragraph:
its caption, then a line per row, its cells separated by `` | ``. A block holding a MathML
formula says it in TeX (``$...$``: :mod:`~thresher.render.formulas`).

This is the benchmarks' hot path: the core makes the selection and writes it in one call
(``_core.Page.plain_text``, ``crates/core/src/selection.rs``), and no block becomes a
Python object; the text is then put in Unicode NFC as a whole. Only a page holding MathML
has its formula blocks' texts made here first (the core writes them in their places).
"""
from __future__ import annotations

import unicodedata
from typing import Any

from .extraction import Extraction, writes_comments
from .formulas import Formulas, block_text, has_formula
from .selection import SelectionParams, native_rules, select

CELL_SEPARATOR = " | "  # between the cells of a table row (written by the core)


def render(result: Extraction, **_options: Any) -> str:
    """The main content's text, then with ``include_comments`` the page's comments."""
    text = main_text(result)
    if not writes_comments(result):  # the common call: the comments' view is not loaded
        return text
    from .comments import CommentView

    return "\n\n".join(filter(None, (text, main_text(CommentView(result)))))


def comments_text(result: Extraction) -> str:
    """The page's comments as plain text (whatever ``include_comments`` says)."""
    if not result.comment_entries:
        return ""
    from .comments import CommentView

    return main_text(CommentView(result))


def main_text(result: Extraction) -> str:
    """The kept blocks' text (no comments added)."""
    doc = result.document
    rules = native_rules(SelectionParams())
    formulas = Formulas.of(doc, scripts=False)
    texts: dict[int, str] = {}
    if formulas is not None:  # a formula's block says it in TeX
        texts = {block.index: block_text(formulas, block) for block in select(result).blocks
                 if has_formula(formulas, block)}
    text: str = doc.native.plain_text(result.labels, rules, texts)
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)
