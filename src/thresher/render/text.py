"""Plain text: one paragraph per kept block, separated by a blank line.

Headings, list items and table cells are blocks of their own, so each sits
on its own line; ``pre`` blocks keep their line breaks (the document model
keeps them), and consecutive blocks of one ``pre`` (a highlighter's one
element per line of code) are one paragraph, a line each. This is the
benchmarks' hot path: a page without ``pre`` is nothing but a join.
"""
from __future__ import annotations

from .common import nearest

_PRE = frozenset({"pre"})


def render(result, **_options) -> str:
    kept = result.kept
    doc = result.document
    if "pre" not in doc.elements.tags:
        return "\n\n".join(block.text for block in kept)
    pre = nearest(doc, _PRE)
    parts: list[str] = []
    for i, block in enumerate(kept):
        if i:
            same_code = pre[block.element] >= 0 and pre[block.element] == pre[kept[i - 1].element]
            parts.append("\n" if same_code else "\n\n")
        parts.append(block.text)
    return "".join(parts)
