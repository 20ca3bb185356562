"""``thresher serve`` against a real uvicorn on 127.0.0.1, with a real HTTP client (httpx)."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from hypothesis import given, strategies as st

from conftest import page_server

pytest.importorskip("starlette", reason="thresher[serve] is not installed: service tests skipped")
uvicorn = pytest.importorskip("uvicorn", reason="thresher[serve] is not installed: service tests skipped")

from thresher.batch.fetch import FetchError, FetchTimeout  # noqa: E402
from thresher.cli.main import main  # noqa: E402
from thresher.service.addresses import AddressPolicy, is_public  # noqa: E402
from thresher.service.app import create_app, fetch_problem  # noqa: E402
from thresher.service.config import ServiceConfig  # noqa: E402
from thresher.service.requests import Problem, Switches  # noqa: E402

ARTICLE = (b"<html><head><title>A headline</title>"
           b'<script type="application/ld+json">{"@type": "NewsArticle", "headline": "A headline"}</script>'
           b"</head><body><nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
           b"<article><h1>A headline</h1><p>The first paragraph of the story tells the reader, at some length, "
           b"what happened and why it matters to <b>everyone</b> who lives in the town.</p>"
           b"<p>A second paragraph adds the details that a careful reader would expect to find here.</p>"
           b"</article><footer>Copyright the publisher</footer></body></html>")
# Extraction of this page takes a second or more: long enough to be caught running.
SLOW_PAGE = (b"<html><body>" + b"<div><p>Some words of a paragraph, enough to be text. More words here.</p></div>"
             * 20000 + b"</body></html>")
# Five times SLOW_PAGE's blocks: about a second of work, well past a 0.2 s budget on any machine.
OVER_BUDGET_PAGE = SLOW_PAGE.replace(b"</body>", SLOW_PAGE[len(b"<html><body>"):-len(b"</body></html>")] * 4
                                     + b"</body>")


class Running:
    """A real uvicorn serving ``create_app(config)`` on a free port of 127.0.0.1, in a thread."""

    def __init__(self, config: ServiceConfig) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        self.client = httpx.Client(base_url=self.base, timeout=60)

    def close(self) -> None:
        self.client.close()
        self.server.should_exit = True
        self.thread.join(30)


@contextmanager
def serving(**settings) -> Iterator[Running]:
    running = Running(ServiceConfig(**settings))
    try:
        yield running
    finally:
        running.close()


@pytest.fixture(scope="module")
def server() -> Iterator[Running]:
    with serving(max_body_bytes=200_000, threads=2) as running:
        yield running


def wait_for(predicate, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


# ----------------------------------------------------------------- endpoints

def test_health(server):
    response = server.client.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["in_flight"] == 0 and body["threads"] == 2


def test_raw_body_with_query_options(server):
    response = server.client.post("/extract?output=markdown&include_links=false", content=ARTICLE,
                                  headers={"content-type": "text/html; charset=utf-8"})
    assert response.status_code == 200
    body = response.json()
    assert body["output"] == "markdown"
    assert "**everyone**" in body["content"] and "Copyright" not in body["content"]
    assert body["title"] == "A headline" and body["language"] == "en"
    assert body["page_type"] == "article" and body["metadata"]["page_type"] == "article"  # predicted
    assert body["metadata"]["declared_type"] == "NewsArticle"  # what the page says it is
    assert set(body["timings"]) >= {"decode", "parse", "classify", "metadata", "render", "total"}


def test_json_html_with_options(server):
    response = server.client.post("/extract", json={"html": ARTICLE.decode(), "url": "https://example.org/story",
                                                    "options": {"output": "text", "include_tables": False}})
    assert response.status_code == 200
    body = response.json()
    assert body["output"] == "text" and "everyone" in body["content"] and "**" not in body["content"]
    assert body["url"] == "https://example.org/story"


def test_json_output_is_a_string_of_json(server):
    body = server.client.post("/extract", json={"html": ARTICLE.decode(), "options": {"output": "json"}}).json()
    assert json.loads(body["content"])["title"] == "A headline"


@pytest.mark.parametrize("request_kwargs, code", [
    ({"json": {"html": "<p>x</p>", "options": {"bogus": True}}}, "unknown_option"),
    ({"content": ARTICLE, "params": {"bogus": "1"}}, "unknown_option"),
    ({"json": {"html": "<p>x</p>", "options": {"model": "/etc/passwd"}}}, "option_not_allowed"),
    ({"json": {"html": "<p>x</p>", "options": {"include_tables": "yes"}}}, "invalid_option"),
    ({"content": ARTICLE, "params": {"include_tables": "maybe"}}, "invalid_option"),
    ({"json": {"html": "<p>x</p>", "options": {"output": "pdf"}}}, "invalid_option"),
    ({"json": {"html": "<p>x</p>", "options": {"algorithm": "nope"}}}, "invalid_option"),
    ({"json": {"options": {}}}, "missing_page"),
    ({"json": {"html": "<p>x</p>", "extra": 1}}, "unknown_field"),
    ({"json": {"url": "file:///etc/passwd"}}, "invalid_url"),
])
def test_bad_options_and_fields_are_422(server, request_kwargs, code):
    response = server.client.post("/extract", **request_kwargs)
    assert response.status_code == 422
    assert response.json()["error"] == code


def test_unknown_option_names_the_valid_ones(server):
    body = server.client.post("/extract", json={"html": "<p>x</p>", "options": {"bogus": True}}).json()
    assert "output" in body["valid"] and "include_links" in body["valid"] and "model" not in body["valid"]
    assert "bogus" in body["message"] and "include_comments" in body["message"]


def test_invalid_json_is_400(server):
    response = server.client.post("/extract", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400 and response.json()["error"] == "invalid_json"


@pytest.mark.parametrize("page", [b"%PDF-1.7 binary stuff", b"", b"\x00\x01\x02\x03" * 100])
def test_input_that_is_not_a_page_is_422(server, page):
    response = server.client.post("/extract", content=page)
    assert response.status_code == 422 and response.json()["error"] == "not_a_page"


def test_unknown_route_is_json_404(server):
    response = server.client.get("/nowhere")
    assert response.status_code == 404 and response.json()["error"] == "http_error"


def test_form_page_is_self_contained(server):
    response = server.client.get("/")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    text = response.text
    assert '<form method="post" action="/">' in text and 'name="url"' in text and 'name="html"' in text
    assert "<script" not in text and "src=" not in text and "href=" not in text


def test_form_shows_markdown_and_explain_report(server):
    response = server.client.post("/", data={"html": ARTICLE.decode(), "url": "", "algorithm": "thresher"})
    assert response.status_code == 200
    text = response.text
    assert "**everyone**" in text  # the Markdown, escaped in a <pre>
    assert '<iframe title="explain report" sandbox="allow-scripts" srcdoc="' in text
    assert "THRESHER_DATA" not in text and "&lt;script" in text  # the report's data filled in, escaped


def test_form_reports_errors_in_the_page(server):
    response = server.client.post("/", data={"html": "", "url": ""})
    assert response.status_code == 422 and 'class="error"' in response.text


# -------------------------------------------------------------------- limits

def test_declared_body_past_the_cap_is_413(server):
    response = server.client.post("/extract", content=b"<p>" + b"x" * 200_001)
    assert response.status_code == 413
    assert response.json() == {"error": "body_too_large", "message": "the request body is larger than 200,000 bytes",
                               "max_bytes": 200_000}


def test_body_at_the_cap_is_served(server):
    page = b"<html><body><p>" + b"word " * ((200_000 - 40) // 5) + b"</p></body></html>"
    assert len(page) <= 200_000
    assert server.client.post("/extract", content=page).status_code == 200


def _read_response(sock: socket.socket) -> bytes:
    """One whole HTTP response (headers and a Content-Length body) from ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        if not more:
            break
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        more = sock.recv(65536)
        if not more:
            break
        body += more
    return head + b"\r\n\r\n" + body


