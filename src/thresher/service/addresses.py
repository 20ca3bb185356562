"""Which addresses a ``url`` given to the service may be fetched from, and the fetch itself.

By default only public (globally routable) addresses: a service that fetches what its clients
name must not become their way into the private network it runs in. The rule is checked twice
for every hop of the request, redirects included: every address the host name resolves to must
be allowed before a connection is tried, and the address actually connected to must be allowed
before a byte is sent (so a name that resolves differently the second time gains nothing).
Proxies from the environment are not used: the address connected to must be the server's.
"""
from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..batch.fetch import USER_AGENT, Fetched, FetchError, fetch

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_REDIRECTS = 10


class AddressNotAllowed(FetchError):
    """The URL's host is, or resolves to, an address the service does not fetch from."""


def is_public(address: Address) -> bool:
    """A globally routable unicast address (not private, loopback, link-local, shared,
    reserved, unspecified or multicast); an IPv4-mapped IPv6 address is judged as IPv4."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


@dataclass(frozen=True)
class AddressPolicy:
    """Public addresses, plus ``networks``, plus everything under ``allow_private``."""

    allow_private: bool = False
    networks: tuple[Network, ...] = ()

    @classmethod
    def of(cls, allow_private: bool, networks: Iterable[str] = ()) -> AddressPolicy:
        return cls(allow_private, tuple(ipaddress.ip_network(n, strict=False) for n in networks))

    def allows(self, address: Address) -> bool:
        return self.allow_private or is_public(address) or any(address in n for n in self.networks)

    def check_host(self, host: str, port: int) -> None:
        """Raise :class:`AddressNotAllowed` unless every address ``host`` resolves to is allowed."""
        if self.allow_private:
            return
        try:  # an address literal is judged as it is, with no look-up
            literal = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
        except ValueError:
            pass
        else:
            if not self.allows(literal):
                raise AddressNotAllowed(f"{host} is not a public address")
            return
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise FetchError(f"{host}: cannot resolve ({exc})", transient=True) from None
        for *_, sockaddr in infos:
            address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
            if not self.allows(address):
                raise AddressNotAllowed(f"{host} resolves to {address}, which is not a public address")

    def check_peer(self, sock: socket.socket) -> None:
        """Raise :class:`AddressNotAllowed` when ``sock`` is connected to an address not allowed."""
        if self.allow_private:
            return
        address = ipaddress.ip_address(str(sock.getpeername()[0]).split("%", 1)[0])
        if not self.allows(address):
            raise AddressNotAllowed(f"connected to {address}, which is not a public address")


def _guarded_trace(policy: AddressPolicy, outer: Callable[[str, dict[str, Any]], Any] | None
                   ) -> Callable[[str, dict[str, Any]], None]:
    """httpcore's ``trace`` extension: checks each new TCP connection's peer, then calls ``outer``."""
    def trace(event: str, info: dict[str, Any]) -> None:
        if outer is not None:
            outer(event, info)
        if event == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            get_extra_info = getattr(stream, "get_extra_info", None)
            sock = get_extra_info("socket") if get_extra_info is not None else None
            if isinstance(sock, socket.socket):
                try:
                    policy.check_peer(sock)
                except AddressNotAllowed:
                    with contextlib.suppress(Exception):
                        stream.close()  # type: ignore[union-attr]
                    raise
    return trace


def make_client(policy: AddressPolicy, timeout: float) -> Any:
    """An ``httpx.Client`` for :func:`thresher.batch.fetch.fetch` that checks every hop against ``policy``."""
    import httpx

    class GuardedTransport(httpx.HTTPTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            port = request.url.port or (443 if request.url.scheme == "https" else 80)
            policy.check_host(request.url.host, port)
            request.extensions = {**request.extensions,
                                  "trace": _guarded_trace(policy, request.extensions.get("trace"))}
            return super().handle_request(request)

    headers = {"User-Agent": USER_AGENT, "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"}
    return httpx.Client(transport=GuardedTransport(trust_env=False), follow_redirects=True,
                        max_redirects=MAX_REDIRECTS, timeout=timeout, headers=headers, trust_env=False)


def fetch_allowed(url: str, policy: AddressPolicy, *, timeout: float, max_bytes: int) -> Fetched:
    """:func:`thresher.batch.fetch.fetch` of ``url`` (time and size capped) within ``policy``."""
    with make_client(policy, timeout) as client:
        return fetch(url, timeout=timeout, max_bytes=max_bytes, client=client)
