"""What the framework adapters share: reading a file or URL, and a page's text with its metadata.

No framework is imported here; :mod:`~thresher.integrations.langchain` and
:mod:`~thresher.integrations.llama_index` wrap these in their frameworks' document types.
"""
from __future__ import annotations

import gzip
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..api import extract_result
from ..batch.fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, fetch, is_url
from ..batch.pages import read_page
from ..errors import InputError, ThresherError
from ..options import Options, options_from

ON_ERROR = ("raise", "keep")


@dataclass(frozen=True)
class Page:
    """A page's bytes (or text), its URL when known and the content type it was served with."""

    html: bytes | str
    url: str | None = None
    content_type: str | None = None


@dataclass(frozen=True)
class Extracted:
    """A page's main content as text, and the facts to add to its document's metadata."""

    text: str
    metadata: Mapping[str, Any]


def make_options(output: str, on_error: str, keywords: Mapping[str, Any]) -> Options:
    """:func:`thresher.extract`'s switches, validated now (unknown names raise :class:`TypeError`)."""
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, not {on_error!r}")
    return options_from({"output": output, **keywords})


def read_source(source: str | Path, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES) -> Page:
    """The page at ``source``: an http(s) URL (fetched with a time limit and a size cap) or a file
    (gunzipped when its name ends in ``.gz``). Failures are :class:`~thresher.ThresherError`."""
    if isinstance(source, str) and is_url(source):
        fetched = fetch(source, timeout=timeout, max_bytes=max_bytes)
        return Page(fetched.content, fetched.url, fetched.content_type)
    try:
        return Page(read_page(source, max_bytes))
    except (EOFError, gzip.BadGzipFile) as exc:
        raise InputError(f"{source}: not valid gzip data ({exc})") from None
    except OSError as exc:
        raise InputError(f"cannot read {source}: {exc.strerror or exc}") from None


def extract_page(page: Page, options: Options) -> Extracted:
    """The page's content rendered as ``options.output``, with its title, language, URL and the
    other metadata found (only the fields that are known)."""
    if page.content_type and options.content_type is None:
        options = options_from({"content_type": page.content_type}, options)
    result = extract_result(page.html, page.url, options=options, explain=False,
                            attributes=options.output != "text")
    text = "" if result.rejected else result.render(options.output, **options.render_options())
    meta = result.metadata
    found = {"title": result.title, "language": result.language, "url": page.url or meta.url,
             "author": meta.author, "date": meta.date, "description": meta.description,
             "page_type": result.page_type}
    return Extracted(text, {key: value for key, value in found.items() if value})


def failed(exc: ThresherError) -> Extracted:
    """What ``on_error="keep"`` gives for a page that could not be read or extracted."""
    return Extracted("", {"thresher_error": str(exc) or type(exc).__name__})


def enriched(metadata: Mapping[str, Any], extracted: Extracted) -> dict[str, Any]:
    """``metadata`` with the extracted facts added; keys it already has keep their values."""
    return {**extracted.metadata, **metadata}


def url_of(metadata: Mapping[str, Any]) -> str | None:
    """A document's page URL from its metadata: ``url``, else ``source`` when it is an http(s) URL."""
    for key in ("url", "source"):
        value = metadata.get(key)
        if isinstance(value, str) and is_url(value):
            return value
    return None
