"""thresher: main-content extraction for web pages.

>>> import thresher
>>> thresher.extract(b"<html><body><p>Hello, world.</p></body></html>", algorithm="justext")
"""
from __future__ import annotations

from ._version import __version__
from .api import Result, extract, extract_result, page_type, preload
from .errors import InputError, ModelError, ThresherError
from .options import FORMATS, Options, SeenTexts

__all__ = [
    "FORMATS",
    "InputError",
    "ModelError",
    "Options",
    "Result",
    "SeenTexts",
    "ThresherError",
    "__version__",
    "extract",
    "extract_result",
    "page_type",
    "preload",
]
