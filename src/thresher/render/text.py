"""Plain text: one paragraph per kept block, separated by a blank line.

Headings, list items and table cells are blocks of their own, so each sits
on its own line; ``pre`` blocks keep their line breaks (the document model
keeps them). This is the benchmarks' hot path: nothing but a join.
"""
from __future__ import annotations


def render(result, **_options) -> str:
    return "\n\n".join(block.text for block in result.kept)
