"""CETR's unit features and clustering (Weninger, Hsu and Han, WWW 2010), shared by the CETR
algorithm (:mod:`thresher.algorithms.cetr`) and the flagship's Dragnet columns
(:func:`thresher.inference.learned.cetr_cluster`).

A unit is a line of the page source or a block of the document. Its point is (smoothed tag ratio,
derivative of the smoothed ratios); k-means with one centroid pinned at the origin splits the
points, and units outside the origin's cluster are content.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .. import _core
from .._lazy import LazyModule
from ..document.blocks import Document

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays

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
    """``|mean of the next alpha values - value|`` (fewer near the end; 0 for the last), computed
    by the core."""
    return _core.cetr_derivative(np.asarray(smoothed, dtype=np.float64), alpha)


def unit_points(text_chars: np.ndarray, tag_counts: np.ndarray, sigma: float = SIGMA,
                radius_sigmas: float = RADIUS_SIGMAS, alpha: int = ALPHA) -> np.ndarray:
    """The (smoothed ratio, derivative) point of every unit, shape (n, 2)."""
    smoothed = smooth(tag_ratios(text_chars, tag_counts), sigma, radius_sigmas)
    return np.column_stack((smoothed, derivative(smoothed, alpha)))


# ------------------------------------------------------------------ k-means

def assign(points: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Nearest centroid per point; ties go to the lower index (the origin first)."""
    d = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    return np.argmin(d, axis=1)


def kmeans_origin(points: np.ndarray, quantiles: tuple[float, ...] = SEED_QUANTILES,
                  max_iter: int = MAX_ITER) -> Clustering:
    """Lloyd's k-means with centroid 0 pinned at the origin, seeded with the origin and the points
    at ``quantiles`` of distance from it (the nearest first); the free clusters move to their
    members' means (an empty one keeps its centroid) until no point changes cluster, at most
    ``max_iter`` times. Deterministic; computed by the core (``crates/core/src/features/cetr.rs``,
    which Dragnet's ``cetr_cluster`` column reads too)."""
    centroids, assignment = _core.kmeans_origin(np.ascontiguousarray(points, np.float64).reshape(-1, 2),
                                                list(quantiles), max_iter)
    return Clustering(centroids, assignment)


def is_content(clustering: Clustering) -> np.ndarray:
    """Lines outside the origin's cluster are content."""
    return clustering.assignment != 0


def block_units(doc: Document) -> tuple[np.ndarray, np.ndarray]:
    """(text chars, tag counts) of every block, the document's blocks playing the lines."""
    return (np.array([b.char_count for b in doc.blocks], dtype=np.int64),
            np.array([b.tag_count for b in doc.blocks], dtype=np.int64))


def block_content(doc: Document) -> np.ndarray:
    """CETR's decision per block with the paper's settings: True outside the origin's cluster
    (the core's ``cetr::block_content``, which Dragnet's ``cetr_cluster`` column reads)."""
    return doc.native.cetr_content()
