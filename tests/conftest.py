"""Shared test helpers: the ../shared datasets, algorithm discovery, and a quiet Hypothesis profile."""
from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

SHARED_DIR = Path(__file__).resolve().parents[2] / "shared"
DATASETS_DIR = SHARED_DIR / "datasets"
SHARED_MISSING = "../shared/datasets not found beside the checkout: dataset-based tests skipped"

requires_shared = pytest.mark.skipif(not DATASETS_DIR.is_dir(), reason=SHARED_MISSING)

try:  # Hypothesis is a test extra; tests that need it import it themselves.
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - only without the test extra
    pass
else:
    # Deterministic (same examples on every run), few examples, no per-example deadline:
    # CI runs on 2 shared cores and must be neither slow nor flaky.
    settings.register_profile(
        "thresher", derandomize=True, max_examples=60, deadline=None, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    settings.load_profile("thresher")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the checkout; skips the test when its datasets are absent."""
    if not DATASETS_DIR.is_dir():
        pytest.skip(SHARED_MISSING)
    return SHARED_DIR


def algorithm_names() -> list[str]:
    """Every registered algorithm (some may need a model that is not installed: see :func:`extract_or_skip`)."""
    from thresher import algorithms

    return algorithms.names()


def extract_or_skip(html, algorithm: str, **options) -> str:
    """``thresher.extract`` with ``algorithm``; skips the test when the algorithm's model is not installed."""
    import thresher
    from thresher.errors import ModelError

    try:
        return thresher.extract(html, algorithm=algorithm, **options)
    except ModelError as exc:
        # Only a model file that is absent from the installation is a reason to skip; a shipped
        # model that no longer matches the code (or is corrupt) is a failure.
        if "is missing from this installation" not in str(exc):
            raise
        pytest.skip(f"algorithm {algorithm!r} needs a model that is not installed: {exc}")


def require_model(algorithm: str) -> None:
    """Skip now (cheaply, on a tiny page) when ``algorithm`` needs a model that is not installed."""
    extract_or_skip("<html><body><p>A tiny page to load the model with.</p></body></html>", algorithm)


# A route of :func:`page_server`: (status, body, headers); "{port}" in a header is the server's port.
Route = tuple[int, bytes, Mapping[str, str]]


@contextmanager
def page_server(routes: Mapping[str, Route]) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 for the length of the block: ``GET path`` answers with
    ``routes[path]``, any other path with 404. Yields its base URL (``http://127.0.0.1:PORT``)."""

    class Pages(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # http.server's name
            status, body, headers = routes.get(self.path, (404, b"not found", {}))
            self.send_response(status)
            for name, value in {"Content-Type": "text/html; charset=utf-8", **headers}.items():
                self.send_header(name, value.format(port=self.server.server_address[1]))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
