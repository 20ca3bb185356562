"""YAML front matter for text and Markdown output under ``with_metadata``.

A block between two ``---`` lines, one ``key: value`` line per known metadata field
(unknown ones are left out). Values are written as double-quoted scalars with JSON's
escapes, which YAML reads as the same strings; tags as a flow list of such scalars.
"""
from __future__ import annotations

import json
from typing import Any

from .extraction import Extraction
from .formats import OUTPUT_FORMATS

# (YAML key, Metadata attribute), in the order they are written.
FIELDS = (("title", "title"), ("author", "author"), ("date", "date"), ("url", "url"),
          ("hostname", "hostname"), ("description", "description"), ("sitename", "site_name"),
          ("image", "image"), ("language", "language"), ("pagetype", "page_type"))


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def front_matter(metadata: Any, url: str | None = None) -> str:
    """The ``---`` block of ``metadata``'s known fields."""
    lines = ["---"]
    for key, name in FIELDS:
        value = hostname(metadata, url) if name == "hostname" else str(getattr(metadata, name, "") or "")
        if name == "url" and not value:
            value = url or ""
        if value:
            lines.append(f"{key}: {_quoted(value)}")
    tags = tuple(getattr(metadata, "tags", ()) or ())
    if tags:
        lines.append(f"tags: [{', '.join(_quoted(str(tag)) for tag in tags)}]")
    lines.append("---")
    return "\n".join(lines)


def hostname(metadata: Any, url: str | None = None) -> str:
    """The host of the page's URL, without a leading "www."."""
    from urllib.parse import urlsplit

    address = str(getattr(metadata, "url", "") or url or "")
    try:
        host = urlsplit(address).hostname or ""
    except ValueError:
        return ""
    return host[4:] if host.startswith("www.") else host


def with_front_matter(result: Extraction, output: str, text: str) -> str:
    """``text`` behind the front matter when the result asks for it and ``output`` takes it."""
    fmt = OUTPUT_FORMATS.get(output)
    if fmt is None or not fmt.front_matter or not result.options.with_metadata:
        return text
    head = front_matter(result.metadata, result.document.url)
    return f"{head}\n{text}" if text else head
