"""The algorithm registry.

Every extractor is a module in this package exposing ``ALGORITHM`` (an
:class:`~thresher.algorithms.base.Algorithm`). :func:`registry` imports them
on first use; ``<base>+tree`` variants wrap every base algorithm in the
HTML-tree filter.
"""
from __future__ import annotations

import importlib
from functools import lru_cache

from ..errors import UnknownAlgorithm
from .base import Algorithm, Classification, Context

__all__ = ["DEFAULT", "Algorithm", "Classification", "Context", "get", "names", "registry"]

DEFAULT = "thresher"
# Module names, in the order `thresher algorithms` lists them.
_MODULES = (
    "flagship", "dragnet", "justext", "declutter", "boilerpipe", "density", "cetr",
)


@lru_cache(maxsize=1)
def registry() -> dict[str, Algorithm]:
    """Name -> algorithm, for every algorithm that is installed."""
    found: dict[str, Algorithm] = {}
    for module_name in _MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{module_name}":
                raise
            continue
        for algorithm in getattr(module, "ALGORITHMS", (getattr(module, "ALGORITHM", None),)):
            if algorithm is not None:
                found[algorithm.name] = algorithm
    tree = _tree_module()
    if tree is not None:
        for base in list(found.values()):
            wrapped = tree.wrap(base)
            found[wrapped.name] = wrapped
    return found


def _tree_module():
    try:
        return importlib.import_module(f"{__name__}.tree")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.tree":
            raise
        return None


def names() -> list[str]:
    return list(registry())


def get(name: str) -> Algorithm:
    """The algorithm called ``name``; :class:`~thresher.errors.UnknownAlgorithm` lists the known ones otherwise."""
    found = registry().get(name)
    if found is None:
        raise UnknownAlgorithm(name, tuple(names()))
    return found
