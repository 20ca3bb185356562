"""Fetching a page over HTTP(S) for the command line, with a time limit and a size cap.

Redirects are followed; the body is streamed and the transfer aborted as soon
as it passes ``max_bytes`` (after content decoding, so a compressed bomb is
caught too). Every failure is a :class:`FetchError` with a one-line message.

``timeout`` bounds the whole request: name resolution, connecting, the
headers and the body, redirects included. httpx's own timeouts bound each
phase and each read, not their sum, so a server that trickles its headers a
byte at a time would hold a plain request forever. The request therefore runs
in a worker thread while the caller waits at most ``timeout``; when the time is
up a watchdog shuts down every socket the request opened (which ends the
worker's blocked read at once) and the caller gets :class:`FetchError`.
"""
from __future__ import annotations

import contextlib
import queue
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._version import __version__
from ..errors import ThresherError
from .pages import DEFAULT_MAX_BYTES

DEFAULT_TIMEOUT = 20.0
USER_AGENT = f"thresher/{__version__}"
_URL = re.compile(r"^https?://", re.IGNORECASE)


class FetchError(ThresherError):
    """A URL could not be fetched: bad URL, network failure, HTTP error, too slow or too large.

    ``status``: the HTTP status of an error response (None otherwise); ``transient``: trying
    again may help (a network failure, a timeout, HTTP 429 or 5xx)."""

    def __init__(self, message: str, status: int | None = None, transient: bool = False) -> None:
        super().__init__(message)
        self.status, self.transient = status, transient


class FetchTimeout(FetchError):
    """The request took longer than its ``timeout`` (always ``transient``)."""


@dataclass(frozen=True)
class Fetched:
    url: str  # the final URL, after redirects
    status: int
    content_type: str | None
    content: bytes


def is_url(text: str) -> bool:
    """True for an ``http://`` or ``https://`` URL."""
    return bool(_URL.match(text))


def _too_large(url: str, max_bytes: int) -> FetchError:
    return FetchError(f"{url}: response larger than {max_bytes:,} bytes")


def _declared_length(headers) -> int | None:
    try:
        return int(headers.get("content-length", ""))
    except ValueError:
        return None


def _read_body(response, url: str, max_bytes: int, deadline: float, timeout: float) -> bytes:
    declared = _declared_length(response.headers)
    if declared is not None and declared > max_bytes and not response.headers.get("content-encoding"):
        raise _too_large(url, max_bytes)
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(url, max_bytes)
        if time.monotonic() > deadline:
            raise _timed_out(url, timeout)
        chunks.append(chunk)
    return b"".join(chunks)


class _SocketWatchdog:
    """Collects the sockets a request opens; :meth:`fire` shuts them all down, and any socket
    opened after that is shut down as soon as it is seen. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._fired = False

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` request extension: sees each new connection (TCP, then TLS)."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            sock = _stream_socket(info.get("return_value"))
            if sock is not None:
                self._watch(sock)

    def _watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            fired = self._fired
        if fired:
            _shut_down(sock)

    def fire(self) -> None:
        with self._lock:
            self._fired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut_down(sock)


def _stream_socket(stream: object) -> socket.socket | None:
    get_extra_info = getattr(stream, "get_extra_info", None)
    sock = get_extra_info("socket") if get_extra_info is not None else None
    return sock if isinstance(sock, socket.socket) else None


def _shut_down(sock: socket.socket) -> None:
    """Shut both directions: a read blocked on the socket in another thread returns at once."""
    with contextlib.suppress(OSError, ValueError):  # already closed, or detached when TLS took it over
        sock.shutdown(socket.SHUT_RDWR)


def _timed_out(url: str, timeout: float) -> FetchTimeout:
    return FetchTimeout(f"{url}: timed out after {timeout:g} s", transient=True)


def _within(timeout: float, job: Callable[[], Fetched], on_timeout: Callable[[], FetchError]) -> Fetched:
    """``job()`` run in a daemon thread; after ``timeout`` seconds, the error ``on_timeout()``
    returns is raised without waiting for the job any longer."""
    outcome: queue.Queue[tuple[Fetched | None, Exception | None]] = queue.Queue(maxsize=1)

    def work() -> None:
        try:
            outcome.put((job(), None))
        except Exception as exc:  # noqa: BLE001 - handed to the caller, who re-raises it
            outcome.put((None, exc))

    threading.Thread(target=work, name="thresher-fetch", daemon=True).start()
    try:
        fetched, error = outcome.get(timeout=timeout)
    except queue.Empty:
        raise on_timeout() from None
    if error is not None:
        raise error
    assert fetched is not None
    return fetched


def fetch(url: str, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
          user_agent: str = USER_AGENT, client: Any = None) -> Fetched:
    """GET ``url``; raise :class:`FetchError` on any failure or an HTTP status >= 400.

    ``timeout`` bounds the whole request, from name resolution to the last body byte.
    ``client``: an ``httpx.Client`` to send it with (its connections are reused; it must
    follow redirects); by default a client is made for this one request."""
    if not is_url(url):
        raise FetchError(f"{url}: not an http or https URL")
    watchdog = _SocketWatchdog()
    deadline = time.monotonic() + timeout

    def give_up() -> FetchError:
        watchdog.fire()
        return _timed_out(url, timeout)

    return _within(timeout, lambda: _request(url, timeout, max_bytes, user_agent, deadline, watchdog, client),
                   give_up)


def _http_error(url: str, status: int, reason: str) -> FetchError:
    return FetchError(f"{url}: HTTP {status} {reason}".rstrip(), status=status,
                      transient=status == 429 or status >= 500)


def _get(client: Any, url: str, timeout: float, max_bytes: int, deadline: float,
         watchdog: _SocketWatchdog) -> Fetched:
    with client.stream("GET", url, extensions={"trace": watchdog.trace}) as response:
        if response.status_code >= 400:
            raise _http_error(url, response.status_code, response.reason_phrase)
        body = _read_body(response, url, max_bytes, deadline, timeout)
        return Fetched(str(response.url), response.status_code, response.headers.get("content-type"), body)


def make_client(timeout: float = DEFAULT_TIMEOUT, user_agent: str = USER_AGENT) -> Any:
    """The ``httpx.Client`` :func:`fetch` uses: redirects followed, thresher's headers."""
    import httpx

    headers = {"User-Agent": user_agent, "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"}
    return httpx.Client(follow_redirects=True, timeout=timeout, headers=headers)


def _request(url: str, timeout: float, max_bytes: int, user_agent: str, deadline: float,
             watchdog: _SocketWatchdog, client: Any = None) -> Fetched:
    import httpx

    try:
        if client is not None:
            return _get(client, url, timeout, max_bytes, deadline, watchdog)
        with make_client(timeout, user_agent) as own:
            return _get(own, url, timeout, max_bytes, deadline, watchdog)
    except httpx.TimeoutException:
        raise _timed_out(url, timeout) from None
    except httpx.TooManyRedirects:
        raise FetchError(f"{url}: too many redirects") from None
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        raise FetchError(f"{url}: invalid URL ({exc})") from None
    except httpx.HTTPError as exc:
        raise FetchError(f"{url}: {type(exc).__name__}: {exc or 'request failed'}", transient=True) from None
