"""One page file, read under a size cap, and the per-page limits the batch modes and the command
line share. Kept apart from :mod:`.pool` so that reading one page loads no process pool."""
from __future__ import annotations

import gzip
import os
import stat
from pathlib import Path
from typing import Any, Protocol

from ..errors import InputError

DEFAULT_MAX_BYTES = 50 * 1024 * 1024  # a page file after gunzipping, or a fetched page
DEFAULT_PAGE_TIMEOUT = 60.0  # seconds: a page's time budget in a batch
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


class NotAFile(InputError):
    """An input path is no regular file (a FIFO, a socket, a device, a directory)."""


# What an input that is no regular file is, by its stat mode.
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISDIR, "a directory"))


def what_it_is(mode: int) -> str:
    """What a file of stat ``mode`` is, in words ("a regular file", "a FIFO (named pipe)" ...)."""
    return next((name for test, name in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode)
                else "not a regular file")


def _open_regular(path: str | Path) -> Any:
    """``path`` opened for reading when it is a regular file; :class:`NotAFile` otherwise.

    It is opened without blocking, so a FIFO with no writer cannot hang the batch, and its
    kind is read from the open file, so it cannot change between the check and the read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFile(f"{path}: {what_it_is(mode)}, not a page file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_page(path: str | Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """Bytes of a page file, gunzipped when the name ends in ``.gz``; at most ``max_bytes`` of them.

    A gzipped file is decompressed as a stream and abandoned as soon as its
    output passes the cap, so a small file that expands enormously costs no
    more than the cap.
    """
    with _open_regular(path) as raw:
        if not is_gzip_name(path):
            return _read_capped(raw, max_bytes, str(path), "is")
        with gzip.GzipFile(fileobj=raw) as unzipped:
            return _read_capped(unzipped, max_bytes, str(path), "gunzips to")
