"""Plain text: one paragraph per kept block, separated by a blank line."""
from __future__ import annotations


def render(result, **_options) -> str:
    return "\n\n".join(block.text for block in result.kept)
