"""``thresher``: the learned flagship extractor (the default).

Two stages of gradient-boosted trees over several hundred block features
(shallow text, DOM context and id/class cues, CETR, page-level structured-data
cues, repeated texts and the main heading, neighbour windows, selected id/class
tokens). Stage 2 sees the stage-1 scores of each block's neighbours and of its
ancestors' subtrees, and where the block lies against the page's main run of
confident content, which smooths the decision over reading order and over the
tree; a block of that run which stage 1 is confident about keeps its own score
(:func:`thresher.learned.guard_confident`). Trained on labelled pages by
``thresher train``; the shipped model lives in ``thresher/models/thresher.npz``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import learned as L
from ..blocks import Document
from .base import Algorithm, Classification, Context

MODEL_FILE = "thresher.npz"


@dataclass(frozen=True)
class Params:
    """threshold: content probability at which a block is kept (None: the model's own).
    smoothing: use stage 2 (context over neighbours and ancestors); False keeps stage 1 only.
    confident: a block of the page's main run whose stage-1 probability reaches this keeps
        at least that probability after stage 2 (see :func:`thresher.learned.guard_confident`);
        above 1 turns the guard off.
    never_empty: when no block reaches the threshold, keep the blocks scoring at least
        ``fallback_ratio`` of the best score instead of returning nothing (a page with text
        always has a best guess, and an empty answer scores zero for every reader).
    """

    threshold: float | None = None
    smoothing: bool = True
    confident: float = 0.7
    never_empty: bool = True
    fallback_ratio: float = 0.5


class Scores(NamedTuple):
    """Per-block probabilities of one page: stage 1's (``own``), stage 2's (``context``;
    stage 1's again without smoothing) and the ``final`` ones after the main-run guard."""

    own: np.ndarray
    context: np.ndarray
    final: np.ndarray
    model: L.LearnedModel


def scores(doc: Document, context: Context, smoothing: bool = True,
           confident: float = Params.confident) -> Scores:
    model = L.load_learned(context.model or L.shipped_model_path(MODEL_FILE))
    stage2 = model.models.get("stage2") if smoothing else None
    own, in_context, final = L.two_stage_scores(model.stage("stage1"), stage2, L.page_features(doc, context.language),
                                                model.vocabulary, confident)
    return Scores(own, in_context, final, model)


def nothing_kept(keep: np.ndarray) -> bool:
    return not keep.any()


def decide(p: np.ndarray, threshold: float, params: Params) -> tuple[np.ndarray, float]:
    """Labels and the threshold actually applied (lowered by the never-empty fallback)."""
    keep = p >= threshold
    if params.never_empty and len(p) and nothing_kept(keep):
        threshold = float(p.max()) * params.fallback_ratio
        keep = p >= threshold
    return keep, threshold


def reason(own: float, in_context: float, final: float, threshold: float) -> str:
    guarded = ", confident in the main run" if final > in_context else ""
    return f"p={final:.2f} (own {own:.2f}{guarded}, threshold {threshold:.2f})"


def run(doc: Document, params: Params, context: Context) -> Classification:
    p = scores(doc, context, params.smoothing, params.confident)
    threshold = p.model.threshold if params.threshold is None else params.threshold
    keep, threshold = decide(p.final, threshold, params)
    reasons = ([reason(*row, threshold) for row in zip(p.own.tolist(), p.context.tolist(), p.final.tolist())]
               if context.explain else ())
    return Classification.from_labels(keep, reasons, p.final)


ALGORITHM = Algorithm(
    name="thresher", params_type=Params, run_fn=run,
    summary="learned two-stage tree ensemble over text, DOM, cue and structure features (default)",
    source="thresher; features after Kohlschütter et al. 2010, Peters & Lecocq 2013, Weninger et al. 2010")
