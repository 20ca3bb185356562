"""The settings of one ``thresher serve`` process: :class:`ServiceConfig`."""
from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

from ..batch.fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000
DEFAULT_BODY_BYTES = 50 * 1024 * 1024
DEFAULT_BUDGET = 30.0  # seconds of extraction per request
DEFAULT_FETCH_TIMEOUT, DEFAULT_FETCH_BYTES = DEFAULT_TIMEOUT, DEFAULT_MAX_BYTES  # the command line's fetch limits


def default_threads() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True)
class ServiceConfig:
    """What the server accepts and how much work it takes on at once.

    * ``max_body_bytes``: a request body past it gets 413, checked as the body streams in;
    * ``budget``: seconds one extraction may take before the request gets 504;
    * ``threads``: worker threads that extract (the core releases the GIL while it parses);
    * ``max_concurrency``: extractions admitted at once, running or waiting for a thread; one
      more gets 503. A request that ran out of budget holds its place until its thread is done;
    * ``allow_private``: let ``url`` reach private, loopback, link-local and other non-public
      addresses; ``allow_networks``: networks allowed although not public (CIDR strings);
    * ``fetch_timeout`` and ``fetch_max_bytes``: the limits of fetching a ``url``.
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    max_body_bytes: int = DEFAULT_BODY_BYTES
    budget: float = DEFAULT_BUDGET
    threads: int = 0  # 0: one per CPU
    max_concurrency: int = 0  # 0: four per thread
    allow_private: bool = False
    allow_networks: tuple[str, ...] = ()
    fetch_timeout: float = DEFAULT_FETCH_TIMEOUT
    fetch_max_bytes: int = DEFAULT_FETCH_BYTES

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1 or self.fetch_max_bytes < 1:
            raise ValueError("max_body_bytes and fetch_max_bytes must be 1 or more")
        if self.budget <= 0 or self.fetch_timeout <= 0:
            raise ValueError("budget and fetch_timeout must be positive")
        if self.threads < 0 or self.max_concurrency < 0:
            raise ValueError("threads and max_concurrency must be 0 (automatic) or more")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port {self.port} is not between 0 and 65535")
        object.__setattr__(self, "threads", self.threads or default_threads())
        object.__setattr__(self, "max_concurrency", self.max_concurrency or 4 * self.threads)
        for network in self.allow_networks:
            ipaddress.ip_network(network, strict=False)  # raises ValueError for a malformed one
