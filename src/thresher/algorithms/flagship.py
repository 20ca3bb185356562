"""``thresher``: the learned flagship extractor (the default).

Two stages of gradient-boosted trees over several hundred block features
(shallow text, DOM context and id/class cues, CETR, page-level structured-data
cues, repeated and twice-rendered texts, template paths, the main heading,
neighbour windows, selected id/class tokens). Stage 2 sees the stage-1 scores of
each block's neighbours and of its ancestors' subtrees, and where the block lies
against the page's main run of confident content, which smooths the decision over
reading order and over the tree; a block of that run which stage 1 is confident
about keeps its own score (:func:`thresher.inference.learned.guard_confident`). Stage 2 is
evaluated only on the blocks stage 1 is unsure of (:func:`thresher.inference.learned.uncertain`); it is
two tree models with their own inner folds and seeds, averaged in one ensemble. The trees'
scores are averaged with a small block-sequence network (:mod:`thresher.inference.seqmodel`)
that reads the whole page's base columns in reading order. Trained on labelled
pages by ``thresher train``; the shipped model lives in
``thresher/models/thresher.npz``.

``thresher-accurate`` averages the two stages with a wider network
(``thresher/models/thresher-accurate.npz``). Its model predates the default's latest columns and
now scores below the default in cross-validation and on Readability's test pages.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _core
from ..document.blocks import Document
from ..inference import learned as L
from .base import Algorithm, Classification, Context

MODEL_FILE = "thresher.npz"
ACCURATE_MODEL_FILE = "thresher-accurate.npz"


@dataclass(frozen=True)
class Params:
    """threshold: a fixed content probability at which a block is kept; it overrides the
        model's decoding. None: the model's own rule.
    decoding: "expected_f1" (keep the blocks above the cut that maximises the page's expected
        word F1, see :func:`expected_f1_cut`) or "threshold" (the model's threshold). None: the
        model's own (its file's ``decoding``; files without one use their threshold).
    smoothing: use stage 2 (context over neighbours and ancestors); False keeps stage 1 only.
    confident: a block of the page's main run whose stage-1 probability reaches this keeps
        at least that probability after stage 2 (see :func:`thresher.inference.learned.guard_confident`);
        above 1 turns the guard off.
    certain: stage 2 is evaluated only on the blocks whose stage-1 probability lies within
        [certain, 1 - certain]; the others keep their stage-1 probability (about half the
        blocks, at no measurable cost in F1: see :func:`thresher.inference.learned.uncertain`). 0
        evaluates it on every block.
    never_empty: when no block reaches a fixed threshold, keep the blocks scoring at least
        ``fallback_ratio`` of the best score instead of returning nothing (a page with text
        always has a best guess, and an empty answer scores zero for every reader).
    allow_empty: the expected-F1 decoding keeps nothing when the page more likely has no main
        content at all than any cut is expected to score (see :func:`expected_f1_cut`). Off by
        default: it empties error and script-shell pages, and also tiny pages of one or two
        real paragraphs, whose scores stage 2 pulls down for want of context.
    beta: the expected-F1 decoding maximises the expected F-beta instead: below 1 it favours
        precision (a higher cut), above 1 recall (a lower cut). ``favor_precision`` and
        ``favor_recall`` set it.
    """

    threshold: float | None = None
    decoding: str | None = None
    smoothing: bool = True
    confident: float = 0.7
    certain: float = 0.05
    never_empty: bool = True
    fallback_ratio: float = 0.5
    allow_empty: bool = False
    beta: float = 1.0

    def __post_init__(self) -> None:
        if not self.beta > 0:
            raise ValueError(f"beta must be positive, not {self.beta!r}")
        if self.decoding is not None and self.decoding not in L.DECODINGS:
            raise ValueError(f"decoding must be one of {', '.join(L.DECODINGS)}, not {self.decoding!r}")


class Scores(NamedTuple):
    """Per-block probabilities of one page (:class:`thresher.inference.learned.StageScores`; without
    smoothing, stage 2's are stage 1's), the labels and cut of the decoding, and the model that
    gave them."""

    stages: L.StageScores
    labels: tuple[bool, ...]
    cut: float
    model: L.LearnedModel

    @property
    def final(self) -> np.ndarray:
        return self.stages.final


def scores(doc: Document, context: Context, params: Params = Params(), model_file: str = MODEL_FILE) -> Scores:
    """``doc`` scored and decoded under ``params`` in one native call
    (:func:`thresher.inference.learned.score_page`)."""
    model = L.load_learned(context.model or L.shipped_model_path(model_file))
    native = _score(model, doc, context, params)
    return Scores(L.stage_scores(native), tuple(native.labels.tolist()), native.cut, model)


def _score(model: L.LearnedModel, doc: Document, context: Context, params: Params) -> _core.Scores:
    decoding, threshold = decoding_rule(params, model)
    return L.score_page(model, doc, context.language, smoothing=params.smoothing, confident=params.confident,
                        certain=params.certain, decoding=decoding, threshold=threshold,
                        never_empty=params.never_empty, fallback_ratio=params.fallback_ratio,
                        allow_empty=params.allow_empty, beta=params.beta)


def expected_f1_cut(p: np.ndarray, words: np.ndarray, allow_empty: bool = False, beta: float = 1.0) -> float:
    """The probability cut that maximises the page's expected word F1 (computed by the core,
    ``crates/core/src/learned/decode.rs``, the decoding :func:`scores` applies).

    Read as the chance that block i (``words[i]`` words) is content, ``p`` gives
    keeping the blocks at or above a cut an expected F1 of about
    2 * sum_kept(p * w) / (sum_kept(w) + sum_all(p * w)): the expected overlap over
    the sizes of the kept text and of the expected content. One sorted scan tries
    every cut. Unlike a fixed threshold the cut follows the page: it goes down where
    the content is a few uncertain blocks and up where doubtful blocks would dilute
    a long article. Two learned alternatives did no better (a tree model choosing
    among candidate cuts, isotonic recalibration of ``p``); what is left is in the
    ranking, not in the cut (docs/design-measurements.md).

    With ``allow_empty``, keeping nothing is one more choice: it is exact when no block
    is content, which has probability prod(1 - p). When that beats every cut the result
    is ``inf`` (nothing is kept): the page most likely has no main content (an error or
    consent page, a shell filled in by scripts). It also empties tiny pages of one or two
    short paragraphs, which is why the flagship does not use it unless asked
    (``Params(allow_empty=True)``; measured in docs/design-measurements.md).

    ``beta`` other than 1 maximises the expected F-beta, (1 + b^2) * sum_kept(p * w) /
    (sum_kept(w) + b^2 * sum_all(p * w)), the same scan with other weights.
    """
    return _core.expected_f1_cut(np.asarray(p, np.float64).tolist(), np.asarray(words, np.float64).tolist(),
                                 allow_empty, beta)


def block_words(doc: Document) -> np.ndarray:
    """Words per block (at least one: every block has text), the expected-F1 weights."""
    return np.maximum(1.0, doc.numbers.words)


def decoding_rule(params: Params, model: L.LearnedModel) -> tuple[str, float]:
    """(decoding, threshold) for this model under ``params``: a fixed threshold wins."""
    if params.threshold is not None:
        return "threshold", params.threshold
    return params.decoding or model.decoding, model.threshold


def decide_page(p: np.ndarray, doc: Document, decoding: str, threshold: float,
                params: Params) -> tuple[np.ndarray, float]:
    """Labels of ``doc``'s blocks and the cut applied: the page's expected-F1 cut (``inf``
    when it keeps nothing, see ``Params.allow_empty``), or ``threshold`` under the
    "threshold" decoding, lowered to ``fallback_ratio`` of the best score when nothing
    reaches it and ``params.never_empty`` (the core's decoding, as :func:`scores` applies it)."""
    keep, cut = _core.decide(np.asarray(p, np.float64).tolist(), block_words(doc).tolist(), decoding=decoding,
                             threshold=threshold, never_empty=params.never_empty,
                             fallback_ratio=params.fallback_ratio, allow_empty=params.allow_empty,
                             beta=params.beta)
    return np.asarray(keep, bool), cut


def reason(own: float, in_context: float, final: float, threshold: float, rule: str = "threshold",
           guarded: float | None = None, network: float | None = None) -> str:
    """One block's explain line. ``guarded``: stage 2's score after the main-run guard (when
    it differs from ``final``); ``network``: the sequence network's score, if the model has one."""
    guarded = final if guarded is None else guarded
    confident = ", confident in the main run" if guarded > in_context else ""
    parts = f"own {own:.2f}{confident}"
    if network is not None:
        parts += f", trees {guarded:.2f}, network {network:.2f}"
    applied = f"{rule} {threshold:.2f}" if math.isfinite(threshold) else f"{rule}: the page likely has no main content"
    return f"p={final:.2f} ({parts}, {applied})"


def reasons(stages: L.StageScores, threshold: float, rule: str) -> list[str]:
    rows = zip(stages.own.tolist(), stages.context.tolist(), stages.final.tolist())
    if stages.network is None:
        return [reason(own, ctx, final, threshold, rule) for own, ctx, final in rows]
    return [reason(own, ctx, final, threshold, rule, guarded, net)
            for (own, ctx, final), guarded, net in zip(rows, stages.guarded.tolist(), stages.network.tolist())]


def _runner(model_file: str):
    def run(doc: Document, params: Params, context: Context) -> Classification:
        model = L.load_learned(context.model or L.shipped_model_path(model_file))
        native = _score(model, doc, context, params)
        labels, final = native.classification()
        if not context.explain:
            return Classification(labels, final)
        decoding, _ = decoding_rule(params, model)
        return Classification(labels, final, tuple(reasons(L.stage_scores(native), native.cut,
                                                           L.DECODING_NAMES[decoding])))
    return run


run = _runner(MODEL_FILE)
SOURCE = "thresher; features after Kohlschütter et al. 2010, Peters & Lecocq 2013, Weninger et al. 2010"
ALGORITHMS = (
    Algorithm(name="thresher", params_type=Params, run_fn=run, source=SOURCE,
              summary="learned two-stage tree ensemble over text, DOM, cue and structure features, averaged "
                      "with a small block-sequence network (default)"),
    Algorithm(name="thresher-accurate", params_type=Params, run_fn=_runner(ACCURATE_MODEL_FILE), source=SOURCE,
              summary="the flagship's trees averaged with a wider block-sequence network (an older model: "
                      "below the default in cross-validation, slower)"),
)
ALGORITHM = ALGORITHMS[0]
