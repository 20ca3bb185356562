"""Extraction at scale: pages read from WARC archives, and Dask bags.

Needs the ``scale`` extra (``pip install 'thresher[scale]'``: warcio, dask);
both are imported only when used, so this module imports without them.

- :func:`iter_warc` yields a :class:`WarcPage` per HTML ``response`` record
  of a WARC (or ARC) file, gzipped or not;
- :func:`extract_warc` yields a :class:`WarcResult` per HTML response, in
  archive order, an output or an error, over :func:`thresher.batch.pool.extract_many`
  (``jobs > 1`` uses its process pool);
- :func:`to_dask_bag` builds a :class:`dask.bag.Bag` of result dicts from
  pages, records or WARC paths.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import IO, Any, BinaryIO, NamedTuple

from ..algorithms import DEFAULT
from ..errors import ThresherError
from .pages import DEFAULT_PAGE_TIMEOUT
from .pool import BatchError, BatchRecord, as_job, extract_many, run_job

DEFAULT_MAX_RECORD_BYTES = 50 * 1024 * 1024
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
INSTALL_HINT = "pip install 'thresher[scale]'"
_TAIL_SLACK = 4096  # blank lines tolerated after the last record of an uncompressed archive


class MissingDependencyError(ThresherError):
    """An optional package of the ``scale`` extra is not installed."""


class WarcError(ThresherError):
    """The archive itself cannot be read any further (truncated, corrupt, not a WARC)."""


@dataclass(frozen=True)
class WarcPage:
    """One HTML response of an archive: its HTTP payload and declared type.

    ``error`` is set (and ``html`` empty) when the record was not loaded:
    larger than the size cap, or its payload could not be decoded.
    """

    record_id: str
    url: str | None
    content_type: str | None
    html: bytes = field(repr=False)
    error: BatchError | None = None


class WarcResult(NamedTuple):
    """Outcome for one HTML response: ``output`` when ``ok``, ``error`` otherwise."""

    record_id: str
    url: str | None
    ok: bool
    output: str | None
    error: BatchError | None

    def as_dict(self) -> dict[str, Any]:
        """``{record_id, url, ok, output}`` or ``{record_id, url, ok, error: {type, message}}``."""
        head = {"record_id": self.record_id, "url": self.url, "ok": self.ok}
        if self.error is None:
            return {**head, "output": self.output}
        return {**head, "error": {"type": self.error.type, "message": self.error.message}}


# -------------------------------------------------------- optional packages

def _import_optional(module: str, purpose: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(f"{purpose} needs the {module.partition('.')[0]!r} package: "
                                     f"{INSTALL_HINT}") from None


def _archive_iterator() -> Any:
    return _import_optional("warcio.archiveiterator", "reading WARC files").ArchiveIterator


# ------------------------------------------------------------ reading WARCs

def media_type(content_type: str | None) -> str:
    """``"Text/HTML; charset=x"`` -> ``"text/html"``; "" when absent."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_html_type(content_type: str | None) -> bool:
    return media_type(content_type) in HTML_TYPES


def _is_html_response(record: Any) -> bool:
    return record.rec_type == "response" and record.http_headers is not None and \
        is_html_type(_content_type(record))


def _content_type(record: Any) -> str | None:
    """The HTTP Content-Type, else the archiver's identified payload type."""
    found: str | None = record.http_headers.get_header("Content-Type") or \
        record.rec_headers.get_header("WARC-Identified-Payload-Type")
    return found


def _declared_length(record: Any) -> int | None:
    try:
        return int(record.rec_headers.get_header("Content-Length") or "")
    except ValueError:
        return None


def _too_large(size: int, cap: int) -> BatchError:
    return BatchError("RecordTooLarge", f"record of {size} bytes or more is over the {cap}-byte cap; skipped")


