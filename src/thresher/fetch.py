"""Fetching a page over HTTP(S) for the command line, with a time limit and a size cap.

Redirects are followed; the body is streamed and the transfer aborted as soon
as it passes ``max_bytes`` (after content decoding, so a compressed bomb is
caught too). ``timeout`` bounds connecting and each read, and the whole
transfer is abandoned once it has run that long. Every failure is a
:class:`FetchError` with a one-line message.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass

from . import __version__
from .errors import ThresherError

DEFAULT_TIMEOUT = 20.0
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
USER_AGENT = f"thresher/{__version__}"
_URL = re.compile(r"^https?://", re.IGNORECASE)


class FetchError(ThresherError):
    """A URL could not be fetched: bad URL, network failure, HTTP error, too slow or too large."""


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
            raise FetchError(f"{url}: timed out after {timeout:g} s")
        chunks.append(chunk)
    return b"".join(chunks)


def fetch(url: str, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
          user_agent: str = USER_AGENT) -> Fetched:
    """GET ``url``; raise :class:`FetchError` on any failure or an HTTP status >= 400."""
    import httpx

    if not is_url(url):
        raise FetchError(f"{url}: not an http or https URL")
    deadline = time.monotonic() + timeout
    headers = {"User-Agent": user_agent, "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"}
    try:
        with httpx.Client(follow_redirects=True, timeout=timeout, headers=headers) as client:
            with client.stream("GET", url) as response:
                if response.status_code >= 400:
                    raise FetchError(f"{url}: HTTP {response.status_code} {response.reason_phrase}".rstrip())
                body = _read_body(response, url, max_bytes, deadline, timeout)
                return Fetched(str(response.url), response.status_code,
                               response.headers.get("content-type"), body)
    except httpx.TimeoutException:
        raise FetchError(f"{url}: timed out after {timeout:g} s") from None
    except httpx.TooManyRedirects:
        raise FetchError(f"{url}: too many redirects") from None
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        raise FetchError(f"{url}: invalid URL ({exc})") from None
    except httpx.HTTPError as exc:
        raise FetchError(f"{url}: {type(exc).__name__}: {exc or 'request failed'}") from None
