"""Extracting many pages, in order, optionally over a pool of processes.

:func:`extract_many` takes file paths or in-memory records and yields one
:class:`BatchRecord` per input, in input order. A failure on one input becomes
an error record and never stops the run; with ``jobs > 1`` a worker process
that dies is replaced, and the input that killed it gets an error record.

Inputs:

- a ``str`` or :class:`pathlib.Path`: a file to read (``.gz`` is gunzipped);
  its id is the path as given;
- a record with ``id`` and ``html`` attributes (and optionally ``url``), such
  as :class:`thresher.evaluation.Page`;
- a tuple ``(id, html)`` or ``(id, html, url)``.
"""
from __future__ import annotations

import gzip
import math
import multiprocessing
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence

DEFAULT_CHUNK = 8
_MAX_CHUNK = 32


class BatchError(NamedTuple):
    type: str  # exception class name
    message: str

    def __str__(self) -> str:
        return f"{self.type}: {self.message}" if self.message else self.type


class BatchRecord(NamedTuple):
    """Outcome for one input: ``output`` when ``ok``, ``error`` otherwise."""

    id: str
    ok: bool
    output: str | None
    error: BatchError | None


@dataclass(frozen=True)
class _Job:
    """Picklable unit of work: a file to read, or bytes already in memory."""

    id: str
    path: str | None = None
    html: bytes | str | None = field(default=None, repr=False)
    url: str | None = None


def read_page(path: str | Path) -> bytes:
    """Bytes of a page file, gunzipped when the name ends in ``.gz``."""
    data = Path(path).read_bytes()
    return gzip.decompress(data) if str(path).endswith(".gz") else data


def as_job(item: Any) -> _Job:
    if isinstance(item, (str, Path)):
        return _Job(str(item), path=str(item))
    if hasattr(item, "id") and hasattr(item, "html"):
        return _Job(str(item.id), html=item.html, url=getattr(item, "url", None))
    if isinstance(item, tuple) and len(item) in (2, 3):
        return _Job(str(item[0]), html=item[1], url=item[2] if len(item) == 3 else None)
    raise TypeError(f"cannot extract from {type(item).__name__}: give a path, a record with "
                    "id and html, or an (id, html[, url]) tuple")


def _failure(job_id: str, exc: BaseException) -> BatchRecord:
    return BatchRecord(job_id, False, None, BatchError(type(exc).__name__, str(exc)))


def run_job(job: _Job, options: dict[str, Any], extractor: Callable[..., str] | None = None) -> BatchRecord:
    """Extract one input; every exception becomes an error record."""
    try:
        html = read_page(job.path) if job.path is not None else job.html
        if extractor is None:
            from .api import extract as extractor
        return BatchRecord(job.id, True, extractor(html, job.url, **options), None)
    except Exception as exc:  # noqa: BLE001 - one bad input never stops a batch
        return _failure(job.id, exc)


def run_chunk(jobs: Sequence[_Job], options: dict[str, Any],
              extractor: Callable[..., str] | None = None) -> list[BatchRecord]:
    """Worker entry point (module level so that process pools can pickle it)."""
    return [run_job(job, options, extractor) for job in jobs]


def _chunks(jobs: Iterator[_Job], size: int) -> Iterator[list[_Job]]:
    while chunk := list(islice(jobs, size)):
        yield chunk


def chunk_size(count: int | None, jobs: int) -> int:
    """Inputs per task: about four tasks per worker, between 1 and 32."""
    if count is None:
        return DEFAULT_CHUNK
    return max(1, min(_MAX_CHUNK, math.ceil(count / (jobs * 4))))


def _context():
    """Start workers from a clean process: forking a threaded parent (progress bars) can deadlock."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def one_blas_thread() -> None:
    """Each worker's initializer: numpy's BLAS runs one thread. The pool already runs a worker per
    core it is given, and BLAS threads on top of them oversubscribe the cores: with 2 workers on 2
    cores, 300 wcxb-dev pages took thresher-accurate (whose network multiplies matrices) 12 to 30 s
    unlimited against 3.4 s limited; the default's time did not change."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)


class _Pool:
    """A process pool that can be replaced after a worker died."""

    def __init__(self, workers: int, work: Callable[[list[_Job]], list[BatchRecord]]):
        self._workers, self._work = workers, work
        self._executor = self._new()

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self._workers, mp_context=_context(), initializer=one_blas_thread)

    def submit(self, chunk: list[_Job]) -> Future:
        return self._executor.submit(self._work, chunk)

    def restart(self) -> None:
        """Replace a broken pool (a worker died)."""
        _stop(self._executor, broken=True)
        self._executor = self._new()

    def close(self) -> None:
        _stop(self._executor, broken=bool(getattr(self._executor, "_broken", False)))


def _stop(executor: ProcessPoolExecutor, broken: bool) -> None:
    """Shut ``executor`` down and wait for it; a broken one has its live workers killed first.

    When a worker dies while another task is being submitted, CPython (3.11) can start a
    new worker after the broken pool has terminated the workers it knew of, and then wait
    for that one forever: ``shutdown(wait=True)`` would never return. ``_processes`` is the
    executor's own table of workers (private, hence read with a default).
    """
    if broken:
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            if process.is_alive():
                process.kill()
    executor.shutdown(wait=True, cancel_futures=True)


def _isolate(pool: _Pool, chunk: list[_Job]) -> list[BatchRecord]:
    """Run a chunk whose worker died one input at a time, each in a fresh task."""
    records = []
    for job in chunk:
        try:
            records.extend(pool.submit([job]).result())
        except BrokenProcessPool:
            pool.restart()
            records.append(BatchRecord(job.id, False, None,
                                       BatchError("WorkerCrashed", "the worker process died on this input")))
    return records


def _parallel(jobs: Iterator[_Job], work: Callable, workers: int, size: int) -> Iterator[BatchRecord]:
    pool = _Pool(workers, work)
    window: deque[tuple[list[_Job], Future]] = deque()
    try:
        for chunk in _chunks(jobs, size):
            window.append((chunk, pool.submit(chunk)))
            if len(window) >= workers * 2:
                yield from _drain(pool, window)
        while window:
            yield from _drain(pool, window)
    finally:
        pool.close()


def _drain(pool: _Pool, window: deque) -> list[BatchRecord]:
    chunk, future = window.popleft()
    try:
        return future.result()
    except BrokenProcessPool:
        pool.restart()
        pending = [c for c, _ in window]
        window.clear()
        records = _isolate(pool, chunk)
        window.extend((c, pool.submit(c)) for c in pending)
        return records


def extract_many(paths_or_records: Iterable[Any], *, jobs: int = 1, chunksize: int | None = None,
                 extractor: Callable[..., str] | None = None, **extract_kwargs: Any) -> Iterator[BatchRecord]:
    """Yield a :class:`BatchRecord` per input, in input order.

    ``extract_kwargs`` go to :func:`thresher.extract` (``algorithm``,
    ``output``, ``language``, ...). ``jobs > 1`` runs inputs in chunks of
    ``chunksize`` over that many processes, with a bounded number of chunks in
    flight. ``extractor`` replaces :func:`thresher.extract` (it must be a
    picklable module-level callable taking ``(html, url, **kwargs)``).
    """
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    items = paths_or_records
    count = len(items) if hasattr(items, "__len__") else None
    job_iter = (as_job(item) for item in items)
    if jobs == 1:
        return (run_job(job, extract_kwargs, extractor) for job in job_iter)
    work = partial(run_chunk, options=extract_kwargs, extractor=extractor)
    return _parallel(job_iter, work, jobs, chunksize or chunk_size(count, jobs))
