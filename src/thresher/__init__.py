"""thresher: main-content extraction for web pages.

>>> import thresher
>>> thresher.extract(b"<html><body><p>Hello, world.</p></body></html>", algorithm="justext")
"""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version as _distribution_version

from .api import Result, extract, extract_result, preload
from .errors import InputError, ModelError, ThresherError
from .options import FORMATS, Options, SeenTexts


def _version() -> str:
    """The installed distribution's version (maturin takes it from Cargo.toml)."""
    try:
        return _distribution_version("thresher")
    except PackageNotFoundError:  # a source tree on the path that was never installed
        return "0+unknown"


__version__ = _version()
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
    "preload",
]
