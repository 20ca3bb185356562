"""The model file as stored: a ``.npz`` archive read without numpy and without pickle.

The layout of the arrays is :mod:`thresher.inference.treemodel`'s. Extraction reads a file
here and hands the arrays to the core as they are (``_core.LearnedModel``), so the Python
model classes and numpy stay unloaded; :func:`thresher.inference.treemodel.read` makes numpy
arrays of them for explain and training.
"""
from __future__ import annotations

import json
import re
import zipfile
import zlib
from typing import TYPE_CHECKING, NamedTuple

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
UNREADABLE = (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, zlib.error)


class RawArray(NamedTuple):
    """An array of a model file as stored: numpy's dtype string (little-endian), the shape and
    the C-ordered bytes. The core reads it as it is (``_core.LearnedModel``); :meth:`array`
    makes the numpy array."""

    descr: str
    shape: tuple[int, ...]
    data: bytes

    def array(self) -> np.ndarray:
        return np.frombuffer(self.data, dtype=self.descr).reshape(self.shape).copy()


_NPY_MAGIC = b"\x93NUMPY"
_DESCR = re.compile(r"'descr':\s*'([<|][a-zA-Z]\d+)'")
_FORTRAN = re.compile(r"'fortran_order':\s*(True|False)")
_SHAPE = re.compile(r"'shape':\s*\(([\d,\s]*)\)")


def _npy(blob: bytes) -> RawArray:
    """One ``.npy`` file of the archive (format versions 1 to 3; C order, little-endian)."""
    if blob[:6] != _NPY_MAGIC or blob[6] not in (1, 2, 3):
        raise ValueError("not an .npy array")
    size_bytes = 2 if blob[6] == 1 else 4
    start = 8 + size_bytes
    header = blob[start - size_bytes:start]
    end = start + int.from_bytes(header, "little")
    text = blob[start:end].decode("latin-1")
    descr, fortran, shape = _DESCR.search(text), _FORTRAN.search(text), _SHAPE.search(text)
    if descr is None or fortran is None or shape is None:
        raise ValueError(f"an .npy header thresher does not read: {text.strip()!r}")
    dims = tuple(int(d) for d in shape.group(1).split(",") if d.strip())
    if fortran.group(1) == "True" and len(dims) > 1:
        raise ValueError("an array in Fortran order")
    return RawArray(descr.group(1), dims, blob[end:])


def read_raw(path: str | Path) -> tuple[dict, dict[str, RawArray]]:
    """The parsed header and the arrays, as stored, of a model file written by :func:`save`,
    read without numpy (the common extraction never loads it); :class:`ModelError` when it is
    not one or names another schema or an unknown version."""
    try:
        with zipfile.ZipFile(path) as archive:
            arrays = {name[:-4]: _npy(archive.read(name)) for name in archive.namelist() if name.endswith(".npy")}
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
