"""thresher.batch.fetch against a local HTTP server on 127.0.0.1."""
from __future__ import annotations

import contextlib
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from thresher.batch.fetch import FetchError, FetchTimeout, fetch, is_url

PAGE = "<html><body><p>Caf\u00e9 society</p></body></html>".encode("cp1252")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=windows-1252",
              length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # http.server's name
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._route()

    def _route(self) -> None:
        if self.path == "/page":
            self._send(200, PAGE)
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/big":  # no Content-Length, body larger than the cap
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Connection", "close")
            self.end_headers()
            for _ in range(64):
                self.wfile.write(b"x" * 1024)
        elif self.path == "/big-declared":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(10 ** 9))
            self.end_headers()
        elif self.path == "/slow":
            time.sleep(1.5)
            self._send(200, PAGE)
        else:
            self._send(404, b"not here", "text/plain")


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_page_with_content_type(server):
    fetched = fetch(f"{server}/page")
    assert fetched.status == 200
    assert fetched.content == PAGE
    assert fetched.content_type == "text/html; charset=windows-1252"
    assert fetched.url == f"{server}/page"


def test_redirect_is_followed(server):
    fetched = fetch(f"{server}/redirect")
    assert fetched.url == f"{server}/page" and fetched.content == PAGE


def test_http_error(server):
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch(f"{server}/missing")


def test_size_cap_while_streaming(server):
    with pytest.raises(FetchError, match="larger than 10,000 bytes"):
        fetch(f"{server}/big", max_bytes=10_000)
    assert len(fetch(f"{server}/big", max_bytes=100_000).content) == 64 * 1024


def test_size_cap_from_declared_length(server):
    with pytest.raises(FetchError, match="larger than"):
        fetch(f"{server}/big-declared", max_bytes=10_000)


def test_timeout(server):
    with pytest.raises(FetchTimeout, match=r"timed out after 0\.2 s"):
        fetch(f"{server}/slow", timeout=0.2)


def test_connection_refused():
    with socket.socket() as sock:  # a port that was free a moment ago
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(FetchError, match=f"127.0.0.1:{port}"):
        fetch(f"http://127.0.0.1:{port}/", timeout=2)


@pytest.mark.parametrize("bad", ["ftp://example.invalid/x", "file:///etc/passwd", "not a url"])
def test_only_http_urls(bad):
    assert not is_url(bad)
    with pytest.raises(FetchError, match="not an http or https URL"):
        fetch(bad)


def test_malformed_http_url():
    with pytest.raises(FetchError):
        fetch("http://[::1/", timeout=1)


def test_is_url():
    assert is_url("http://a.example/") and is_url("HTTPS://a.example/")
    assert not is_url("page.html") and not is_url("-")


# ------------------------------------------------- the timeout bounds the whole request

TRICKLE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Slow: " + b"a" * 4000 + b"\r\n\r\n"
TRICKLE_BODY = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n"


class Trickler:
    """A raw TCP server on 127.0.0.1 that answers one request by sending ``head`` a byte every
    ``interval`` seconds (or ``head`` at once and then the body a byte at a time), each read well
    within any per-read timeout. ``hung_up`` is set when the client closes the connection."""

    def __init__(self, head: bytes, trickle_body: bool, interval: float = 0.1, limit: float = 30.0) -> None:
        self.head, self.trickle_body, self.interval, self.limit = head, trickle_body, interval, limit
        self.hung_up = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/"

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            conn.recv(65536)  # the request
            if self.trickle_body:
                conn.sendall(self.head)
            payload = b"x" * 100000 if self.trickle_body else self.head
            stop = time.monotonic() + self.limit
            for i in range(len(payload)):
                if time.monotonic() > stop or self._client_gone(conn):
                    break
                try:
                    conn.sendall(payload[i:i + 1])
                except OSError:
                    self.hung_up.set()
                    break

    def _client_gone(self, conn: socket.socket) -> bool:
        conn.settimeout(self.interval)
        try:
            gone = conn.recv(1) == b""
        except TimeoutError:
            gone = False
        except OSError:
            gone = True
        if gone:
            self.hung_up.set()
        return gone

    def close(self) -> None:
        self.listener.close()


@pytest.mark.parametrize("head,trickle_body", [(TRICKLE_HEAD, False), (TRICKLE_BODY, True)],
                         ids=["slow-headers", "slow-body"])
def test_timeout_bounds_a_server_that_trickles(head, trickle_body):
    server = Trickler(head, trickle_body)
    try:
        start = time.monotonic()
        with pytest.raises(FetchError, match="timed out after 1 s"):
            fetch(server.url, timeout=1)
        assert time.monotonic() - start < 5
        # the abandoned transfer does not linger: its connection is closed soon after
        assert server.hung_up.wait(10)
    finally:
        server.close()
