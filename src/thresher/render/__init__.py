"""Renderers: one module per output format, each ``render(result, **options: Any) -> str``;
:mod:`.formats` lists the formats and their modules."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .formats import output_format

if TYPE_CHECKING:
    from .extraction import Extraction


def render(result: Extraction, output: str = "text", **options: Any) -> str:
    module = importlib.import_module(f"{__name__}.{output_format(output).module}")
    rendered: str = module.render(result, **options)
    return rendered
