"""Named feature columns for every block of a page, and the operations on them: selecting
columns by name, joining groups, padding and shifting rows along the reading order."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain as iter_chain
from typing import TYPE_CHECKING

from .. import _core
from .._lazy import LazyModule
from ..errors import ModelError

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays

# The columns whose neighbours' values are features (the core's list,
# crates/core/src/features/neighbours.rs).
NEIGHBOUR_COLUMNS: tuple[str, ...] = tuple(_core.NEIGHBOUR_COLUMNS)


@dataclass(frozen=True)
class Columns:
    """A named group of feature columns for every block of a page."""

    names: tuple[str, ...]
    values: np.ndarray  # shape (n_blocks, len(names)), float32

    @staticmethod
    def of(columns: Mapping[str, Iterable[float]], n: int) -> Columns:
        names = tuple(columns)
        if not names:
            return Columns((), np.zeros((n, 0), np.float32))
        matrix = np.empty((n, len(names)), np.float32)
        for j, name in enumerate(names):
            column = columns[name]
            if isinstance(column, np.ndarray):
                matrix[:, j] = column
            elif n:
                matrix[:, j] = np.fromiter(column, np.float32, count=n)
        return Columns(names, matrix)

    def column(self, name: str) -> np.ndarray:
        return self.values[:, self.names.index(name)]

    def rows(self, which: np.ndarray) -> Columns:
        """The same columns for the blocks ``which`` selects (a boolean mask or indices)."""
        return Columns(self.names, self.values[which])

    def select(self, names: tuple[str, ...], reader: str = "the caller") -> np.ndarray:
        """The values of the columns ``names``, in that order (the matrix itself when they are
        all of them in order). A name that is not here is a :class:`~thresher.errors.ModelError`
        naming ``reader``."""
        if names == self.names:
            return self.values
        index, missing = selection(self.names, names)
        if missing:
            raise ModelError(f"{reader} reads features this thresher does not compute ({', '.join(missing[:3])}"
                             f"{', ...' if len(missing) > 3 else ''}); retrain the model")
        return self.values[:, index]


@lru_cache(maxsize=32)
def selection(have: tuple[str, ...], want: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...]]:
    """The columns of ``have`` that hold ``want``'s names, in ``want``'s order, and the names of
    ``want`` that ``have`` lacks (memoised: a page's feature layout is the same on every page, and
    so is each model's; callers must not change the array)."""
    position = {name: j for j, name in enumerate(have)}
    missing = tuple(name for name in want if name not in position)
    index = np.array([position.get(name, -1) for name in want], np.int64)
    index.flags.writeable = False
    return index, missing


def concat(groups: Iterable[Columns]) -> Columns:
    groups = list(groups)
    return Columns(tuple(iter_chain.from_iterable(g.names for g in groups)),
                   np.concatenate([g.values for g in groups], axis=1))


def shift(values: np.ndarray, offset: int) -> np.ndarray:
    """Rows moved by ``offset`` along the reading order: row i gets row i + offset (zeros past the edges)."""
    out = np.zeros_like(values)
    if offset < 0 and len(values) > -offset:
        out[-offset:] = values[:offset]
    elif offset > 0 and len(values) > offset:
        out[:-offset] = values[offset:]
    return out


def neighbours(base: Columns, names: Iterable[str] = NEIGHBOUR_COLUMNS, offsets=(-2, -1, 1, 2)) -> Columns:
    """``<column>@<offset>`` for each offset, then each of ``names`` that ``base`` holds: the
    column's values moved by the offset (:func:`shift`). The base matrix gets its own from the
    core; Dragnet's layout reads its neighbours here."""
    names = [n for n in names if n in base.names]
    n = base.values.shape[0]
    src = base.values[:, [base.names.index(c) for c in names]]
    blocks = [shift(src, offset) for offset in offsets]
    out_names = [f"{c}@{offset:+d}" for offset in offsets for c in names]
    return Columns(tuple(out_names), np.hstack(blocks) if blocks else np.zeros((n, 0), np.float32))
