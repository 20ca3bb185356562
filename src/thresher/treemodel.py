"""Tree-ensemble and linear models stored as versioned ``.npz`` files, evaluated with numpy alone.

File layout (``numpy.savez_compressed``, loaded with ``allow_pickle=False``):

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
  :class:`thresher.seqmodel.SequenceNet`.

The margin is the sum of the leaf values (or the linear score) plus ``base``, or the
sequence network's output; probabilities are its logistic. Files of version 1 (trees and
linear models only) are read as they are.
"""
from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from .errors import ModelError
from .seqmodel import SequenceNet, from_arrays

SCHEMA = "thresher.model"
VERSION = 2
READABLE_VERSIONS = (1, 2)
# Ensembles no deeper than this are evaluated as complete binary trees (see CompleteTrees).
COMPLETE_MAX_DEPTH = 10


class CompleteTrees(NamedTuple):
    """An ensemble padded to complete binary trees of one depth, in heap order.

    Node ``h`` has children ``2h + 1`` and ``2h + 2``; a leaf above the last
    level becomes a chain of padding nodes that always go left (threshold
    +inf), and every last-level position under it holds its value. A row then
    needs no leaf test and no bookkeeping: ``levels`` gathers and compares.
    """

    levels: int
    feature: np.ndarray  # (trees, 2**levels - 1)
    threshold: np.ndarray  # (trees, 2**levels - 1)
    value: np.ndarray  # (trees, 2**levels)
    threshold32: np.ndarray  # ``threshold`` rounded down to float32 (see float32_below)

    @property
    def tree_number(self) -> np.ndarray:
        return np.arange(self.feature.shape[0], dtype=np.int32)[None, :]

    @property
    def tree_offset(self) -> np.ndarray:
        """Index of each tree's root in the flattened (trees, 2**levels - 1) arrays, as a row."""
        return self.tree_number * self.feature.shape[1]


def float32_below(threshold: np.ndarray) -> np.ndarray:
    """Each threshold rounded down to the largest float32 not above it.

    For a float32 ``x``, ``x > t`` holds exactly when ``x > float32_below(t)``: no
    float32 lies strictly between the two, so comparisons in float32 take the same
    branches as in float64.
    """
    with np.errstate(over="ignore"):  # beyond float32's range: +-inf, then the largest float32 below
        nearest = threshold.astype(np.float32)
        above = nearest.astype(np.float64) > threshold
        return np.where(above, np.nextafter(nearest, np.float32(-np.inf)), nearest)


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
        """Raw scores for the rows of ``x``."""
        n, n_trees = x.shape[0], len(self.roots)
        if n == 0 or n_trees == 0:
            return np.full(n, self.base)
        complete = self.complete
        if complete is not None:
            return self._complete_margin(complete, x)
        return self._path_margin(x)

    @cached_property
    def complete(self) -> CompleteTrees | None:
        """The heap layout of a shallow ensemble (built once per loaded model), else None."""
        levels = self.depth
        if levels > COMPLETE_MAX_DEPTH or levels < 1:
            return None
        inner = 2 ** levels - 1
        n_trees = len(self.roots)
        feature = np.zeros((n_trees, inner), np.int32)
        threshold = np.full((n_trees, inner), np.inf)
        value = np.zeros((n_trees, inner + 1))
        for t, root in enumerate(self.roots.tolist()):
            stack = [(root, 0, 0)]  # (node, heap position, depth)
            while stack:
                node, heap, depth = stack.pop()
                if self.feature[node] < 0:
                    width = 2 ** (levels - depth)
                    first = (heap + 1) * width - 1 - inner
                    value[t, first:first + width] = self.value[node]
                    continue
                feature[t, heap], threshold[t, heap] = self.feature[node], self.threshold[node]
                stack.append((int(self.left[node]), 2 * heap + 1, depth + 1))
                stack.append((int(self.right[node]), 2 * heap + 2, depth + 1))
        return CompleteTrees(levels, feature, threshold, value, float32_below(threshold))

    def _complete_margin(self, c: CompleteTrees, x: np.ndarray) -> np.ndarray:
        """Each (row, tree) keeps its absolute node index ``t * inner + h``; a level
        moves it to ``t * inner + 2h + 1 + go_right``, that is ``2 * node + go_right +
        (1 - t * inner)``. Every row starts at the roots, so the first level reads one
        column per tree directly. The gathers write into buffers allocated once
        (``mode="clip"``: ``take`` would otherwise copy through a temporary; every
        index is in range by construction)."""
        n, width = x.shape
        n_trees, inner = c.feature.shape
        # float32 rows are compared in float32, exactly (see float32_below), at half the memory traffic
        dtype = np.float32 if x.dtype == np.float32 else np.float64
        thresholds = c.threshold32 if dtype == np.float32 else c.threshold
        x = np.ascontiguousarray(x, dtype=dtype)
        flat_x = x.ravel()
        feature, threshold = c.feature.ravel(), thresholds.ravel()
        step = 1 - c.tree_offset
        index_type = np.int32 if n * width < 2 ** 31 else np.int64
        row_offset = (np.arange(n, dtype=index_type) * width)[:, None]
        go_right = np.empty((n, n_trees), bool)  # row-major, like every buffer here
        np.greater(x[:, c.feature[:, 0]], thresholds[:, 0], out=go_right)
        node = np.empty((n, n_trees), index_type)
        np.add(c.tree_offset + 1, go_right, out=node)  # the roots' children
        index = np.empty_like(node)
        x_value, cut = np.empty((n, n_trees), dtype), np.empty((n, n_trees), dtype)
        for _ in range(c.levels - 1):
            np.take(feature, node, out=index, mode="clip")
            index += row_offset
            np.take(flat_x, index, out=x_value, mode="clip")
            np.take(threshold, node, out=cut, mode="clip")
            np.greater(x_value, cut, out=go_right)
            node *= 2
            node += go_right
            node += step
        # leaf position in ``value`` (trees, inner + 1): t * (inner + 1) + h - inner = node + t - inner
        node += c.tree_number
        node -= inner
        return c.value.ravel()[node].sum(axis=1) + self.base

    def _path_margin(self, x: np.ndarray) -> np.ndarray:
        """All (row, tree) paths walked at once, level by level; a path leaves
        the active set as soon as it reaches a leaf, so the work is the total
        path length rather than rows x trees x the deepest tree (deep trees)."""
        n, n_trees = x.shape[0], len(self.roots)
        flat_x = np.ascontiguousarray(x, dtype=np.float64).ravel()
        width = x.shape[1]
        children = np.stack([self.left, self.right], axis=1)  # column 0: go left, 1: go right
        node = np.tile(self.roots, n)
        row_offset = np.repeat(np.arange(n, dtype=np.int64) * width, n_trees)
        active = np.arange(n * n_trees)
        for _ in range(self.depth):
            current = node[active]
            feature = self.feature[current]
            inner = feature >= 0
            if not inner.all():
                active, current, feature = active[inner], current[inner], feature[inner]
                if active.size == 0:
                    break
            go_right = flat_x[row_offset[active] + feature] > self.threshold[current]
            node[active] = children[current, go_right.view(np.int8)]
        return self.value[node].reshape(n, n_trees).sum(axis=1) + self.base

    def read_features(self) -> frozenset[str]:
        """Names of the features some split reads (the others cannot change a score)."""
        return frozenset(self.feature_names[i] for i in np.unique(self.feature[self.feature >= 0]).tolist())

    def with_feature_names(self, names: tuple[str, ...]) -> "TreeEnsemble":
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


