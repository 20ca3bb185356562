"""Per-block feature contributions of a tree ensemble, in the manner of Saabas.

Each tree's output for a row is split along the row's decision path: every split moves
the expected output from the parent's value to the child's, and that change is credited
to the split's feature. Summed over the trees, a block's margin is then
``bias + sum(contributions)``, with ``bias`` the ensemble's base plus the roots' values.

The shipped ``.npz`` files keep leaf values only (:func:`thresher.inference.treemodel.from_lightgbm_dump`
stores 0 at internal nodes and drops LightGBM's ``internal_value`` and counts), so an internal
node's value is approximated here by the unweighted mean of its leaves' values, not by the
training-row-weighted mean LightGBM would use. The decomposition stays exact (bias plus
contributions is the margin); only the split of the margin between features is approximate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..inference.treemodel import TreeEnsemble


@dataclass(frozen=True)
class Contributions:
    """``values[i, j]``: what feature j added to block i's margin; ``bias[i]``: the rest."""

    feature_names: tuple[str, ...]
    values: np.ndarray  # (n_rows, n_features), float64, in logit units
    bias: np.ndarray  # (n_rows,)

    def top(self, row: int, k: int) -> list[tuple[int, float]]:
        """The ``k`` features (index, contribution) that moved ``row`` most, largest first."""
        line = self.values[row]
        order = np.argsort(-np.abs(line), kind="stable")[:k]
        return [(int(j), float(line[j])) for j in order if line[j] != 0.0]


def node_means(ensemble: TreeEnsemble) -> np.ndarray:
    """Every node's value: the leaf's own, or the mean of the leaves below an internal node.

    Nodes are stored parent before children, so one pass from the last node back to the
    first sees both children of a node before the node itself."""
    is_leaf = np.asarray(ensemble.feature) < 0
    total = np.where(is_leaf, np.asarray(ensemble.value, np.float64), 0.0)
    count = is_leaf.astype(np.float64)
    left, right = np.asarray(ensemble.left), np.asarray(ensemble.right)
    for node in np.flatnonzero(~is_leaf)[::-1].tolist():
        total[node] = total[left[node]] + total[right[node]]
        count[node] = count[left[node]] + count[right[node]]
    return total / np.maximum(count, 1.0)


def path_contributions(ensemble: TreeEnsemble, x: np.ndarray) -> Contributions:
    """Saabas contributions of every row of ``x`` (laid out as ``ensemble.feature_names``).

    All rows and trees walk down together, one level per step, as inference does."""
    x = np.asarray(x, np.float64)
    n, n_features = x.shape[0], len(ensemble.feature_names)
    means = node_means(ensemble)
    roots = np.asarray(ensemble.roots)
    feature, threshold = np.asarray(ensemble.feature), np.asarray(ensemble.threshold)
    left, right = np.asarray(ensemble.left), np.asarray(ensemble.right)
    values = np.zeros((n, n_features))
    bias = np.full(n, float(ensemble.base) + float(means[roots].sum()))
    nodes = np.broadcast_to(roots, (n, len(roots))).copy()
    rows = np.broadcast_to(np.arange(n)[:, None], nodes.shape)
    for _ in range(int(ensemble.depth) + 1):
        split = feature[nodes]
        active = split >= 0
        if not active.any():
            break
        columns = np.maximum(split, 0)
        goes_left = x[rows, columns] <= threshold[nodes]
        children = np.where(active, np.where(goes_left, left[nodes], right[nodes]), nodes)
        delta = np.where(active, means[children] - means[nodes], 0.0)
        np.add.at(values, (rows[active], columns[active]), delta[active])
        nodes = children
    return Contributions(tuple(ensemble.feature_names), values, bias)
