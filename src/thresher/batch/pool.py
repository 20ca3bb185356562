"""Extracting many pages, in order, optionally over a pool of processes.

:func:`extract_many` takes file paths or in-memory records and yields one
:class:`BatchRecord` per input, in input order. A failure on one input becomes
an error record and never stops the run.

The time limit. ``page_timeout`` (60 s by default) is each page's time
budget, which thresher's extraction enforces itself (``extract(timeout=)``: the
native core and the Python steps stop past it): such a page gets an
``ExtractionTimeout`` error record, and the process that ran it goes on.

Worker processes. With ``jobs > 1`` (or ``isolate=True``) pages run in worker
processes that the calling process supervises: each page is sent to a worker
on its own, so that

- a worker that stops answering, past its page's budget plus a grace
  (:func:`backstop`, counted from the moment the worker tells it started the
  page), is killed and replaced, and the page gets a ``PageTimeout`` error
  record: the backstop for code the budget cannot stop;
- a worker that dies (a crash in native code, ``os._exit``) is replaced, and
  the page it was working on gets a ``WorkerCrashed`` error record;
- a page sent to a worker that died between pages is sent again.

A worker loads the extraction code and its models before it says it is
ready, so its start-up never counts against a page.

With ``jobs=1`` (and ``isolate`` left to its default), thresher's own
extraction runs in the calling process: the budget needs no process to kill,
and there is no pickling and no process start, which also makes the batch
usable where children cannot be started (a Dask worker is a daemon process).
A custom ``extractor`` with a time limit still runs in a worker, since a budget
cannot stop code that does not check it; ``isolate=True`` asks for a worker for
thresher's own extraction too (a crash then costs one page, not the batch),
``isolate=False`` for none.

Workers are started with the ``spawn`` method, deliberately: a fresh
interpreter inherits no threads, locks or file descriptors from the caller
(forking a threaded parent can deadlock), there is no fork server process to
outlive the batch, and each worker is a direct child of the batch process, so
that it can ask to die with it. A worker exits when its parent dies: on Linux
the kernel kills it (``PR_SET_PDEATHSIG``; note that this follows the thread
that started the worker, so consume :func:`extract_many` from a thread that
outlives the batch), and everywhere a watchdog thread in the worker exits it
once its parent process is gone. With its workers gone, multiprocessing's
resource tracker (which ``spawn`` starts) sees end-of-file and exits too.

Inputs:

- a ``str`` or :class:`pathlib.Path`: a file to read (``.gz`` is gunzipped,
  in a stream, up to ``max_bytes``); its id is the path as given;
- a record with ``id`` and ``html`` attributes (and optionally ``url``), such
  as :class:`thresher.evaluation.Page`;
- a tuple ``(id, html)`` or ``(id, html, url)``.
"""
from __future__ import annotations

import contextlib
import gzip
import os
import pickle
import signal
import stat
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing import current_process, get_context
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnProcess
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from ..errors import InputError
from .fetch import DEFAULT_MAX_BYTES

DEFAULT_PAGE_TIMEOUT = 60.0
_GRACE = 2.0  # seconds, at least, that a worker may run past its page's budget before it is killed
_READ_CHUNK = 1 << 20
_AHEAD_PER_WORKER = 8  # pages taken from the input beyond the next record to yield, per worker
_BOOT_LIMIT = 120.0  # seconds a new worker may take to start before the batch gives up
_WATCH_INTERVAL = 0.5
_PR_SET_PDEATHSIG = 1
_READY = "ready"
_STARTED = "started"


class PageTooLarge(InputError):
    """A page file is (or gunzips to) more than the size cap."""


class BatchError(NamedTuple):
    type: str  # exception class name (ExtractionTimeout: past the budget), or PageTimeout / WorkerCrashed
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


# ----------------------------------------------------------------- reading

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


def _open_regular(path: str | Path) -> Any:
    """``path`` opened for reading when it is a regular file; :class:`NotAFile` otherwise.

    It is opened without blocking, so a FIFO with no writer cannot hang the batch, and its
    kind is read from the open file, so it cannot change between the check and the read."""
    from .directory import what_it_is

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


def _error(job_id: str, kind: str, message: str) -> BatchRecord:
    return BatchRecord(job_id, False, None, BatchError(kind, message))