def _read_payload(record: Any, cap: int) -> tuple[bytes, BatchError | None]:
    """The HTTP payload (transfer and content encodings undone), at most ``cap`` bytes."""
    declared = _declared_length(record)
    if declared is not None and declared > cap:
        return b"", _too_large(declared, cap)
    try:
        payload = record.content_stream().read(cap + 1)
    except Exception as exc:  # noqa: BLE001 - bad chunking or compression: this record only
        return b"", BatchError("RecordUnreadable", f"cannot decode the HTTP payload: {type(exc).__name__}: {exc}")
    if len(payload) > cap:
        return b"", _too_large(len(payload), cap)
    return payload, None


def _page(record: Any, records: Any, cap: int) -> WarcPage:
    html, error = _read_payload(record, cap)
    records.read_to_end()  # the rest of the record, in bounded reads; fixes its offset
    if _truncated(record):
        html, error = b"", BatchError("RecordTruncated", "the archive ends inside this record, or it has no "
                                                         "valid Content-Length")
    record_id = record.rec_headers.get_header("WARC-Record-ID") or f"@{records.get_record_offset()}"
    url = record.rec_headers.get_header("WARC-Target-URI")
    return WarcPage(record_id, url, _content_type(record), html, error)


def _truncated(record: Any) -> bool:
    """Whether the data ran out before the record's declared length, or it declares none.

    warcio ends quietly in both cases; without a length (headers cut short or
    malformed) the record runs to the end of the archive.
    """
    remaining = getattr(record.raw_stream, "limit", None)
    return remaining is None or remaining > 0


def _pages(stream: BinaryIO, label: str, cap: int) -> Iterator[WarcPage]:
    offset = 0
    try:
        records = _archive_iterator()(stream)
        for record in records:
            if _is_html_response(record):
                yield _page(record, records, cap)
            records.read_to_end()
            if _truncated(record):
                raise WarcError(f"{label}: the archive ends inside the record at offset {offset}, or that "
                                "record has no valid Content-Length")
            offset = records.get_record_offset() + records.get_record_length()
        _check_tail(stream, offset, label)
    except ThresherError:
        raise
    except Exception as exc:  # warcio raises many kinds on a corrupt archive
        raise WarcError(f"{label}: archive unreadable at offset {offset}: {type(exc).__name__}: {exc}") from exc


def _check_tail(stream: BinaryIO, end: int, label: str) -> None:
    """Raise :class:`WarcError` when a seekable archive has data after its last readable record.

    warcio ends quietly where a gzipped archive is cut inside a record's
    headers; only blank lines may follow the last record.
    """
    if not _seekable(stream):
        return
    size = stream.seek(0, os.SEEK_END)
    if size <= end:
        return
    stream.seek(end)
    tail = stream.read(_TAIL_SLACK + 1)
    if len(tail) > _TAIL_SLACK or tail.strip():
        raise WarcError(f"{label}: {size - end} bytes after offset {end} are not a readable record "
                        "(truncated or corrupt archive)")


