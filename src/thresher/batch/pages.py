"""One page file, read under a size cap, and the per-page limits the batch modes and the command
line share. Kept apart from :mod:`.pool` so that reading one page loads no process pool."""
from __future__ import annotations

import gzip
from pathlib import Path
from typing import Protocol

from ..errors import InputError

DEFAULT_MAX_BYTES = 50 * 1024 * 1024  # a page file after gunzipping, or a fetched page
DEFAULT_PAGE_TIMEOUT = 60.0  # seconds per page of a batch before its worker is replaced
_READ_CHUNK = 1 << 20


class PageTooLarge(InputError):
    """A page file is (or gunzips to) more than the size cap."""


class _Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


def _read_capped(stream: _Readable, limit: int, name: str, what: str) -> bytes:
    """At most ``limit`` bytes of ``stream``, read in chunks; :class:`PageTooLarge` past that."""
    chunks, size = [], 0
    while chunk := stream.read(min(_READ_CHUNK, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise PageTooLarge(f"{name}: {what} more than {limit:,} bytes (the size cap)")
    return b"".join(chunks)


def is_gzip_name(path: str | Path) -> bool:
    return str(path).endswith(".gz")


def read_page(path: str | Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """Bytes of a page file, gunzipped when the name ends in ``.gz``; at most ``max_bytes`` of them.

    A gzipped file is decompressed as a stream and abandoned as soon as its
    output passes the cap, so a small file that expands enormously costs no
    more than the cap.
    """
    with open(path, "rb") as raw:
        if not is_gzip_name(path):
            return _read_capped(raw, max_bytes, str(path), "is")
        with gzip.GzipFile(fileobj=raw) as unzipped:
            return _read_capped(unzipped, max_bytes, str(path), "gunzips to")