def run_job(job: _Job, options: dict[str, Any], extractor: Callable[..., str] | None = None,
            max_bytes: int = DEFAULT_MAX_BYTES, timeout: float | None = None) -> BatchRecord:
    """Extract one input within ``timeout`` seconds (thresher's time budget: it stops
    thresher's own work, whichever extractor calls it); every exception becomes an error record."""
    from ..document.budget import time_budget

    try:
        html = read_page(job.path, max_bytes) if job.path is not None else job.html
        if html is None:
            raise InputError("empty input")
        if extractor is None:
            from ..api import extract

            extractor = extract
        with time_budget(timeout):
            output = extractor(html, job.url, **options)
        return BatchRecord(job.id, True, output, None)
    except Exception as exc:  # noqa: BLE001 - one bad input never stops a batch
        return _failure(job.id, exc)


@dataclass(frozen=True)
class _Task:
    """What every page of a batch gets done to (picklable: it is sent to each worker)."""

    options: dict[str, Any]
    extractor: Callable[..., str] | None
    max_bytes: int
    timeout: float | None = None

    def run(self, job: _Job) -> BatchRecord:
        return run_job(job, self.options, self.extractor, self.max_bytes, self.timeout)

    def is_thresher_s(self) -> bool:
        """Whether the extraction is thresher's own (``extract``, or an extractor of this package
        such as the WARC one), which the time budget stops."""
        return self.extractor is None or getattr(self.extractor, "__module__", "").startswith("thresher.")

    def warm_up(self) -> None:
        """Load the extraction code and the models it reads before the first page, so that a
        page's time is its own. A failure here is left for the pages to report."""
        if not self.is_thresher_s():
            return
        from .. import algorithms
        from ..api import preload

        with contextlib.suppress(Exception):
            preload(self.options.get("algorithm") or algorithms.DEFAULT, self.options.get("model"),
                    self.options.get("language"))


# ------------------------------------------------------------- worker side

def one_blas_thread() -> None:
    """Numpy's BLAS runs one thread in each worker.

    The pool already runs a worker per core it is given, and BLAS threads on
    top of them oversubscribe the cores (see the README's batch notes).
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)


def _parent_is_gone(parent_pid: int) -> bool:
    return os.getppid() != parent_pid


def _ask_kernel_to_kill_us_with_parent() -> None:
    """Linux only: SIGKILL this process when the thread that started it dies."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # no prctl: the watchdog thread still ends the worker
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _watch_parent(parent_pid: int) -> None:
    while not _parent_is_gone(parent_pid):
        time.sleep(_WATCH_INTERVAL)
    os._exit(1)


def die_with_parent(parent_pid: int) -> None:
    """End this worker when ``parent_pid`` dies, even in the middle of a page."""
    _ask_kernel_to_kill_us_with_parent()
    if _parent_is_gone(parent_pid):  # it died before we asked
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="thresher-watch-parent",
                     daemon=True).start()


def _worker_main(conn: Connection, task: _Task, parent_pid: int) -> None:
    """A worker's life: pages in, records out, until the parent closes the pipe or dies."""
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    one_blas_thread()
    task.warm_up()
    try:
        conn.send_bytes(pickle.dumps(_READY))
        while True:
            job = pickle.loads(conn.recv_bytes())
            conn.send_bytes(pickle.dumps(_STARTED))  # the page's clock starts now
            conn.send_bytes(_pickled(task.run(job)))
    except (EOFError, OSError):  # the parent closed the pipe (done with us) or is gone
        return


def _pickled(record: BatchRecord) -> bytes:
    """The record to send back; an error record if the extractor's output cannot be pickled."""
    try:
        return pickle.dumps(record)
    except Exception as exc:  # noqa: BLE001 - a custom extractor may return anything
        return pickle.dumps(_failure(record.id, exc))


# ------------------------------------------------------------- parent side

class _Sent(NamedTuple):
    """A page and its place in the input."""

    position: int
    job: _Job


def _crashed(worker: _Worker) -> tuple[str, str]:
    """The error record's type and message for a worker that died (its pipe closed: it is exiting)."""
    worker.process.join(timeout=1)
    code = worker.process.exitcode
    return "WorkerCrashed", "the worker process died on this input" + (f" (exit code {code})" if code else "")


