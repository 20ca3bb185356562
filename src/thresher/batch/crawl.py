"""Fetching many URLs politely: one HTTP client, a few threads, a delay per host.

:class:`Crawler` sends every request through one ``httpx.Client`` (connections are
reused) and :func:`thresher.batch.fetch.fetch` (its ``timeout`` bounds each whole request),
waits ``delay`` seconds between two requests to the same host, tries again after a
transient failure (network error, timeout, HTTP 429 or 5xx) up to ``retries`` times
with a growing pause, and stops fetching once ``max_total_bytes`` have been read.
:meth:`Crawler.fetch_all` yields the outcomes in input order while ``workers`` threads
fetch ahead.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, Fetched, FetchError, fetch, make_client

DEFAULT_DELAY = 1.0
DEFAULT_RETRIES = 2
DEFAULT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024
RETRY_PAUSE = 0.5  # seconds before the first retry; doubled for each next one


@dataclass(frozen=True)
class CrawlSettings:
    timeout: float = DEFAULT_TIMEOUT
    max_bytes: int = DEFAULT_MAX_BYTES
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES
    delay: float = DEFAULT_DELAY
    retries: int = DEFAULT_RETRIES
    workers: int = 4

    def __post_init__(self) -> None:
        if self.timeout <= 0 or self.max_bytes < 1 or self.max_total_bytes < 1:
            raise ValueError("timeout, max_bytes and max_total_bytes must be positive")
        if self.delay < 0 or self.retries < 0 or self.workers < 1:
            raise ValueError("delay and retries must be 0 or more, workers 1 or more")


@dataclass(frozen=True)
class Outcome:
    """One URL's fetch: ``fetched`` or the ``error`` message."""

    url: str
    fetched: Fetched | None = None
    error: str = ""


class HostClock:
    """When each host may be asked next; :meth:`wait_turn` reserves a slot and sleeps until it."""

    def __init__(self, delay: float, sleep: Callable[[float], None] = time.sleep,
                 now: Callable[[], float] = time.monotonic) -> None:
        self._delay, self._sleep, self._now = delay, sleep, now
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def reserve(self, host: str) -> float:
        """Seconds to wait before asking ``host``; the next request to it comes ``delay`` later."""
        with self._lock:
            now = self._now()
            start = max(now, self._next.get(host, now))
            self._next[host] = start + self._delay
            return start - now

    def wait_turn(self, host: str) -> None:
        wait = self.reserve(host)
        if wait > 0:
            self._sleep(wait)


class ByteBudget:
    """A total of bytes shared by the worker threads."""

    def __init__(self, limit: int) -> None:
        self.limit, self.used = limit, 0
        self._lock = threading.Lock()

    def spent(self) -> bool:
        with self._lock:
            return self.used >= self.limit

    def add(self, size: int) -> None:
        with self._lock:
            self.used += size


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


class Crawler:
    """Fetches URLs with the settings; use as a context manager (it owns the HTTP client)."""

    def __init__(self, settings: CrawlSettings = CrawlSettings(), client: Any = None) -> None:
        self.settings = settings
        self._client = client if client is not None else make_client(settings.timeout)
        self._clock = HostClock(settings.delay)
        self._budget = ByteBudget(settings.max_total_bytes)

    def __enter__(self) -> Crawler:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._client.close()

    def get(self, url: str) -> Fetched:
        """One URL, politely, with retries; raises :class:`FetchError`."""
        pause = RETRY_PAUSE
        for attempt in range(self.settings.retries + 1):
            if self._budget.spent():
                raise FetchError(f"{url}: total size cap of {self.settings.max_total_bytes:,} bytes reached")
            self._clock.wait_turn(host_of(url))
            try:
                fetched = fetch(url, timeout=self.settings.timeout, max_bytes=self.settings.max_bytes,
                                client=self._client)
            except FetchError as exc:
                if not exc.transient or attempt == self.settings.retries:
                    raise
                time.sleep(pause)
                pause *= 2
                continue
            self._budget.add(len(fetched.content))
            return fetched
        raise AssertionError("unreachable")

    def outcome(self, url: str) -> Outcome:
        try:
            return Outcome(url, fetched=self.get(url))
        except FetchError as exc:
            return Outcome(url, error=str(exc))

    def fetch_all(self, urls: Iterable[str]) -> Iterator[Outcome]:
        """Every URL's outcome, in input order; at most ``2 * workers`` pages are fetched ahead
        of the reader (so memory stays bounded however long the list)."""
        window: deque[Future[Outcome]] = deque()
        with ThreadPoolExecutor(max_workers=self.settings.workers, thread_name_prefix="thresher-crawl") as pool:
            for url in urls:
                window.append(pool.submit(self.outcome, url))
                if len(window) >= 2 * self.settings.workers:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()


def read_url_list(text: str) -> list[str]:
    """The URLs of a list file: one per line; blank lines and ``#`` comments skipped."""
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def normalized(url: str) -> str:
    """A URL as compared against a blacklist: trimmed, without a trailing slash or fragment."""
    return url.strip().split("#", 1)[0].rstrip("/")


def without_blacklisted(urls: Iterable[str], blacklist: Iterable[str]) -> list[str]:
    """``urls`` in order, each once, minus those on ``blacklist``."""
    banned = {normalized(url) for url in blacklist}
    return [url for url in dict.fromkeys(urls) if normalized(url) not in banned]
