"""thresher: main-content extraction for web pages.

>>> import thresher
>>> thresher.extract(b"<html><body><p>Hello, world.</p></body></html>", algorithm="justext")

Importing the package loads nothing heavy: each public name is imported from its module when it
is first read (PEP 562), so numpy, the algorithms and their models, charset detection, language
identification and stop lists load with the first extraction that needs them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._lazy import attribute as _attribute
from .errors import ExtractionTimeout, InputError, ModelError, OptionError, ThresherError

if TYPE_CHECKING:
    from ._version import __version__
    from .api import Result, extract, extract_result, page_type, preload
    from .options import FORMATS, Options, SeenTexts

__all__ = [
    "FORMATS",
    "ExtractionTimeout",
    "InputError",
    "ModelError",
    "OptionError",
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

# The public names read on first use, and the module each comes from.
_LAZY = {
    "__version__": "._version",
    "Result": ".api", "extract": ".api", "extract_result": ".api", "page_type": ".api", "preload": ".api",
    "FORMATS": ".options", "Options": ".options", "SeenTexts": ".options",
}


def __getattr__(name: str) -> Any:
    return _attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