class _Worker:
    """A worker process, the parent's end of its pipe, and the page it is on.

    A worker is sent one page at a time: a page never waits behind another
    one's time limit, and the page a dead worker was on is always known.
    """

    def __init__(self, task: _Task):
        ctx = get_context("spawn")
        self.conn, child = ctx.Pipe(duplex=True)
        self.process: SpawnProcess = ctx.Process(target=_worker_main, args=(child, task, os.getpid()),
                                                 name="thresher-worker", daemon=not current_process().daemon)
        self.process.start()
        child.close()
        self.ready = False
        self.page: _Sent | None = None
        self.started = False  # it said it started its page
        self.since = time.monotonic()  # start of its boot, of the sending of its page, or of its page

    def is_idle(self) -> bool:
        return self.ready and self.page is None

    def is_watched(self) -> bool:
        """Starting up, or on a page: a message, a death or a deadline is due."""
        return not self.ready or self.page is not None

    def send(self, item: _Sent) -> None:
        self.page, self.started, self.since = item, False, time.monotonic()
        self.conn.send_bytes(pickle.dumps(item.job))

    def deadline(self, limit: float | None) -> float | None:
        """When the worker is killed unless it answers: a boot, and the wait for a page to
        start, are bounded generously; a started page by its budget's :func:`backstop`."""
        if not self.ready or (self.page is not None and not self.started):
            return self.since + _BOOT_LIMIT
        return self.since + backstop(limit) if self.page is not None and limit is not None else None

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


class WorkerStartError(RuntimeError):
    """A worker process did not start (it died or hung before taking any page)."""


class _Pool:
    """Workers, the pages waiting to be sent, and the records not yet yielded."""

    def __init__(self, jobs: Iterator[_Job], task: _Task, workers: int, limit: float | None):
        self.source, self.task, self.size, self.limit = jobs, task, workers, limit
        self.workers: list[_Worker] = []
        self.waiting: deque[_Sent] = deque()
        self.done: dict[int, BatchRecord] = {}
        self.taken = 0
        self.exhausted = False
        self.next_out = 0

    def is_finished(self) -> bool:
        return self.exhausted and not self.waiting and not self.done and \
            all(w.page is None for w in self.workers)

    def _take(self) -> None:
        """Take pages from the source, up to a bounded distance ahead of the next record to yield."""
        while not self.exhausted and self.taken < self.next_out + self.size * _AHEAD_PER_WORKER:
            job = next(self.source, None)
            if job is None:
                self.exhausted = True
                return
            self.waiting.append(_Sent(self.taken, job))
            self.taken += 1

    def _grow(self) -> None:
        """Start workers, up to the pool's size, while pages wait for more than those starting."""
        starting = sum(not w.ready for w in self.workers)
        while len(self.workers) < self.size and len(self.waiting) > starting:
            self.workers.append(_Worker(self.task))
            starting += 1

    def dispatch(self) -> None:
        self._take()
        for worker in [w for w in self.workers if w.is_idle()]:
            if not self.waiting:
                break
            try:
                worker.send(self.waiting.popleft())
            except OSError:  # it died between pages: nobody to blame, its page goes back
                self._replace(worker, *_crashed(worker), blame=False)
        self._grow()

    def _receive(self, worker: _Worker) -> None:
        try:
            while worker.conn.poll():
                message = pickle.loads(worker.conn.recv_bytes())
                if message == _READY:
                    worker.ready = True
                elif message == _STARTED:
                    worker.started, worker.since = True, time.monotonic()
                elif worker.page is not None:
                    self.done[worker.page.position] = message
                    worker.page = None
        except (EOFError, OSError):
            self._replace(worker, *_crashed(worker))
            return
        if not worker.process.is_alive():
            self._replace(worker, *_crashed(worker))

    def _replace(self, worker: _Worker, kind: str, message: str, blame: bool = True) -> None:
        """Kill ``worker`` and give its page an error record (or, unblamed, send it again)."""
        worker.kill()
        self.workers.remove(worker)  # dispatch() starts another while pages are waiting
        if not worker.ready:
            raise WorkerStartError("a worker process died while starting (its error, if any, is on stderr)")
        if worker.page is not None and blame:
            self.done[worker.page.position] = _error(worker.page.job.id, kind, message)
        elif worker.page is not None:
            self.waiting.appendleft(worker.page)

    def _timeout(self, watched: list[_Worker]) -> float | None:
        """Seconds until the nearest deadline among ``watched`` (``None``: none is set)."""
        deadlines = [d for d in (w.deadline(self.limit) for w in watched) if d is not None]
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    def wait(self, block: bool = True) -> None:
        """Wait (unless not ``block``) for a message, a death or a deadline; handle whatever happened."""
        watched = [w for w in self.workers if w.is_watched()]
        if not watched:
            return
        handles = [w.conn for w in watched] + [w.process.sentinel for w in watched]
        ready = set(wait(handles, self._timeout(watched) if block else 0))
        for worker in watched:
            if worker.conn in ready or worker.process.sentinel in ready:
                self._receive(worker)
        self._enforce_deadlines()

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for worker in list(self.workers):
            deadline = worker.deadline(self.limit)
            if deadline is None or deadline > now:
                continue
            if not worker.ready:
                worker.kill()
                raise WorkerStartError(f"a worker process did not start within {_BOOT_LIMIT:g} s")
            if not worker.started:
                self._replace(worker, "PageTimeout",
                              f"the worker did not start the page within {_BOOT_LIMIT:g} s; it was killed")
                continue
            assert self.limit is not None  # a started page has a deadline only under a limit
            self._replace(worker, "PageTimeout",
                          f"no answer within {backstop(self.limit):g} s of starting the page (its time "
                          f"budget is {self.limit:g} s); the worker was killed")

    def next_record(self) -> BatchRecord | None:
        """The next record in input order, if it is done."""
        record = self.done.pop(self.next_out, None)
        if record is not None:
            self.next_out += 1
        return record

    def close(self) -> None:
        """Close every pipe (idle workers then exit by themselves); kill what is still running."""
        for worker in self.workers:
            worker.conn.close()
        deadline = time.monotonic() + 1
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            worker.kill()


