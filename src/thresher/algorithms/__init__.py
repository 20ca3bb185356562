"""The algorithm registry.

Every extractor is a module in this package exposing ``ALGORITHM`` or ``ALGORITHMS`` (each an
:class:`~thresher.algorithms.base.Algorithm`). :func:`get` imports only the module of the
algorithm asked for (:data:`PROVIDERS` says which); :func:`registry` imports them all, for
listings. ``<base>+tree`` variants wrap every base algorithm in the HTML-tree filter.
"""
from __future__ import annotations

import importlib
from functools import cache, lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .._lazy import submodule
from ..errors import UnknownAlgorithm

if TYPE_CHECKING:
    from .base import Algorithm, Classification, Context

__all__ = ["DEFAULT", "PROVIDERS", "Algorithm", "Classification", "Context", "get", "names", "registry"]

DEFAULT = "thresher"
# Each base algorithm's name and the module that defines it, in the order `thresher algorithms`
# lists them (tests/test_algorithms_registry.py checks it against the modules themselves).
PROVIDERS: dict[str, str] = {
    "thresher": "flagship", "thresher-accurate": "flagship",
    "dragnet": "dragnet", "dragnet-comments": "dragnet",
    "justext": "justext",
    "declutter": "declutter",
    "boilerpipe-numwords": "boilerpipe", "boilerpipe-density": "boilerpipe", "boilerpipe-article": "boilerpipe",
    "density": "density", "density+classifier": "density",
    "cetr": "cetr",
}
TREE_SUFFIX = "+tree"  # thresher.algorithms.tree.SUFFIX, without importing the filter to read it
_BASE_NAMES = ("Algorithm", "Classification", "Context")


def __getattr__(name: str) -> Any:
    if name in _BASE_NAMES:  # the base types, imported with the first algorithm that needs them
        return getattr(importlib.import_module(f"{__name__}.base"), name)
    return submodule(__name__, name)  # an algorithm's module (thresher.algorithms.justext.Params)


def _module(name: str) -> ModuleType | None:
    """The module ``thresher.algorithms.<name>``; None when it is not installed."""
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        return None


def defined_by(module: ModuleType) -> tuple[Algorithm, ...]:
    """The algorithms a module of this package defines."""
    found = getattr(module, "ALGORITHMS", (getattr(module, "ALGORITHM", None),))
    return tuple(algorithm for algorithm in found if algorithm is not None)


@cache  # called with the names of PROVIDERS and their +tree variants only
def _lookup(name: str) -> Algorithm | None:
    """The algorithm called ``name`` (a ``+tree`` variant wrapped once), importing only its module."""
    base_name = name.removesuffix(TREE_SUFFIX)
    module = _module(PROVIDERS[base_name])
    base = None if module is None else next((a for a in defined_by(module) if a.name == base_name), None)
    if base is None or base_name == name:
        return base
    tree = _module("tree")
    return None if tree is None else tree.wrap(base)


@lru_cache(maxsize=1)
def registry() -> dict[str, Algorithm]:
    """Name -> algorithm, for every algorithm that is installed."""
    found = {name: algorithm for name in PROVIDERS if (algorithm := _lookup(name)) is not None}
    if _module("tree") is not None:
        found.update({wrapped.name: wrapped for name in list(found)
                      if (wrapped := _lookup(name + TREE_SUFFIX)) is not None})
    return found


def names() -> list[str]:
    return list(registry())


def get(name: str) -> Algorithm:
    """The algorithm called ``name``; :class:`~thresher.errors.UnknownAlgorithm` lists the known ones otherwise."""
    found = _lookup(name) if name.removesuffix(TREE_SUFFIX) in PROVIDERS else None
    if found is None:
        raise UnknownAlgorithm(name, tuple(names()))
    return found
