"""The Starlette application of ``thresher serve``: :func:`create_app`.

    POST /extract   a page (raw HTML body, or JSON {"html" | "url", "options"}) -> JSON
    GET  /health    liveness and load
    GET  /          a one-page form; POST / shows the Markdown and the explain report

See ``docs/serve.md`` for the request and response formats and the limits.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from .. import algorithms
from .._version import __version__
from ..api import preload
from ..batch.fetch import FetchError, FetchTimeout, is_url
from ..errors import InputError, ThresherError
from ..options import Options, options_from
from .addresses import AddressNotAllowed, AddressPolicy, fetch_allowed
from .config import ServiceConfig
from .form import Outcome, explain_page, page
from .requests import PageRequest, Problem, Switches, json_request, raw_request, read_body
from .work import Workers, extract_page

T = TypeVar("T")

log = logging.getLogger("thresher.service")


class Service:
    """The state one application serves with: its settings, workers, address policy and switches."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.workers = Workers(config.threads, config.max_concurrency, config.budget)
        self.policy = AddressPolicy.of(config.allow_private, config.allow_networks)
        self.switches = Switches()

    async def body(self, request: Request) -> bytes:
        return await read_body(request.stream(), request.headers.get("content-length"), self.config.max_body_bytes)

    async def source(self, wanted: PageRequest) -> tuple[bytes | str, str | None, str | None]:
        """(page, its URL, the content type it came with), fetching ``wanted.url`` when asked to."""
        if not wanted.fetch:
            assert wanted.html is not None
            return wanted.html, wanted.url, None
        url = wanted.url or ""
        if not is_url(url):
            raise Problem(422, "invalid_url", f"{url}: not an http or https URL")
        try:
            fetched = await asyncio.get_running_loop().run_in_executor(
                None, lambda: fetch_allowed(url, self.policy, timeout=self.config.fetch_timeout,
                                            max_bytes=self.config.fetch_max_bytes))
        except Exception as exc:  # noqa: BLE001 - every failure becomes a response
            raise fetch_problem(exc) from None
        return fetched.content, fetched.url, fetched.content_type

    async def serve(self, wanted: PageRequest, job: Callable[[bytes | str, str | None, str | None], T]) -> T:
        """``job(page, url, content type)`` in a worker thread, once admitted and the page fetched if need be."""
        slot = self.workers.admit()
        try:
            html, url, content_type = await self.source(wanted)
        except BaseException:
            slot.release()
            raise
        try:
            return await self.workers.run(slot, lambda: job(html, url, content_type))
        except ThresherError as exc:
            raise extraction_problem(exc) from None

    async def extract(self, request: Request) -> Response:
        body = await self.body(request)
        content_type = request.headers.get("content-type", "")
        if content_type.split(";")[0].strip().lower() == "application/json":
            wanted = json_request(body, self.switches)
        else:
            query: dict[str, list[str]] = {}
            for name, value in request.query_params.multi_items():
                query.setdefault(name, []).append(value)
            wanted = raw_request(body, query, self.switches, content_type)

        def job(html: bytes | str, url: str | None, fetched_type: str | None) -> dict[str, Any]:
            options = wanted.options
            if fetched_type and options.content_type is None:
                options = options_from({"content_type": fetched_type}, options)
            return extract_page(html, url, options, self.config.budget)

        return JSONResponse(await self.serve(wanted, job))

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__, "in_flight": self.workers.admission.count,
                             "max_concurrency": self.workers.admission.limit, "threads": self.workers.threads})

    async def form(self, request: Request) -> Response:
        return HTMLResponse(page())

    async def form_submit(self, request: Request) -> Response:
        url = html = ""
        algorithm = algorithms.DEFAULT
        try:
            fields = parse_qs((await self.body(request)).decode("utf-8", "replace"))
            url = fields.get("url", [""])[-1].strip()
            html = fields.get("html", [""])[-1]
            algorithm = fields.get("algorithm", [algorithm])[-1]
            if algorithm not in algorithms.names():
                raise Problem(422, "invalid_option", f"unknown algorithm {algorithm!r}")
            if not html.strip() and not url:
                raise Problem(422, "missing_page", "paste a URL or a page's HTML")
            wanted = PageRequest(html if html.strip() else None, url or None, Options(), fetch=not html.strip())
            outcome = await self.serve(wanted, lambda source, page_url, _: explain_page(source, page_url, algorithm))
        except Problem as problem:
            return HTMLResponse(page(Outcome(error=problem.message), url, html, algorithm), status_code=problem.status)
        return HTMLResponse(page(outcome, url, html, algorithm))


def fetch_problem(exc: BaseException) -> Problem:
    """The refusal for a failed fetch: 403 for an address not allowed, 504 past the time limit, else 502."""
    if isinstance(exc, Problem):
        return exc
    if isinstance(exc, AddressNotAllowed):
        return Problem(403, "address_not_allowed", str(exc))
    if isinstance(exc, FetchTimeout):
        return Problem(504, "fetch_timeout", str(exc))
    if isinstance(exc, FetchError):
        extra = {"upstream_status": exc.status} if exc.status is not None else {}
        return Problem(502, "fetch_failed", str(exc), **extra)
    if isinstance(exc, Exception):
        log.exception("fetch failed", exc_info=exc)
        return Problem(502, "fetch_failed", f"{type(exc).__name__}: {exc}")
    raise exc  # CancelledError and the like: not ours to turn into a response


def extraction_problem(exc: ThresherError) -> Problem:
    if isinstance(exc, InputError):
        return Problem(422, "not_a_page", str(exc))
    log.error("extraction failed: %s", exc)
    return Problem(500, "extraction_failed", str(exc) or type(exc).__name__)


async def _problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Problem)
    headers = {"Retry-After": "1"} if exc.status == 503 else None
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": "http_error", "message": exc.detail}, status_code=exc.status_code)


async def _internal_error(request: Request, exc: Exception) -> Response:
    log.exception("internal error", exc_info=exc)
    return JSONResponse({"error": "internal_error", "message": f"{type(exc).__name__}: {exc}"}, status_code=500)


def create_app(config: ServiceConfig | None = None) -> Starlette:
    """The application for ``config``: the workers start with it and stop when it shuts down."""
    service = Service(config or ServiceConfig())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # The default algorithm's models and the language identifier, before the first request.
        await asyncio.get_running_loop().run_in_executor(None, preload)
        try:
            yield
        finally:
            service.workers.shutdown()

    routes = [
        Route("/extract", service.extract, methods=["POST"]),
        Route("/health", service.health, methods=["GET"]),
        Route("/", service.form, methods=["GET"]),
        Route("/", service.form_submit, methods=["POST"]),
    ]
    handlers: dict[Any, Any] = {Problem: _problem, HTTPException: _http_error, Exception: _internal_error}
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    app.state.service = service
    return app
