"""The model file as stored: a ``.npz`` archive read without numpy, without pickle and without
Python's ``zipfile`` (the core reads it).

The layout of the arrays is :mod:`thresher.inference.treemodel`'s. Extraction reads a file
here and hands the arrays to the core as they are (``_core.LearnedModel``), so the Python
model classes and numpy stay unloaded; :func:`thresher.inference.treemodel.read` makes numpy
arrays of them for explain and training.
"""
from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, NamedTuple

from .. import _core
from .._lazy import LazyModule
from ..errors import ModelError

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that makes arrays

SCHEMA = "thresher.model"
VERSION = 2
READABLE_VERSIONS = (1, 2)

# What a file that is not a readable model file raises while it is read.
UNREADABLE = (OSError, ValueError, KeyError, TypeError, EOFError)


class RawArray(NamedTuple):
    """An array of a model file as stored: numpy's dtype string (little-endian), the shape and
    the C-ordered bytes. The core reads it as it is (``_core.LearnedModel``); :meth:`array`
    makes the numpy array."""

    descr: str
    shape: tuple[int, ...]
    data: bytes

    def array(self) -> np.ndarray:
        return np.frombuffer(self.data, dtype=self.descr).reshape(self.shape).copy()


def read_raw(path: str | Path) -> tuple[dict, dict[str, RawArray]]:
    """The parsed header and the arrays, as stored, of a model file written by :func:`save`,
    read without numpy (the common extraction never loads it) by the core, which unpacks the
    archive and reads each ``.npy`` member's header (``crates/core/src/npz.rs``);
    :class:`ModelError` when it is not one or names another schema or an unknown version."""
    try:
        arrays = {name[:-4]: RawArray(*raw) for name, raw in _core.read_npz(os.fspath(path)).items()}
        raw = arrays.pop("header")
        if not raw.descr.startswith("<U") or raw.shape:
            raise ValueError("the header is not a string")
        header = json.loads(raw.data.decode("utf-32-le").rstrip("\x00"))
    except UNREADABLE as exc:
        raise ModelError(f"{path}: not a thresher model file ({type(exc).__name__}: {exc})") from None
    if not isinstance(header, dict) or not isinstance(header.get("models"), dict):
        raise ModelError(f"{path}: model header is malformed")
    if header.get("schema") != SCHEMA:
        raise ModelError(f"{path}: schema {header.get('schema')!r} is not {SCHEMA!r}")
    if header.get("version") not in READABLE_VERSIONS:
        raise ModelError(f"{path}: model version {header.get('version')} unsupported "
                         f"(this thresher reads {', '.join(map(str, READABLE_VERSIONS))})")
    return header, arrays
