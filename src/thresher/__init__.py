"""thresher: main-content extraction for web pages.

>>> import thresher
>>> thresher.extract(b"<html><body><p>Hello, world.</p></body></html>", algorithm="justext")
"""
from __future__ import annotations

from .api import FORMATS, Result, extract, extract_result, preload
from .errors import InputError, ModelError, ThresherError
from .options import Options, SeenTexts

__version__ = "0.1.0"
__all__ = ["FORMATS", "InputError", "ModelError", "Options", "Result", "SeenTexts", "ThresherError", "extract",
           "extract_result", "preload", "__version__"]
