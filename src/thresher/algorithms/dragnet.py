"""``dragnet``: Peters & Lecocq (WWW 2013).

Blocks -> shallow-text features of the previous, current and next block
(Kohlschütter et al.), binary id/class-token features (tokens chosen by their
content/no-content odds ratio on the training data) and CETR features (the
smoothed tag ratio, its derivative and the k-means cluster they put the block
in) -> one classifier, scored by the core in one call
(:func:`thresher.inference.learned.score_page`). Two models: content
only (``dragnet``) and content plus user comments (``dragnet-comments``).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..document.blocks import Document
from ..inference import learned as L
from .base import Algorithm, Classification, Context


@dataclass(frozen=True)
class Params:
    """threshold: content probability at which a block is kept (None: the model's own)."""

    threshold: float | None = None


def _runner(model_file: str):
    def run(doc: Document, params: Params, context: Context) -> Classification:
        model = L.load_learned(context.model or L.shipped_model_path(model_file))
        threshold = model.threshold if params.threshold is None else params.threshold
        # One native call: Dragnet's columns, its one model and the threshold (no fallback).
        native = L.score_page(model, doc, context.language, smoothing=False, decoding="threshold",
                              threshold=threshold, never_empty=False)
        labels, p = native.classification()
        reasons = tuple(f"p={x:.2f} (threshold {threshold:.2f})" for x in p) if context.explain else ()
        return Classification(labels, p, reasons)
    return run


ALGORITHMS = (
    Algorithm(name="dragnet", params_type=Params, run_fn=_runner("dragnet.npz"),
              summary="Dragnet: shallow-text, id/class-token and CETR features in one learned model",
              source="Peters & Lecocq, Content Extraction Using Diverse Feature Sets, WWW 2013"),
    Algorithm(name="dragnet-comments", params_type=Params, run_fn=_runner("dragnet-comments.npz"),
              summary="Dragnet's content+comments model: main content and user comments",
              source="Peters & Lecocq, Content Extraction Using Diverse Feature Sets, WWW 2013"),
)