def _seekable(stream: Any) -> bool:
    try:
        return bool(stream.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def iter_warc(path_or_stream: str | os.PathLike[str] | BinaryIO, *,
              max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[WarcPage]:
    """Yield a :class:`WarcPage` per HTML ``response`` record, in archive order.

    Other record types (request, metadata, revisit, ...) and responses of any
    other content type are skipped silently. A record over
    ``max_record_bytes`` is not loaded: it gives a page with ``error`` set. A
    corrupt or truncated archive raises :class:`WarcError` where it breaks.
    """
    _archive_iterator()
    if isinstance(path_or_stream, (str, os.PathLike)):
        os.stat(path_or_stream)  # a missing file fails here, not at the first next()
        return _pages_of_file(Path(path_or_stream), max_record_bytes)
    return _pages(path_or_stream, "<stream>", max_record_bytes)


def _pages_of_file(path: Path, cap: int) -> Iterator[WarcPage]:
    with path.open("rb") as stream:
        yield from _pages(stream, str(path), cap)


# ------------------------------------------------------------- extraction

def extract_page(page: WarcPage, url: str | None = None, **options: Any) -> str:
    """:func:`thresher.extract` on a page's payload with its HTTP Content-Type.

    Module level and picklable: it is the ``extractor`` given to
    :func:`thresher.batch.pool.extract_many`, which passes the page as ``html``.
    """
    from ..api import extract

    return extract(page.html, url if url is not None else page.url, content_type=page.content_type, **options)


def page_result(page: WarcPage, options: dict[str, Any]) -> WarcResult:
    """Extract one page; its own error, or any exception, becomes an error result."""
    if page.error is not None:
        return WarcResult(page.record_id, page.url, False, None, page.error)
    record = run_job(as_job((page.record_id, page, page.url)), options, extract_page)
    return _result(record, page.url)


def _result(record: BatchRecord, url: str | None) -> WarcResult:
    return WarcResult(record.id, url, record.ok, record.output, record.error)


class _Pending(NamedTuple):
    """A page waiting for its result; ``error`` when it was never sent to extraction."""

    record_id: str
    url: str | None
    error: BatchError | None


def _archive_failure(exc: BaseException, label: str) -> _Pending:
    return _Pending(label, None, BatchError(type(exc).__name__, str(exc)))


def _jobs(pages: Iterator[WarcPage], pending: deque[_Pending],
          label: str) -> Iterator[tuple[str, WarcPage, str | None]]:
    """Batch inputs for the loadable pages; every page (and an archive failure) is queued in order."""
    try:
        for page in pages:
            pending.append(_Pending(page.record_id, page.url, page.error))
            if page.error is None:
                yield page.record_id, page, page.url
    except WarcError as exc:
        pending.append(_archive_failure(exc, label))


def _unsent(pending: deque[_Pending]) -> Iterator[WarcResult]:
    while pending and pending[0].error is not None:
        item = pending.popleft()
        yield WarcResult(item.record_id, item.url, False, None, item.error)


def extract_warc(path: str | os.PathLike[str] | BinaryIO, *, algorithm: str = DEFAULT, output: str = "text",
                 jobs: int = 1, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
                 page_timeout: float | None = DEFAULT_PAGE_TIMEOUT, isolate: bool | None = None,
                 **extract_kwargs: Any) -> Iterator[WarcResult]:
    """Yield a :class:`WarcResult` per HTML response of the archive, in archive order.

    Every HTML response gives exactly one result: the extraction's output, or
    an error (over the size cap, undecodable payload, input that is not a
    page, ...). If the archive breaks part-way, one last error result (type
    ``WarcError``, ``record_id`` ``"<path>@end"``) says where. ``jobs > 1``
    extracts over :func:`thresher.batch.pool.extract_many`'s process pool,
    ``jobs=1`` in this process (unless ``isolate``: one worker process);
    ``page_timeout`` is each page's time budget (an ``ExtractionTimeout``
    error result past it; ``None``: no limit).
    ``extract_kwargs`` go to :func:`thresher.extract`.
    """
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    pages = iter_warc(path, max_record_bytes=max_record_bytes)
    label = f"{path if isinstance(path, (str, os.PathLike)) else '<stream>'}@end"
    return _extract_pages(pages, label, dict(algorithm=algorithm, output=output, **extract_kwargs), jobs,
                          page_timeout, isolate)


def _extract_pages(pages: Iterator[WarcPage], label: str, options: dict[str, Any],
                   jobs: int, page_timeout: float | None, isolate: bool | None) -> Iterator[WarcResult]:
    pending: deque[_Pending] = deque()
    for record in extract_many(_jobs(pages, pending, label), jobs=jobs, extractor=extract_page,
                               page_timeout=page_timeout, isolate=isolate, **options):
        yield from _unsent(pending)
        yield _result(record, pending.popleft().url)
    yield from _unsent(pending)


# -------------------------------------------------------------- JSON lines

class Counts(NamedTuple):
    ok: int
    failed: int


def write_jsonl(results: Iterable[WarcResult], out: IO[str]) -> Counts:
    """Write one JSON line per result (see :meth:`WarcResult.as_dict`); count successes and failures."""
    ok = failed = 0
    for result in results:
        out.write(json.dumps(result.as_dict(), ensure_ascii=False) + "\n")
        ok, failed = (ok + 1, failed) if result.ok else (ok, failed + 1)
    return Counts(ok, failed)


def write_warc_jsonl(path: str | os.PathLike[str], out_path: str | None, *, jobs: int = 1,
                     progress: bool | None = None, **options: Any) -> Counts:
    """:func:`extract_warc` into a JSON-lines file (stdout for ``None`` or ``"-"``)."""
    from tqdm import tqdm

    results = tqdm(extract_warc(path, jobs=jobs, **options), file=sys.stderr, unit="record",
                   disable=None if progress is None else not progress, dynamic_ncols=True)
    try:
        if out_path is None or out_path == "-":
            counts = write_jsonl(results, sys.stdout)
            sys.stdout.flush()
            return counts
        with open(out_path, "w", encoding="utf-8") as out:
            return write_jsonl(results, out)
    finally:
        results.close()


# -------------------------------------------------------------------- Dask

def is_warc_path(item: Any) -> bool:
    return isinstance(item, (str, os.PathLike)) and str(item).lower().endswith(WARC_SUFFIXES)


def _item_label(item: Any) -> str:
    if isinstance(item, WarcPage):
        return item.record_id
    if isinstance(item, (str, os.PathLike)):
        return str(item)
    return str(getattr(item, "id", item[0] if isinstance(item, tuple) and item else "?"))


def _results_of(item: Any, options: dict[str, Any]) -> list[WarcResult]:
    """Extract in this process: a bag runs inside other people's workers (a Dask worker is a
    daemonic process, which may not start children), so a page's limit is its time budget
    (``timeout`` in ``options``, which :func:`thresher.extract` keeps), never a worker to kill."""
    if isinstance(item, WarcPage):
        return [page_result(item, options)]
    if is_warc_path(item):
        return list(extract_warc(item, jobs=1, page_timeout=None, isolate=False, **options))
    job = as_job(item)
    return [_result(run_job(job, options), job.url)]


def extract_item(item: Any, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Result dicts for one bag element (pure, module level: picklable for any scheduler).

    A :class:`WarcPage` or a page input of :func:`thresher.batch.pool.extract_many`
    gives one dict, a WARC path one per HTML response. Never raises: a failure
    gives an error dict.
    """
    try:
        return [result.as_dict() for result in _results_of(item, options)]
    except Exception as exc:  # noqa: BLE001 - a bag element never fails the computation
        return [WarcResult(_item_label(item), getattr(item, "url", None), False, None,
                           BatchError(type(exc).__name__, str(exc))).as_dict()]


def to_dask_bag(records_or_paths: Iterable[Any], *, algorithm: str = DEFAULT, output: str = "text",
                npartitions: int | None = None, timeout: float | None = DEFAULT_PAGE_TIMEOUT,
                **extract_kwargs: Any) -> Any:
    """A :class:`dask.bag.Bag` of result dicts (see :meth:`WarcResult.as_dict`), one per page.

    Elements: :class:`WarcPage` records, WARC paths (``.warc``, ``.warc.gz``,
    ``.arc``, ``.arc.gz``: one dict per HTML response, read in the worker), or
    anything :func:`thresher.batch.pool.extract_many` accepts (HTML file paths,
    ``(id, html[, url])`` tuples, records with ``id`` and ``html``). For big
    crawls give WARC paths: pages are then read where they are extracted.
    Failures are error dicts, never exceptions.

    Pages are extracted in the Dask worker's own process, with no child
    process, so any scheduler works (threads, processes, a distributed
    cluster). ``timeout`` is each page's time budget in seconds (60 by
    default, as the batch's ``page_timeout``; ``None``: none), which
    :func:`thresher.extract` keeps: past it the page is an error dict of type
    ``ExtractionTimeout``.
    """
    bag = _import_optional("dask.bag", "Dask bags")
    options = dict(algorithm=algorithm, output=output, **extract_kwargs)
    if timeout is not None:
        options["timeout"] = timeout
    items = list(records_or_paths)
    return bag.from_sequence(items, npartitions=npartitions).map(partial(extract_item, options=options)).flatten()
