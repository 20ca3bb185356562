"""Plain text: one paragraph per kept block, separated by a blank line.

Headings, list items and table cells are blocks of their own, so each sits
on its own line; ``pre`` blocks keep their line breaks (the document model
keeps them), and consecutive blocks of one ``pre`` (a highlighter's one
element per line of code) are one paragraph, a line each. This is the
benchmarks' hot path: a page without ``pre`` is nothing but a join.
"""
from __future__ import annotations

from .common import clean_text, code_run_end, code_text, nearest

_PRE = frozenset({"pre"})


def render(result, **_options) -> str:
    kept = result.kept
    doc = result.document
    if "pre" not in doc.elements.tags:
        return "\n\n".join(filter(None, (clean_text(block.text) for block in kept)))
    pre = nearest(doc, _PRE)
    paragraphs: list[str] = []
    i = 0
    while i < len(kept):
        end = code_run_end(pre, kept, i) if pre[kept[i].element] >= 0 else i + 1
        paragraphs.append(clean_text(code_text(kept[i:end])))
        i = end
    return "\n\n".join(filter(None, paragraphs))
