"""JSON-LD read from a page's ``<script type="application/ld+json">`` blocks, within limits.

Page content is hostile: a script may nest arrays 100,000 deep (which makes
``json.loads`` raise ``RecursionError``) or hold megabytes of data. A script
larger than :data:`MAX_CHARS` or nested deeper than :data:`MAX_DEPTH` is
skipped like a malformed one, before it is parsed; the page is still
extracted. The depth is measured on the raw text by a linear scan, so nothing
here recurses over the JSON, and every later walk over the parsed objects is
bounded by the same depth.
"""
from __future__ import annotations

import json
from collections.abc import Iterable

from .. import _core

# Real JSON-LD blocks are a few kilobytes and nest a handful of levels.
MAX_CHARS = 2_000_000
MAX_DEPTH = 64

def nesting_depth(raw: str) -> int:
    """How deep arrays and objects nest in JSON text, brackets inside strings aside.

    A linear scan of the text by the core, no parse: for valid JSON (and for the part of
    invalid JSON a parser reads before it fails) this is the depth the parser reaches. A
    string runs to its closing quote, or to the end of the text when it has none.
    """
    return _core.json_nesting_depth(raw)


def is_within_limits(raw: str, max_chars: int = MAX_CHARS, max_depth: int = MAX_DEPTH) -> bool:
    """True when a script is small and shallow enough to parse."""
    if len(raw) > max_chars:
        return False
    if raw.count("[") + raw.count("{") <= max_depth:  # cannot nest deeper: skip the scan
        return True
    return nesting_depth(raw) <= max_depth


def parse_script(raw: str) -> object | None:
    """The JSON value of one script, or None when it is malformed or over the limits."""
    if not is_within_limits(raw):
        return None
    try:
        return json.loads(raw)
    except ValueError:  # JSONDecodeError, and integers too long to convert
        return None


def json_ld_objects(scripts: Iterable[str]) -> list[dict]:
    """The objects of every readable script, in document order; top-level arrays and
    ``@graph`` lists are flattened (with an explicit stack)."""
    objects: list[dict] = []
    for raw in scripts:
        stack = [parse_script(raw)]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(reversed(item))
            elif isinstance(item, dict):
                objects.append(item)
                if isinstance(item.get("@graph"), list):
                    stack.extend(reversed(item["@graph"]))
    return objects