def _raw_request(port: int, head: bytes, chunks: list[bytes]) -> bytes:
    """Send ``head`` then ``chunks`` over a plain socket, never finishing the body; the response."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head)
        try:
            for chunk in chunks:
                sock.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):  # the server answered and closed early
            pass
        return _read_response(sock)


def test_streamed_body_is_refused_before_it_ends(server):
    """A chunked body is cut off as soon as it passes the cap: the answer comes while the body is unfinished."""
    head = b"POST /extract HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunk = b"%x\r\n%s\r\n" % (100_000, b"x" * 100_000)
    answer = _raw_request(server.port, head, [chunk, chunk, chunk])  # 300,000 bytes, no final chunk
    assert answer.startswith(b"HTTP/1.1 413")
    assert b'"body_too_large"' in answer


def test_declared_length_is_refused_before_the_body_is_sent(server):
    head = b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head)  # and nothing of the gigabyte announced
        answer = _read_response(sock)
    assert answer.startswith(b"HTTP/1.1 413") and b'"body_too_large"' in answer


def test_time_budget_stops_the_page_and_frees_its_place():
    """Past the budget a request gets 504, and the core's budget stops the page's work too: with
    one place, the next request is served as soon as the page has let go of it (the time the
    page takes to free what it built), long before the page would have ended."""
    with serving(budget=0.2, max_concurrency=1, threads=1) as running:
        started = time.monotonic()
        response = running.client.post("/extract", content=OVER_BUDGET_PAGE)
        assert response.status_code == 504
        assert response.json()["error"] == "timeout" and time.monotonic() - started < 10
        wait_for(lambda: running.client.get("/health").json()["in_flight"] == 0, seconds=10)
        assert running.client.post("/extract", content=ARTICLE).status_code == 200


def test_concurrency_cap_refuses_past_it_while_the_loop_stays_responsive():
    with serving(max_concurrency=1, threads=1) as running:
        slow: dict[str, httpx.Response] = {}
        thread = threading.Thread(target=lambda: slow.update(r=running.client.post("/extract", content=SLOW_PAGE)))
        thread.start()
        wait_for(lambda: running.client.get("/health", timeout=5).json()["in_flight"] == 1 or "r" in slow)
        if "r" not in slow:  # still running: the slot is taken
            busy = running.client.post("/extract", content=ARTICLE)
            assert busy.status_code == 503 and busy.json() == {
                "error": "busy", "message": "the server is extracting 1 pages already; try again shortly",
                "max_concurrency": 1}
        thread.join(120)
        assert slow["r"].status_code == 200 and slow["r"].json()["content"]
        assert running.client.post("/extract", content=ARTICLE).status_code == 200


# ---------------------------------------------------------------- url fetching

@pytest.mark.parametrize("url", ["http://127.0.0.1:{port}/health", "http://localhost:{port}/", "http://[::1]/",
                                 "http://10.0.0.1/", "http://192.168.1.1/", "http://169.254.169.254/latest/",
                                 "http://0.0.0.0/", "http://[::ffff:127.0.0.1]/", "http://100.64.0.1/"])
def test_url_to_a_non_public_address_is_refused(server, url):
    response = server.client.post("/extract", json={"url": url.format(port=server.port)})
    assert response.status_code == 403
    assert response.json()["error"] == "address_not_allowed"


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    routes = {"/article": (200, ARTICLE, {}), "/big": (200, b"<p>" + b"x" * 300_000 + b"</p>", {}),
              "/redirect-private": (302, b"", {"Location": "http://127.0.0.2:{port}/article"})}
    with page_server(routes) as base:
        yield base


@pytest.fixture(scope="module")
def allowing_loopback_1() -> Iterator[Running]:
    """A server that may fetch from 127.0.0.1 (only), with a small fetch size cap."""
    with serving(allow_networks=("127.0.0.1/32",), fetch_max_bytes=100_000) as running:
        yield running


def test_url_is_fetched_from_an_allowed_network(allowing_loopback_1, pages):
    response = allowing_loopback_1.client.post("/extract", json={"url": f"{pages}/article",
                                                                 "options": {"output": "markdown"}})
    assert response.status_code == 200
    body = response.json()
    assert "**everyone**" in body["content"] and body["url"] == f"{pages}/article"


def test_redirect_to_a_non_public_address_is_refused(allowing_loopback_1, pages):
    response = allowing_loopback_1.client.post("/extract", json={"url": f"{pages}/redirect-private"})
    assert response.status_code == 403
    assert "127.0.0.2" in response.json()["message"]


def test_every_resolved_address_must_be_allowed(allowing_loopback_1, pages):
    port = pages.rsplit(":", 1)[1]
    resolved = {info[4][0] for info in socket.getaddrinfo("localhost", int(port), type=socket.SOCK_STREAM)}
    response = allowing_loopback_1.client.post("/extract", json={"url": f"http://localhost:{port}/article"})
    assert response.status_code == (200 if resolved == {"127.0.0.1"} else 403)


def test_fetch_errors(allowing_loopback_1, pages):
    too_big = allowing_loopback_1.client.post("/extract", json={"url": f"{pages}/big"})
    assert too_big.status_code == 502 and "larger than 100,000 bytes" in too_big.json()["message"]
    missing = allowing_loopback_1.client.post("/extract", json={"url": f"{pages}/missing"})
    assert missing.status_code == 502 and missing.json()["upstream_status"] == 404


# ----------------------------------------------------------------- the parts

@pytest.mark.parametrize("address, public", [
    ("8.8.8.8", True), ("2606:4700::1111", True), ("127.0.0.1", False), ("10.1.2.3", False),
    ("172.16.0.1", False), ("192.168.0.1", False), ("169.254.169.254", False), ("100.64.0.1", False),
    ("0.0.0.0", False), ("::1", False), ("fe80::1", False), ("fc00::1", False), ("::ffff:10.0.0.1", False),
    ("::ffff:8.8.8.8", True), ("224.0.0.1", False), ("ff02::1", False), ("240.0.0.1", False)])
def test_is_public(address, public):
    import ipaddress

    assert is_public(ipaddress.ip_address(address)) is public


def test_policy_networks_and_allow_private():
    import ipaddress

    policy = AddressPolicy.of(False, ["10.1.0.0/16"])
    assert policy.allows(ipaddress.ip_address("10.1.2.3")) and not policy.allows(ipaddress.ip_address("10.2.0.1"))
    assert AddressPolicy.of(True).allows(ipaddress.ip_address("127.0.0.1"))


def test_query_switches_are_typed():
    options = Switches().from_query({"output": ["markdown"], "include_links": ["true"], "indent": ["2"],
                                     "prune": ["nav", ".ad"], "favor_precision": ["0"]})
    assert (options.output, options.include_links, options.indent, options.prune, options.favor_precision) == (
        "markdown", True, 2, ("nav", ".ad"), False)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                         max_size=3), max_leaves=6)
option_names = st.sampled_from(["output", "include_links", "prune", "indent", "language", "algorithm", "model",
                                "deduplicate", "include_formatting", "bogus", ""])


@given(st.dictionaries(option_names, json_values, max_size=4))
def test_any_json_options_give_options_or_a_problem(options):
    """Whatever a client sends as options, the answer is valid Options or a 4xx Problem, never a crash."""
    try:
        Switches().from_json(options)
    except Problem as problem:
        assert 400 <= problem.status < 500 and problem.message


@given(st.dictionaries(option_names, st.lists(st.text(max_size=8), min_size=1, max_size=3), max_size=4))
def test_any_query_options_give_options_or_a_problem(query):
    try:
        Switches().from_query(query)
    except Problem as problem:
        assert 400 <= problem.status < 500 and problem.message


def test_bad_prune_selector_is_invalid():
    with pytest.raises(Problem) as caught:
        Switches().from_json({"prune": ["[[["]})
    assert caught.value.status == 422


@pytest.mark.parametrize("settings", [{"max_body_bytes": 0}, {"budget": 0}, {"threads": -1}, {"port": 70000},
                                      {"allow_networks": ("not a network",)}])
def test_config_is_validated(settings):
    with pytest.raises(ValueError):
        ServiceConfig(**settings)


def test_config_defaults():
    config = ServiceConfig(threads=3)
    assert config.max_body_bytes == 50 * 1024 * 1024 and config.max_concurrency == 12
    assert config.host == "127.0.0.1" and not config.allow_private


# ----------------------------------------------------------------- the command

def test_serve_help(capsys):
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--allow-private" in out and "--max-body-bytes" in out and "--timeout" in out


def test_serve_rejects_a_bad_setting(capsys):
    assert main(["serve", "--timeout", "0"]) == 2
    assert "budget and fetch_timeout must be positive" in capsys.readouterr().err


def test_serve_without_the_extra_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if not installed: importing it raises ImportError
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "thresher serve needs the serve extra" in err and "pip install 'thresher[serve]'" in err


def test_thresher_serve_command_serves():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "thresher", "serve", "--port", str(port),
                                "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        def healthy() -> bool:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            try:
                return httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200
            except httpx.TransportError:
                return False
        wait_for(healthy)
        response = httpx.post(f"http://127.0.0.1:{port}/extract?output=markdown", content=ARTICLE, timeout=30)
        assert response.status_code == 200 and "**everyone**" in response.json()["content"]
    finally:
        process.terminate()
        process.wait(30)


def test_a_failed_fetch_is_refused_by_its_kind_not_its_message():
    """A fetch past its time limit is a 504 whatever its message says; any other fetch failure
    is a 502 that carries the upstream status when there was one."""
    late = fetch_problem(FetchTimeout("https://example.org/: no answer", transient=True))
    assert (late.status, late.code) == (504, "fetch_timeout")
    worded = fetch_problem(FetchError("https://example.org/timed out: HTTP 500", status=500, transient=True))
    assert (worded.status, worded.code, worded.extra) == (502, "fetch_failed", {"upstream_status": 500})
