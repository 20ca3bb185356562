"""thresher.fetch against a local HTTP server on 127.0.0.1."""
from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from thresher.fetch import FetchError, fetch, is_url

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

    def do_GET(self):  # noqa: N802 - http.server's name
        try:
            self._route()
        except (BrokenPipeError, ConnectionResetError):
            pass

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
    with pytest.raises(FetchError, match="timed out after 0.2 s"):
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
