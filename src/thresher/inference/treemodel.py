"""Tree-ensemble and linear models stored as versioned ``.npz`` files, evaluated by the native core.

File layout (``numpy.savez_compressed``, or ``numpy.savez`` for arrays stored uncompressed; read
without pickle, and without numpy by :func:`~thresher.inference.modelfile.read_raw`, which the
extraction uses):

* ``header``: a JSON string with ``schema`` (``"thresher.model"``), ``version``,
  ``kind`` (``"trees"`` or ``"linear"``), ``feature_names`` and free-form
  ``meta`` (training command, seed, vocabulary, thresholds ...);
* for ``trees``: ``feature`` (int32, -1 at leaves), ``threshold`` (float64),
  ``left``/``right`` (int32 absolute node indices; leaves point to
  themselves), ``value`` (float64 leaf outputs), ``roots`` (int32), ``depth``
  and ``base`` (scalars). A row goes left when ``x[feature] <= threshold``.
* for ``linear``: ``mean``, ``scale``, ``coef`` (float64) and ``base``;
* for ``sequence`` (version 2): the header adds ``token_columns``, and the arrays are
  ``layers``, ``heads``, ``chunk`` and the float32 weights ``w.<name>`` of
  :class:`thresher.inference.seqmodel.SequenceNet`.

The margin is the sum of the leaf values (or the linear score) plus ``base``, or the
sequence network's output; probabilities are its logistic. Files of version 1 (trees and
linear models only) are read as they are.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _core
from .._lazy import LazyModule
from ..errors import ModelError
from .modelfile import SCHEMA, UNREADABLE, VERSION, read_raw
from .seqmodel import SequenceNet, from_arrays

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays


# Row types the core reads as they are; others are converted to float64 first.
_NATIVE_ROWS = ("float32", "float64")


@dataclass(frozen=True)
class TreeEnsemble:
    feature_names: tuple[str, ...]
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    depth: int
    base: float = 0.0
    meta: dict = field(default_factory=dict)

    kind = "trees"

    def margin(self, x: np.ndarray) -> np.ndarray:
        """Raw scores for the rows of ``x``, walked by the native core (float32 rows compare
        exactly as float64: every float32 converts to float64 without rounding)."""
        n, n_trees = x.shape[0], len(self.roots)
        if n == 0 or n_trees == 0:
            return np.full(n, self.base)
        rows = x if x.dtype.name in _NATIVE_ROWS and x.ndim == 2 and x.flags.c_contiguous else \
            np.ascontiguousarray(x, dtype=np.float64).reshape(n, -1)
        try:
            return self._compiled(rows.shape[1]).margins(rows)
        except ValueError as exc:
            raise ModelError(f"a tree model does not fit its rows: {exc}") from None

    def _compiled(self, width: int) -> _core.Trees:
        """The ensemble compiled by the core for rows of ``width`` columns, once per model
        (the rows of one model always have its features' width)."""
        compiled = self.__dict__.get("_trees")
        if compiled is None or compiled[0] != width:
            arrays = {name: np.ascontiguousarray(getattr(self, name), np.int32)
                      for name in ("feature", "left", "right", "roots")}
            arrays.update({name: np.ascontiguousarray(getattr(self, name), np.float64)
                           for name in ("threshold", "value")})
            try:
                trees = _core.Trees(arrays, depth=int(self.depth), width=width, base=float(self.base))
            except ValueError as exc:
                raise ModelError(f"a tree model does not fit its rows: {exc}") from None
            compiled = (width, trees)
            self.__dict__["_trees"] = compiled  # a cache of derived data, never changed after
        return compiled[1]

    def read_features(self) -> frozenset[str]:
        """Names of the features some split reads (the others cannot change a score)."""
        return frozenset(self.feature_names[i] for i in np.unique(self.feature[self.feature >= 0]).tolist())

    def with_feature_names(self, names: tuple[str, ...]) -> TreeEnsemble:
        """The same ensemble reading rows laid out as ``names`` (which must hold every feature it reads)."""
        position = {name: i for i, name in enumerate(names)}
        missing = self.read_features() - position.keys()
        if missing:
            raise ModelError(f"the new layout lacks features the trees read: {sorted(missing)[:5]}")
        remap = np.array([position.get(name, -1) for name in self.feature_names], np.int64)
        feature = np.where(self.feature >= 0, remap[np.maximum(self.feature, 0)], -1)
        return replace(self, feature_names=tuple(names), feature=feature)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"feature": self.feature, "threshold": self.threshold, "left": self.left, "right": self.right,
                "value": self.value, "roots": self.roots, "depth": np.asarray(self.depth),
                "base": np.asarray(self.base)}


@dataclass(frozen=True)
class LinearModel:
    feature_names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    base: float = 0.0
    meta: dict = field(default_factory=dict)

    kind = "linear"

    def margin(self, x: np.ndarray) -> np.ndarray:
        return ((x.astype(np.float64) - self.mean) / self.scale) @ self.coef + self.base

    def arrays(self) -> dict[str, np.ndarray]:
        return {"mean": self.mean, "scale": self.scale, "coef": self.coef, "base": np.asarray(self.base)}


