"""CETR: content extraction via tag ratios (Weninger, Hsu and Han, WWW 2010), the 2-D k-means variant.

1. Lines: the page source without script, style and comments, blank lines
   dropped (:func:`thresher.algorithms.lines.source_lines`); with
   ``unit="block"`` the document's blocks play the lines.
2. Tag ratio per line: text characters / tags (a line without tags counts 1).
3. Smoothing: a Gaussian kernel (``sigma`` lines, radius ``ceil(radius_sigmas * sigma)``),
   renormalised where it runs past the first or last line.
4. Derivative: ``G[k] = |mean(T'[k+1 .. k+alpha]) - T'[k]|`` over the smoothed
   ratios ``T'`` (the following lines that exist; 0 for the last line).
5. Clustering: the points ``(T'[k], G[k])`` go to k-means with ``k`` clusters,
   one centroid pinned at the origin throughout. Lines in the origin's cluster
   are boilerplate, the others content. The free centroids start at the
   points whose distance from the origin ranks at the ``seed_quantiles`` of all
   distances (deterministic; ties in assignment go to the lower cluster, the
   origin first).
6. Lines reach the blocks as in the density filter: each block takes the
   decision of the lines holding at least half of its text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _core
from ..document.blocks import Document
from .base import Algorithm, Classification, Context
from .lines import align_blocks, block_labels, page_source, source_lines

UNITS = ("line", "block")


@dataclass(frozen=True)
class Params:
    """CETR-KM's settings; the defaults follow the paper.

    unit: "line" (lines of the page source; needs the source, else blocks are
        used and the reasons say so) or "block" (the document's blocks).
    sigma: standard deviation of the Gaussian smoothing, in lines.
    radius_sigmas: kernel radius in sigmas.
    alpha: following lines the derivative looks at.
    k: clusters, the origin's included.
    seed_quantiles: distance quantiles of the free centroids' starting points
        (k - 1 of them).
    max_iter: Lloyd iterations at most.
    """

    unit: str = "line"
    sigma: float = 1.0
    radius_sigmas: float = 3.0
    alpha: int = 3
    k: int = 3
    seed_quantiles: tuple[float, ...] = (0.5, 0.95)
    max_iter: int = 100

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, not {self.unit!r}")
        if len(self.seed_quantiles) != self.k - 1:
            raise ValueError("seed_quantiles needs k - 1 quantiles")


class Clustering(NamedTuple):
    centroids: np.ndarray  # (k, 2); row 0 is the origin
    assignment: np.ndarray  # cluster per point


# ------------------------------------------------------------------ features

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


def features(text_chars: np.ndarray, tag_counts: np.ndarray, p: Params) -> np.ndarray:
    """The (smoothed ratio, derivative) point of every line, shape (n, 2)."""
    smoothed = smooth(tag_ratios(text_chars, tag_counts), p.sigma, p.radius_sigmas)
    return np.column_stack((smoothed, derivative(smoothed, p.alpha)))


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


def kmeans_origin(points: np.ndarray, quantiles: tuple[float, ...], max_iter: int = 100) -> Clustering:
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


# ------------------------------------------------------------------ running

def line_units(doc: Document, p: Params, source: str | None):
    """(texts, text chars, tag counts, unit used) for ``p.unit``."""
    if p.unit == "line" and source is not None:
        lines = source_lines(source)
        return ([line.text for line in lines], np.array([len(line.text) for line in lines], dtype=np.int64),
                np.array([line.tag_count for line in lines], dtype=np.int64), "line")
    return ([b.text for b in doc.blocks], np.array([b.char_count for b in doc.blocks], dtype=np.int64),
            np.array([b.tag_count for b in doc.blocks], dtype=np.int64), "block")


def decide(doc: Document, p: Params, source: str | None = None) -> Classification:
    texts, chars, tags, unit = line_units(doc, p, source)
    points = features(chars, tags, p)
    clustering = kmeans_origin(points, p.seed_quantiles, p.max_iter)
    keep = is_content(clustering)
    if unit == "block":
        suffix = "" if unit == p.unit else " (no page source: block units)"
        reasons = [f"ratio {x:.1f}, derivative {g:.1f}: cluster {c}{' (origin)' if c == 0 else ''}{suffix}"
                   for (x, g), c in zip(points.tolist(), clustering.assignment.tolist())]
        return Classification.from_labels(keep.tolist(), reasons, points[:, 0].tolist())
    alignment = align_blocks([b.text for b in doc.blocks], texts)
    labels, shares = block_labels(alignment, keep.tolist())
    reasons = [f"{share:.0%} of its source text on content-cluster lines" if pairs
               else "not found in the source lines" for share, pairs in zip(shares, alignment)]
    return Classification.from_labels(labels, reasons, shares)


def run(doc: Document, p: Params, context: Context) -> Classification:
    return decide(doc, p, page_source(doc, context))


ALGORITHM = Algorithm(
    name="cetr", params_type=Params, run_fn=run, needs_language=False, needs_attributes=False,
    summary="CETR: per-line text-to-tag ratios, smoothed, clustered with their derivative by k-means around the origin",
    source="Weninger, Hsu and Han, CETR: Content Extraction via Tag Ratios (WWW 2010)")
