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

import numpy as np

from ..document.blocks import Document
from ..features.cetr import (
    ALPHA,
    MAX_ITER,
    RADIUS_SIGMAS,
    SEED_QUANTILES,
    SIGMA,
    Clustering,
    assign,
    block_units,
    derivative,
    gaussian_kernel,
    is_content,
    kmeans_origin,
    smooth,
    tag_ratios,
    unit_points,
)
from .base import Algorithm, Classification, Context
from .lines import align_blocks, block_labels, page_source, source_lines

UNITS = ("line", "block")

# The unit features and k-means live in the features layer, shared with the flagship's columns.
__all__ = ["ALGORITHM", "UNITS", "Clustering", "Params", "assign", "decide", "derivative", "features",
           "gaussian_kernel", "is_content", "kmeans_origin", "line_units", "run", "smooth", "tag_ratios"]


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
    sigma: float = SIGMA
    radius_sigmas: float = RADIUS_SIGMAS
    alpha: int = ALPHA
    k: int = len(SEED_QUANTILES) + 1
    seed_quantiles: tuple[float, ...] = SEED_QUANTILES
    max_iter: int = MAX_ITER

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, not {self.unit!r}")
        if len(self.seed_quantiles) != self.k - 1:
            raise ValueError("seed_quantiles needs k - 1 quantiles")


def features(text_chars: np.ndarray, tag_counts: np.ndarray, p: Params) -> np.ndarray:
    """The (smoothed ratio, derivative) point of every line, shape (n, 2)."""
    return unit_points(text_chars, tag_counts, p.sigma, p.radius_sigmas, p.alpha)


# ------------------------------------------------------------------ running

def line_units(doc: Document, p: Params, source: str | None):
    """(texts, text chars, tag counts, unit used) for ``p.unit``."""
    if p.unit == "line" and source is not None:
        lines = source_lines(source)
        return ([line.text for line in lines], np.array([len(line.text) for line in lines], dtype=np.int64),
                np.array([line.tag_count for line in lines], dtype=np.int64), "line")
    chars, tags = block_units(doc)
    return [b.text for b in doc.blocks], chars, tags, "block"


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
    name="cetr", params_type=Params, run_fn=run, needs_language=False, needs_attributes=False, needs_source=True,
    summary="CETR: per-line text-to-tag ratios, smoothed, clustered with their derivative by k-means around the origin",
    source="Weninger, Hsu and Han, CETR: Content Extraction via Tag Ratios (WWW 2010)")
