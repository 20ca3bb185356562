"""Extraction off the event loop: a thread pool, an admission count and a time budget.

The event loop never runs an extraction: each one is a job for :class:`Workers`' thread pool
(the core releases the GIL while it parses, so threads run in parallel there). At most
``max_concurrency`` jobs are admitted at once, running or waiting for a thread; past that a
request is refused at once with 503. Each job runs under the core's time budget of ``budget``
seconds (:class:`thresher.ExtractionTimeout` stops its native and Python work), and the request
waits at most that long for it before a 504; a job keeps its place until its thread has let go
of it, so work can never pile up behind the count.
"""
from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from .. import errors
from ..api import Result, extract_result
from ..document.budget import time_budget
from ..options import Options
from .requests import Problem

T = TypeVar("T")


class Admission:
    """A thread-safe count of admitted jobs, refused past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._count = 0

    @property
    def count(self) -> int:
        with self._lock:
            return self._count

    def enter(self) -> bool:
        with self._lock:
            if self._count >= self.limit:
                return False
            self._count += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self._count -= 1


class Slot:
    """One admitted request's place: given back once, by :meth:`release` or when its job ends."""

    def __init__(self, admission: Admission) -> None:
        self._admission = admission
        self._lock = threading.Lock()
        self._held = True

    def release(self, _future: object = None) -> None:
        with self._lock:
            held, self._held = self._held, False
        if held:
            self._admission.leave()


class Workers:
    """The extraction thread pool with its admission count and per-request budget."""

    def __init__(self, threads: int, max_concurrency: int, budget: float) -> None:
        self.threads, self.budget = threads, budget
        self.admission = Admission(max_concurrency)
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="thresher-serve")

    def admit(self) -> Slot:
        """A place for one request, or 503 when every place is taken."""
        if not self.admission.enter():
            raise Problem(503, "busy", f"the server is extracting {self.admission.limit} pages already; "
                          "try again shortly", max_concurrency=self.admission.limit)
        return Slot(self.admission)

    async def run(self, slot: Slot, job: Callable[[], T]) -> T:
        """``job()`` in the pool; 504 past the budget. ``slot`` is released when the job ends."""
        try:
            future: Future[T] = self._pool.submit(job)
        except RuntimeError:  # the pool is shutting down
            slot.release()
            raise Problem(503, "shutting_down", "the server is shutting down") from None
        future.add_done_callback(slot.release)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.budget)
        except asyncio.TimeoutError:
            raise over_budget(self.budget) from None
        except errors.ExtractionTimeout:
            raise over_budget(self.budget) from None

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def over_budget(budget: float) -> Problem:
    return Problem(504, "timeout", f"the extraction took longer than the budget of {budget:g} s", budget=budget)


def extract_page(html: bytes | str, url: str | None, options: Options, budget: float) -> dict[str, Any]:
    """Extract and render one page (in a worker thread): the JSON body of ``POST /extract``.
    ``budget``: the request's seconds, the core's time budget for the extraction and the
    rendering together (past it :class:`thresher.ExtractionTimeout` stops the thread's work)."""
    start = time.perf_counter()
    with time_budget(budget):
        result = extract_result(html, url, options=options, metadata=True, explain=False,
                                attributes=options.output != "text")
        rendered = time.perf_counter()
        content = "" if result.rejected else result.render(options.output, **options.render_options())
    end = time.perf_counter()
    return {**describe(result, url), "output": options.output, "content": content,
            "timings": {**result.timings, "render": end - rendered, "total": end - start}}


def describe(result: Result, url: str | None) -> dict[str, Any]:
    """The facts about the page beside its content: title, language, page type, metadata."""
    meta = dataclasses.asdict(result.metadata)
    return {"url": url or result.metadata.url or None, "title": result.title, "language": result.language,
            "page_type": result.page_type,
            "algorithm": result.algorithm, "rejected": result.rejected or None,
            "metadata": {**meta, "tags": list(result.metadata.tags)}}