def save(models: dict[str, Model], path: str | Path, meta: dict | None = None) -> None:
    """Write one or more named models into a single ``.npz`` file."""
    arrays: dict[str, np.ndarray] = {}
    header = {"schema": SCHEMA, "version": VERSION, "meta": meta or {}, "models": {}}
    for name, model in models.items():
        header["models"][name] = {"kind": model.kind, "feature_names": list(model.feature_names),
                                  "meta": model.meta}
        if isinstance(model, SequenceNet):
            header["models"][name]["token_columns"] = list(model.token_columns)
        for key, value in model.arrays().items():
            arrays[f"{name}.{key}"] = value
    arrays["header"] = np.asarray(json.dumps(header))
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


_UNREADABLE = (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, zlib.error)


def load(path: str | Path) -> tuple[dict[str, Model], dict]:
    """Read a model file written by :func:`save`; raise :class:`ModelError` when it is not one."""
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ModelError(f"{path}: not a thresher model file (a bare array, not an .npz archive)")
        with data:
            header = json.loads(str(data["header"]))
            arrays = {key: data[key] for key in data.files if key != "header"}
    except _UNREADABLE as exc:
        raise ModelError(f"{path}: not a thresher model file ({type(exc).__name__}: {exc})") from None
    if not isinstance(header, dict) or not isinstance(header.get("models"), dict):
        raise ModelError(f"{path}: model header is malformed")
    if header.get("schema") != SCHEMA:
        raise ModelError(f"{path}: schema {header.get('schema')!r} is not {SCHEMA!r}")
    if header.get("version") not in READABLE_VERSIONS:
        raise ModelError(f"{path}: model version {header.get('version')} unsupported "
                         f"(this thresher reads {', '.join(map(str, READABLE_VERSIONS))})")
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
    feature, threshold, left, right, value, roots = [], [], [], [], [], []
    max_depth = 0
    for tree in dump["tree_info"]:
        roots.append(len(feature))
        stack = [(tree["tree_structure"], None, None, 0)]
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
