"""Running the service under uvicorn: :func:`run` (what ``thresher serve`` calls)."""
from __future__ import annotations

import socket

from ..errors import ThresherError
from .config import ServiceConfig


class MissingServeExtra(ThresherError):
    """Starlette or uvicorn is not installed."""


def check_installed() -> None:
    """Raise :class:`MissingServeExtra` with the install command when the ``serve`` extra is absent."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise MissingServeExtra(f"thresher serve needs the serve extra ({exc.name} is missing): "
                                "pip install 'thresher[serve]'") from None


def run(config: ServiceConfig, *, log_level: str = "info", sockets: list[socket.socket] | None = None) -> None:
    """Serve ``config`` until interrupted; on ``sockets`` when given (already bound), else on host:port."""
    check_installed()
    import uvicorn

    from .app import create_app

    server = uvicorn.Server(uvicorn.Config(create_app(config), host=config.host, port=config.port,
                                           log_level=log_level, lifespan="on", server_header=False))
    server.run(sockets=sockets)