def averaged(ensembles: Sequence[TreeEnsemble]) -> TreeEnsemble:
    """One ensemble whose margin is the mean of the ``ensembles``' margins (the average of
    their logits), laid out as the first one's features.

    The trees are concatenated with their leaf values divided by their count, so inference
    evaluates them as one model."""
    if not ensembles:
        raise ModelError("averaging needs at least one tree ensemble")
    names = ensembles[0].feature_names
    parts = [e.with_feature_names(names) for e in ensembles]
    share = 1.0 / len(parts)
    offsets = np.cumsum([0] + [len(e.feature) for e in parts[:-1]])
    cat = lambda key, shifted=False: np.concatenate(  # noqa: E731
        [getattr(e, key) + (o if shifted else 0) for e, o in zip(parts, offsets)])
    return TreeEnsemble(names, cat("feature"), cat("threshold"), cat("left", True), cat("right", True),
                        cat("value") * share, cat("roots", True), max(e.depth for e in parts),
                        sum(e.base for e in parts) * share, dict(parts[0].meta, averaged=len(parts)))


Model = TreeEnsemble | LinearModel | SequenceNet


def probability(model: Model, x: np.ndarray) -> np.ndarray:
    return sigmoid(model.margin(x))


def sigmoid(margin: np.ndarray) -> np.ndarray:
    """Probabilities from margins (logits)."""
    return 1.0 / (1.0 + np.exp(-margin))


def save(models: dict[str, Model], path: str | Path, meta: dict | None = None, *, compress: bool = True) -> None:
    """Write one or more named models into a single ``.npz`` file, its arrays deflated unless
    ``compress`` is false: stored as they are, a file loads without inflating them (the
    extractors' models, which a process's first extraction loads, are written so; a few times
    larger on disk, no larger in a wheel, which compresses them)."""
    arrays: dict[str, np.ndarray] = {}
    described: dict[str, dict[str, Any]] = {}
    header = {"schema": SCHEMA, "version": VERSION, "meta": meta or {}, "models": described}
    for name, model in models.items():
        described[name] = {"kind": model.kind, "feature_names": list(model.feature_names), "meta": model.meta}
        if isinstance(model, SequenceNet):
            described[name]["token_columns"] = list(model.token_columns)
        for key, value in model.arrays().items():
            arrays[f"{name}.{key}"] = value
    arrays["header"] = np.asarray(json.dumps(header))
    write = np.savez_compressed if compress else np.savez
    with open(path, "wb") as handle:
        write(handle, **arrays)  # type: ignore[arg-type]  # numpy's stub types allow_pickle only


def read(path: str | Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The parsed header and the arrays of a model file written by :func:`save`, as numpy
    arrays (see :func:`read_raw`)."""
    header, arrays = read_raw(path)
    try:
        return header, {key: raw.array() for key, raw in arrays.items()}
    except UNREADABLE as exc:
        raise ModelError(f"{path}: not a thresher model file ({type(exc).__name__}: {exc})") from None


def load(path: str | Path) -> tuple[dict[str, Model], dict]:
    """Read a model file written by :func:`save`; raise :class:`ModelError` when it is not one."""
    return build(path, *read(path))


def build(path: str | Path, header: dict, arrays: dict[str, np.ndarray]) -> tuple[dict[str, Model], dict]:
    """The models of a file read by :func:`read`, and its header's meta."""
    try:
        models = {name: _build(name, spec, arrays) for name, spec in header["models"].items()}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelError(f"{path}: model arrays are malformed ({type(exc).__name__}: {exc})") from None
    return models, header.get("meta", {})


def _build(name: str, spec: dict, arrays: dict[str, np.ndarray]) -> Model:
    get = lambda key: arrays[f"{name}.{key}"]  # noqa: E731
    names = tuple(spec["feature_names"])
    if spec["kind"] == "trees":
        return TreeEnsemble(names, get("feature").astype(np.int64), get("threshold"), get("left").astype(np.int64),
                            get("right").astype(np.int64), get("value"), get("roots").astype(np.int64),
                            int(get("depth")), float(get("base")), spec.get("meta", {}))
    if spec["kind"] == "linear":
        return LinearModel(names, get("mean"), get("scale"), get("coef"), float(get("base")), spec.get("meta", {}))
    if spec["kind"] == "sequence":
        return from_arrays(names, spec, get)
    raise ModelError(f"model {name!r}: unknown kind {spec['kind']!r}")


def from_lightgbm_dump(dump: dict, feature_names: tuple[str, ...], meta: dict | None = None) -> TreeEnsemble:
    """Convert ``Booster.dump_model()`` output into a :class:`TreeEnsemble` (iteratively)."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    roots: list[int] = []
    max_depth = 0
    for tree in dump["tree_info"]:
        roots.append(len(feature))
        stack: list[tuple[dict[str, Any], int | None, str | None, int]] = [(tree["tree_structure"], None, None, 0)]
        while stack:
            node, parent, side, depth = stack.pop()
            index = len(feature)
            if parent is not None:
                (left if side == "L" else right)[parent] = index
            max_depth = max(max_depth, depth)
            if "leaf_value" in node or "split_feature" not in node:
                feature.append(-1)
                threshold.append(0.0)
                left.append(index)
                right.append(index)
                value.append(float(node.get("leaf_value", 0.0)))
                continue
            if node.get("decision_type", "<=") != "<=":
                raise ModelError("only numerical '<=' splits are supported")
            feature.append(int(node["split_feature"]))
            threshold.append(float(node["threshold"]))
            left.append(-1)
            right.append(-1)
            value.append(0.0)
            stack.append((node["right_child"], index, "R", depth + 1))
            stack.append((node["left_child"], index, "L", depth + 1))
    return TreeEnsemble(feature_names, np.asarray(feature, np.int64), np.asarray(threshold, np.float64),
                        np.asarray(left, np.int64), np.asarray(right, np.int64), np.asarray(value, np.float64),
                        np.asarray(roots, np.int64), max_depth, 0.0, meta or {})
