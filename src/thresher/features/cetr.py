"""CETR's unit features and clustering (Weninger, Hsu and Han, WWW 2010), shared by the CETR
algorithm (:mod:`thresher.algorithms.cetr`) and the flagship's Dragnet columns
(:func:`thresher.inference.learned.cetr_cluster`).

A unit is a line of the page source or a block of the document. Its point is (smoothed tag ratio,
derivative of the smoothed ratios); k-means with one centroid pinned at the origin splits the
points, and units outside the origin's cluster are content.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _core
from ..document.blocks import Document

# The paper's settings: the algorithm's defaults and the flagship's ``cetr_cluster`` column.
SIGMA = 1.0
RADIUS_SIGMAS = 3.0
ALPHA = 3
SEED_QUANTILES = (0.5, 0.95)
MAX_ITER = 100


class Clustering(NamedTuple):
    centroids: np.ndarray  # (k, 2); row 0 is the origin
    assignment: np.ndarray  # cluster per point


def tag_ratios(text_chars: np.ndarray, tag_counts: np.ndarray) -> np.ndarray:
    """Text characters per tag, a tagless line counting one tag."""
    return np.asarray(text_chars, dtype=np.float64) / np.maximum(np.asarray(tag_counts, dtype=np.float64), 1.0)


def gaussian_kernel(sigma: float, radius_sigmas: float) -> np.ndarray:
    """The normalised Gaussian kernel reaching ``ceil(radius_sigmas * sigma)`` lines each way
    (``[1.0]`` when that is 0 or ``sigma`` is not positive), computed by the core
    (``crates/core/src/features/cetr.rs``, shared with the flagship's ``cetr_*`` columns)."""
    return _core.gaussian_kernel(sigma, radius_sigmas)


def smooth(values: np.ndarray, sigma: float, radius_sigmas: float) -> np.ndarray:
    """Gaussian smoothing, the kernel renormalised over the lines it covers at the edges: the
    core's smoothing (the one the flagship's ``cetr_ratio`` uses, which extends the end values
    past the edges instead)."""
    return _core.gaussian_smooth(np.asarray(values, dtype=np.float64), sigma, radius_sigmas, edges="renormalise")


def derivative(smoothed: np.ndarray, alpha: int) -> np.ndarray:
    """``|mean of the next alpha values - value|`` (fewer near the end; 0 for the last)."""
    n = len(smoothed)
    out = np.zeros(n)
    if n < 2 or alpha < 1:
        return out
    cumulative = np.concatenate(([0.0], np.cumsum(smoothed)))
    index = np.arange(n - 1)
    stop = np.minimum(index + 1 + alpha, n)
    means = (cumulative[stop] - cumulative[index + 1]) / (stop - index - 1)
    out[:-1] = np.abs(means - smoothed[:-1])
    return out


def unit_points(text_chars: np.ndarray, tag_counts: np.ndarray, sigma: float = SIGMA,
                radius_sigmas: float = RADIUS_SIGMAS, alpha: int = ALPHA) -> np.ndarray:
    """The (smoothed ratio, derivative) point of every unit, shape (n, 2)."""
    smoothed = smooth(tag_ratios(text_chars, tag_counts), sigma, radius_sigmas)
    return np.column_stack((smoothed, derivative(smoothed, alpha)))


# ------------------------------------------------------------------ k-means

def seed_centroids(points: np.ndarray, quantiles: tuple[float, ...]) -> np.ndarray:
    """The origin, then the points at the given quantiles of distance from the origin."""
    order = np.argsort(np.hypot(points[:, 0], points[:, 1]), kind="stable")
    picks = [order[min(len(order) - 1, round(q * (len(order) - 1)))] for q in quantiles]
    return np.vstack((np.zeros((1, 2)), points[picks]))


def assign(points: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Nearest centroid per point; ties go to the lower index (the origin first)."""
    d = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    return np.argmin(d, axis=1)


def kmeans_origin(points: np.ndarray, quantiles: tuple[float, ...] = SEED_QUANTILES,
                  max_iter: int = MAX_ITER) -> Clustering:
    """Lloyd's k-means with centroid 0 pinned at the origin; deterministic."""
    if not len(points):
        return Clustering(np.zeros((len(quantiles) + 1, 2)), np.zeros(0, dtype=np.int64))
    centroids = seed_centroids(points, quantiles)
    assignment = assign(points, centroids)
    for _ in range(max_iter):
        centroids = _update(points, assignment, centroids)
        new = assign(points, centroids)
        if np.array_equal(new, assignment):
            break
        assignment = new
    return Clustering(centroids, assignment)


def _update(points: np.ndarray, assignment: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Means of the free clusters (an empty one keeps its centroid); the origin stays put."""
    out = centroids.copy()
    for c in range(1, len(centroids)):
        members = assignment == c
        if members.any():
            out[c] = points[members].mean(axis=0)
    return out


def is_content(clustering: Clustering) -> np.ndarray:
    """Lines outside the origin's cluster are content."""
    return clustering.assignment != 0


def block_units(doc: Document) -> tuple[np.ndarray, np.ndarray]:
    """(text chars, tag counts) of every block, the document's blocks playing the lines."""
    return (np.array([b.char_count for b in doc.blocks], dtype=np.int64),
            np.array([b.tag_count for b in doc.blocks], dtype=np.int64))


def block_content(doc: Document) -> np.ndarray:
    """CETR's decision per block with the paper's settings: True outside the origin's cluster."""
    chars, tags = block_units(doc)
    return is_content(kmeans_origin(unit_points(chars, tags)))
