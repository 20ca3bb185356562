"""Text-density filter, alone and with a character n-gram classifier behind it.

After Sujit Pal, "Extracting Useful Text from HTML" (2009), itself after "The
Easy Way to Extract Useful Text from Arbitrary HTML" (ai-depot.com).

Stage 1, ``density``
    Every chunk (a block by default; a source line with ``unit="line"``) gets

        density = (text chars + 1) / (text chars + markup chars + 1)

    Chunks with fewer than ``min_chars`` (60) text characters are dropped
    first; of the rest, those with density above ``0.5 - stddev(densities)``
    are kept (sample standard deviation of the remaining chunks' densities,
    0 when only one remains).

    Markup characters of a *block* are estimated from the element table:
    every element (script and style excepted) is charged to the block being
    read when it opened (``first_block``; the last block for elements opened
    after it), at its start tag ``<tag attr="value" ...>`` plus its end tag
    ``</tag>`` (none for void elements): ``2 + len(tag)`` plus, per
    attribute, ``1 + len(name)`` and ``3 + len(value)`` when it has a value,
    plus ``3 + len(tag)`` for the end tag. A *line*'s markup characters are
    the characters of the tags starting on it (brackets included, so both
    units count markup alike; the write-up's code leaves the brackets out).
    Line text is the line with tags removed, entities unescaped, whitespace
    collapsed. Line decisions reach the blocks through
    :mod:`thresher.algorithms.lines`.

Stage 2, ``density+classifier``
    The chunks stage 1 keeps go through a two-class character 6-gram language
    model (:mod:`thresher.inference.ngram`): a chunk stays when its text is
    likelier as content than as boilerplate. The model is the one given as
    ``Context.model`` (a path), else the one shipped with thresher (trained by
    :mod:`thresher.training.density_classifier`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..document.blocks import Document
from ..document.parse import VOID_TAGS
from ..inference import ngram
from .base import Algorithm, Classification, Context
from .lines import align_blocks, block_labels, page_source, source_lines

UNITS = ("block", "line")
_NOT_MARKUP = frozenset(("script", "style"))  # removed with their content in line units


@dataclass(frozen=True)
class Params:
    """The density filter's settings; the defaults are the published ones.

    unit: "block" (the document's blocks) or "line" (lines of the page source;
        needs the source, else blocks are used and the reasons say so).
    min_chars: chunks with fewer text characters are dropped before the
        statistics (the write-up's MIN_CHARS_IN_TEXT).
    base_threshold: density threshold before the spread correction:
        chunks with density > base_threshold - stddev(densities) are kept.
    """

    unit: str = "block"
    min_chars: int = 60
    base_threshold: float = 0.5

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, not {self.unit!r}")


@dataclass(frozen=True)
class ClassifierParams(Params):
    """Stage 1's settings plus the classifier's.

    margin: score threshold of the classifier (length-normalised
        log-likelihood ratio); None takes the model's own (0 unless trained otherwise).
    """

    margin: float | None = None


class Chunks(NamedTuple):
    """The units stage 1 scores: their text and character counts."""

    texts: tuple[str, ...]
    text_chars: np.ndarray
    markup_chars: np.ndarray


class FilterResult(NamedTuple):
    """Stage 1's decisions over a page's chunks."""

    long_enough: np.ndarray  # bool: at least min_chars text characters
    densities: np.ndarray
    threshold: float
    keep: np.ndarray  # bool: long enough and dense enough


# ------------------------------------------------------------------ stage 1

def density(text_chars, markup_chars):
    """(text + 1) / (text + markup + 1), elementwise for arrays."""
    return (np.asarray(text_chars, dtype=np.float64) + 1.0) / (
        np.asarray(text_chars, dtype=np.float64) + np.asarray(markup_chars, dtype=np.float64) + 1.0)


def density_threshold(densities: np.ndarray, base: float) -> float:
    """``base - stddev(densities)`` (sample standard deviation; 0 for fewer than two)."""
    spread = float(np.std(densities, ddof=1)) if len(densities) > 1 else 0.0
    return base - spread


def filter_chunks(text_chars: np.ndarray, markup_chars: np.ndarray, p: Params) -> FilterResult:
    text_chars = np.asarray(text_chars)
    long_enough = text_chars >= p.min_chars
    densities = density(text_chars, markup_chars)
    threshold = density_threshold(densities[long_enough], p.base_threshold)
    return FilterResult(long_enough, densities, threshold, long_enough & (densities > threshold))


def element_markup_chars(tag: str, attrs: Mapping[str, str]) -> int:
    """Length of an element's start tag with its attributes, plus its end tag unless void."""
    start = 2 + len(tag)
    for name, value in attrs.items():
        start += 1 + len(name) + (0 if value is None else 3 + len(value))
    return start + (0 if tag in VOID_TAGS else 3 + len(tag))


def block_markup_chars(doc: Document) -> np.ndarray:
    """Estimated markup characters per block (see the module docstring)."""
    n = len(doc.blocks)
    table = doc.elements
    owners = np.minimum(np.asarray(table.first_blocks, dtype=np.int64), n - 1)
    weights = np.fromiter(
        (0 if tag in _NOT_MARKUP else element_markup_chars(tag, attrs)
         for tag, attrs in zip(table.tags, table.attrs)), dtype=np.float64, count=len(table))
    return np.bincount(owners, weights=weights, minlength=n)[:n]


def block_chunks(doc: Document) -> Chunks:
    texts = tuple(block.text for block in doc.blocks)
    chars = np.fromiter((block.char_count for block in doc.blocks), dtype=np.int64, count=len(texts))
    return Chunks(texts, chars, block_markup_chars(doc))


def line_chunks(source: str) -> Chunks:
    lines = source_lines(source)
    return Chunks(tuple(line.text for line in lines),
                  np.fromiter((len(line.text) for line in lines), dtype=np.int64, count=len(lines)),
                  np.fromiter((line.markup_chars for line in lines), dtype=np.int64, count=len(lines)))


def page_chunks(doc: Document, unit: str, source: str | None) -> tuple[Chunks, str]:
    """The chunks of ``unit`` and the unit actually used (blocks when there is no source)."""
    if unit == "line" and source is not None:
        return line_chunks(source), "line"
    return block_chunks(doc), "block"


# ------------------------------------------------------------------ stage 2

def model_for(context: Context) -> ngram.NGramModel:
    return ngram.load_model(str(context.model)) if context.model else ngram.shipped_model()


def classifier_keep(model: ngram.NGramModel, texts: Sequence[str], candidates: np.ndarray,
                    margin: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Scores of the candidate chunks (NaN elsewhere), and which candidates the classifier keeps."""
    scores = np.full(len(texts), np.nan)
    where = np.flatnonzero(candidates)
    if len(where):
        scores[where] = ngram.scores(model, [texts[i] for i in where.tolist()])
    threshold = model.threshold if margin is None else margin
    return scores, candidates & (np.nan_to_num(scores, nan=-np.inf) > threshold)


# ------------------------------------------------------------------ running

def _chunk_reason(i: int, f: FilterResult, min_chars: int, stage2: np.ndarray | None,
                  scores: np.ndarray | None) -> str:
    if not f.long_enough[i]:
        return f"under {min_chars} text chars"
    base = f"density {f.densities[i]:.2f} {'>' if f.densities[i] > f.threshold else '<='} {f.threshold:.2f}"
    if stage2 is None or not f.keep[i]:
        return base
    verdict = "content" if stage2[i] else "boilerplate"
    score = "" if scores is None else f"n-gram score {scores[i]:+.3f} "
    return f"{base}; {score}-> {verdict}"


def _line_decisions_to_blocks(doc: Document, chunks: Chunks, keep: np.ndarray, threshold: float
                              ) -> Classification:
    alignment = align_blocks([block.text for block in doc.blocks], chunks.texts)
    labels, shares = block_labels(alignment, keep.tolist())
    reasons = [f"{share:.0%} of its source text on kept lines (density threshold {threshold:.2f})" if pairs
               else "not found in the source lines" for share, pairs in zip(shares, alignment)]
    return Classification.from_labels(labels, reasons, shares)


def decide(doc: Document, p: Params, source: str | None = None,
           model: ngram.NGramModel | None = None, margin: float | None = None) -> Classification:
    """Stage 1 alone (``model`` None) or both stages, on ``p.unit``."""
    chunks, unit = page_chunks(doc, p.unit, source)
    f = filter_chunks(chunks.text_chars, chunks.markup_chars, p)
    keep, stage2, scores = f.keep, None, None
    if model is not None:
        scores, stage2 = classifier_keep(model, chunks.texts, f.keep, margin)
        keep = stage2
    if unit == "line":
        return _line_decisions_to_blocks(doc, chunks, keep, f.threshold)
    suffix = "" if unit == p.unit else " (no page source: block units)"
    reasons = [_chunk_reason(i, f, p.min_chars, stage2, scores) + suffix for i in range(len(chunks.texts))]
    return Classification.from_labels(keep.tolist(), reasons, f.densities.tolist())


def run_density(doc: Document, p: Params, context: Context) -> Classification:
    return decide(doc, p, page_source(doc, context))


def run_classifier(doc: Document, p: ClassifierParams, context: Context) -> Classification:
    return decide(doc, p, page_source(doc, context), model_for(context), p.margin)


SOURCE = ("Sujit Pal, Extracting Useful Text from HTML (2009), after The Easy Way to Extract Useful Text from "
          "Arbitrary HTML")

ALGORITHMS = (
    Algorithm(
        name="density", params_type=Params, run_fn=run_density, source=SOURCE, needs_language=False, needs_source=True,
        summary="text density per block (or source line): drop short chunks, keep those denser than 0.5 - stddev"),
    Algorithm(
        name="density+classifier", params_type=ClassifierParams, run_fn=run_classifier, source=SOURCE,
        needs_language=False, needs_source=True,
        summary="density filter, then a character 6-gram language model per class keeps the content chunks"),
)
