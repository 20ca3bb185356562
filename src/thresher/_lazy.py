"""Loading on first use: the module attributes of PEP 562 and lock-free lazy fields.

In the lowest layer, so that every package may defer its imports: ``import thresher`` loads
nothing heavy, and each package's names load with their module when first read.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

T = TypeVar("T")

if TYPE_CHECKING:
    from functools import cached_property
else:
    class cached_property(Generic[T]):
        """:func:`functools.cached_property` without its lock, as Python 3.12 has it.

        Python 3.11's holds one lock per property, shared by every instance of the class, while
        it computes a value: a process forked while another thread holds it (a ``multiprocessing``
        pool with the "fork" start method) would block its child forever on the first read of
        that property. Here two threads that read a value at once may both compute it; the
        first one stored is the one every reader gets (the values are derived, never mutated).
        """

        def __init__(self, func: Callable[[Any], T]) -> None:
            self.func = func
            self.attrname: str | None = None
            self.__doc__ = func.__doc__
            self.__module__ = func.__module__

        def __set_name__(self, owner: type, name: str) -> None:
            self.attrname = name

        def __get__(self, instance: Any, owner: type | None = None) -> Any:
            if instance is None:
                return self
            if self.attrname is None:
                raise TypeError("cannot use cached_property without calling __set_name__ on it")
            value = self.func(instance)
            # Written to the instance's own dict, past a frozen dataclass's __setattr__; from then
            # on the attribute is found there and this descriptor is not called again.
            return instance.__dict__.setdefault(self.attrname, value)


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


class LazyModule:
    """A module imported when one of its attributes is first read (numpy, say, which the common
    extraction never needs): ``np = LazyModule("numpy")`` in a module that names ``np`` in
    functions only. Each attribute read is kept on the object, so later reads are plain
    attribute reads. For type checkers, import the module itself under ``TYPE_CHECKING``."""

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = getattr(importlib.import_module(object.__getattribute__(self, "_name")), attr)
        object.__setattr__(self, attr, value)
        return value

    def __repr__(self) -> str:
        return f"<lazy module {object.__getattribute__(self, '_name')!r}>"
