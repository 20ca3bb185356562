"""Renderers: one module per output format, each ``render(result, **options: Any) -> str``."""
from __future__ import annotations

import importlib
from typing import Any

from .extraction import Extraction

_MODULES = {"text": "text", "markdown": "markdown", "html": "html", "json": "json_out",
            "xml": "xml", "xmltei": "tei", "csv": "csv_out"}


def render(result: Extraction, output: str = "text", **options: Any) -> str:
    try:
        module_name = _MODULES[output]
    except KeyError:
        raise ValueError(f"unknown output format {output!r}; choose from {', '.join(_MODULES)}") from None
    module = importlib.import_module(f"{__name__}.{module_name}")
    rendered: str = module.render(result, **options)
    return rendered