def _supervised(jobs: Iterator[_Job], task: _Task, workers: int, limit: float | None) -> Iterator[BatchRecord]:
    pool = _Pool(jobs, task, workers, limit)
    try:
        while True:
            pool.dispatch()
            record = pool.next_record()
            if record is not None:
                yield record
                pool.wait(block=False)  # results that came in while the caller used the record
            elif pool.is_finished():
                return
            else:
                pool.wait()
    finally:
        pool.close()


def backstop(limit: float) -> float:
    """Seconds after the start of a page of budget ``limit`` at which its worker is killed:
    the budget stops the page well before, unless the worker is stuck in code that does not
    check it (a custom extractor, a hang); the grace covers freeing a large page and sending
    its record."""
    return limit + max(_GRACE, limit)


def _in_process(jobs: int, isolate: bool | None, task: _Task) -> bool:
    """Whether the pages run in this process: see the module's notes."""
    if jobs > 1:
        return False
    if isolate is not None:
        return not isolate
    return task.timeout is None or task.is_thresher_s() or current_process().daemon


def _here(jobs: Iterator[_Job], task: _Task) -> Iterator[BatchRecord]:
    """Each page in this process, in order; under a budget, the models are loaded first."""
    if task.timeout is not None:
        task.warm_up()
    for job in jobs:
        yield task.run(job)


def _check(jobs: int, page_timeout: float | None, max_bytes: int) -> None:
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    if page_timeout is not None and not 0 < page_timeout < float("inf"):
        raise ValueError("page_timeout must be a positive number of seconds, or None")
    if max_bytes < 1:
        raise ValueError("max_bytes must be at least 1")


def extract_many(paths_or_records: Iterable[Any], *, jobs: int = 1, chunksize: int | None = None,
                 extractor: Callable[..., str] | None = None,
                 page_timeout: float | None = DEFAULT_PAGE_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
                 isolate: bool | None = None, **extract_kwargs: Any) -> Iterator[BatchRecord]:
    """Yield a :class:`BatchRecord` per input, in input order.

    ``extract_kwargs`` go to :func:`thresher.extract` (``algorithm``,
    ``output``, ``language``, ...). ``page_timeout`` is each page's time
    budget (``None``: none): past it the extraction stops and the page gets an
    ``ExtractionTimeout`` error record. ``jobs`` is the number of worker
    processes; with ``jobs=1`` thresher's extraction runs in this process
    unless ``isolate`` (a custom ``extractor`` under a time limit runs in a
    worker unless ``isolate=False``). A worker that stops answering past the
    budget's :func:`backstop` is killed and its page gets a ``PageTimeout``
    error record. A file input larger than ``max_bytes`` (after gunzipping)
    gets a ``PageTooLarge`` error record. ``extractor`` replaces
    :func:`thresher.extract` (it must be a picklable module-level callable
    taking ``(html, url, **kwargs)``). ``chunksize`` is accepted for
    compatibility and ignored: pages are sent to workers one at a time, so that
    each has its own time limit.
    """
    del chunksize
    _check(jobs, page_timeout, max_bytes)
    job_iter = (as_job(item) for item in paths_or_records)
    task = _Task(dict(extract_kwargs), extractor, max_bytes, page_timeout)
    if _in_process(jobs, isolate, task):
        return _here(job_iter, task)
    return _supervised(job_iter, task, jobs, page_timeout)
