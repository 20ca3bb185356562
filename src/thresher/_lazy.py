"""Loading on first use: the module attributes of PEP 562 and lock-free lazy fields.

In the lowest layer, so that every package may defer its imports: ``import thresher`` loads
nothing heavy, and each package's names load with their module when first read.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any


def attribute(package: str, lazy: Mapping[str, str], namespace: dict[str, Any], name: str) -> Any:
    """A package's ``__getattr__``: ``name`` from the module ``lazy`` names for it (relative to
    ``package``), stored in the package's ``namespace`` so that later reads find it there; else
    the submodule ``package.name``."""
    module = lazy.get(name)
    if module is None:
        return submodule(package, name)
    value = getattr(importlib.import_module(module, package), name)
    namespace[name] = value
    return value


def submodule(package: str, name: str) -> Any:
    """``package.name`` imported on first use (``thresher.algorithms.get(...)`` after a bare
    ``import thresher``); AttributeError when there is no such module."""
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
