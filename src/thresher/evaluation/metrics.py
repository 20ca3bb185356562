"""The referee's metrics, one pure function each.

- word-level precision / recall / F1 (WCXB's, also used for readability): both
  texts lower-cased and cut into ``\\w+`` tokens; the overlap is the size of the
  multiset intersection. An empty gold text scores 1 against an empty
  prediction and 0 otherwise; an empty prediction scores 0.
- ScrapingHub's shingle counts: case-kept ``\\w+`` tokens cut into 4-token
  shingles (a text shorter than 4 tokens is one shingle); tp / fp / fn are the
  multiset overlap and excesses, normalised by their sum. A page adds to the
  mean precision only when tp + fp > 0 and to the mean recall only when
  tp + fn > 0, counting 1 when fp = fn = 0; F1 comes from the two means.
- snippet counts: a ``with`` snippet found in the prediction is a true
  positive, a ``without`` snippet found is a false positive (whitespace runs
  collapsed on both sides); totals are summed over pages.
- WCXB extras: per-page-type mean F1 (and mean precision and recall, with the page count), and
  the share of ``with`` snippets
  (1 when there are none) and ``without`` snippets (0 when there are none)
  found as case-insensitive substrings, averaged over pages.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

TOKEN = re.compile(r"\w+")
SHINGLE = 4
_SPACES = re.compile(r"\s+")


class WordScore(NamedTuple):
    precision: float
    recall: float
    f1: float


class WcxbScore(NamedTuple):
    precision: float
    recall: float
    f1: float
    type: Any
    with_rate: float
    without_rate: float


class ShingleScore(NamedTuple):
    tp: float
    fp: float
    fn: float


class SnippetScore(NamedTuple):
    tp: int
    fp: int
    fn: int
    tn: int


PageScore = WordScore | WcxbScore | ShingleScore | SnippetScore


class TypeScores(NamedTuple):
    """One page type's pages and their mean word precision, recall and F1."""

    pages: int
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class Scores:
    """A dataset's headline figures; the optional ones exist for some kinds only."""

    precision: float
    recall: float
    f1: float
    accuracy: float | None = None  # snippets
    f1_by_type: Mapping[str, float] | None = None  # wcxb
    with_rate: float | None = None  # wcxb
    without_rate: float | None = None  # wcxb
    by_type: Mapping[str, TypeScores] | None = None  # wcxb

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"precision": self.precision, "recall": self.recall, "f1": self.f1}
        if self.accuracy is not None:
            out["accuracy"] = self.accuracy
        if self.f1_by_type is not None:
            out["f1_by_type"] = dict(self.f1_by_type)
            out["with_rate"] = self.with_rate
            out["without_rate"] = self.without_rate
        if self.by_type is not None:
            out["by_type"] = {t: v._asdict() for t, v in self.by_type.items()}
        return out


# ------------------------------------------------------------------ per page

def tokens(text: str | None) -> list[str]:
    """The referee's word tokens: lower-cased ``\\w+`` runs."""
    return TOKEN.findall((text or "").lower())


def harmonic(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def word_prf(pred: str | None, gold: str | None) -> WordScore:
    """Bag-of-words precision, recall and F1 of ``pred`` against ``gold``."""
    predicted, expected = tokens(pred), tokens(gold)
    if not expected:
        return WordScore(1.0, 1.0, 1.0) if not predicted else WordScore(0.0, 0.0, 0.0)
    if not predicted:
        return WordScore(0.0, 0.0, 0.0)
    overlap = sum((Counter(predicted) & Counter(expected)).values())
    precision, recall = overlap / len(predicted), overlap / len(expected)
    return WordScore(precision, recall, harmonic(precision, recall))


def shingles(text: str | None, n: int = SHINGLE) -> Counter[tuple[str, ...]]:
    """Multiset of ``n``-token shingles (case kept); a shorter text is one shingle."""
    toks = TOKEN.findall(text or "")
    if not toks:
        return Counter()
    if len(toks) < n:
        return Counter([tuple(toks)])
    return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))


def shingle_score(pred: str | None, gold: str | None, n: int = SHINGLE) -> ShingleScore:
    """Normalised (tp, fp, fn) of the prediction's shingles against the gold's."""
    expected, predicted = shingles(gold, n), shingles(pred, n)
    tp = sum((expected & predicted).values())
    fp = sum((predicted - expected).values())
    fn = sum((expected - predicted).values())
    total = tp + fp + fn
    return ShingleScore(tp / total, fp / total, fn / total) if total else ShingleScore(0.0, 0.0, 0.0)


def _collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def snippet_score(pred: str | None, with_: Sequence[str], without: Sequence[str]) -> SnippetScore:
    """How many ``with`` / ``without`` snippets occur in the prediction."""
    text = _collapse(pred or "")
    tp = sum(_collapse(s) in text for s in with_)
    fp = sum(_collapse(s) in text for s in without)
    return SnippetScore(tp, fp, len(with_) - tp, len(without) - fp)


def found_rate(pred: str | None, snippets: Sequence[str], default: float) -> float:
    """Share of ``snippets`` found case-insensitively in ``pred``; ``default`` when none."""
    if not snippets:
        return default
    low = (pred or "").lower()
    return sum(s.lower() in low for s in snippets) / len(snippets)


def score_page(kind: str, pred: str | None, gold: Mapping[str, Any]) -> PageScore:
    """One page's score for a dataset of ``kind``."""
    if kind == "scrapinghub":
        return shingle_score(pred, gold["text"])
    if kind == "snippets":
        return snippet_score(pred, gold["with"], gold["without"])
    words = word_prf(pred, gold["text"])
    if kind != "wcxb":
        return words
    return WcxbScore(*words, gold["type"], found_rate(pred, gold["with"], 1.0),
                     found_rate(pred, gold["without"], 0.0))


# ----------------------------------------------------------------- aggregate

def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def _shingle_precision(s: ShingleScore) -> float:
    return 1.0 if s.fp == s.fn == 0 else s.tp / (s.tp + s.fp)


def _shingle_recall(s: ShingleScore) -> float:
    return 1.0 if s.fp == s.fn == 0 else s.tp / (s.tp + s.fn)


def aggregate_shingles(scores: Sequence[ShingleScore]) -> Scores:
    precisions = [_shingle_precision(s) for s in scores if s.tp + s.fp > 0]
    recalls = [_shingle_recall(s) for s in scores if s.tp + s.fn > 0]
    p, r = mean(precisions), mean(recalls)
    return Scores(p, r, harmonic(p, r))


def aggregate_snippets(scores: Sequence[SnippetScore]) -> Scores:
    tp, fp, fn, tn = (sum(s[i] for s in scores) for i in range(4))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    total = tp + fp + fn + tn
    return Scores(p, r, harmonic(p, r), accuracy=(tp + tn) / total if total else 0.0)


def aggregate_words(scores: Sequence[WordScore | WcxbScore]) -> Scores:
    return Scores(mean([s.precision for s in scores]), mean([s.recall for s in scores]),
                  mean([s.f1 for s in scores]))


def f1_by_type(scores: Sequence[WcxbScore]) -> Mapping[str, float]:
    groups: dict[Any, list[float]] = {}
    for s in scores:
        groups.setdefault(s.type, []).append(s.f1)
    return MappingProxyType({t: mean(groups[t]) for t in sorted(groups)})


def scores_by_type(scores: Sequence[WcxbScore]) -> Mapping[str, TypeScores]:
    """Per page type (sorted): the page count and the mean precision, recall and F1."""
    groups: dict[Any, list[WcxbScore]] = {}
    for s in scores:
        groups.setdefault(s.type, []).append(s)
    return MappingProxyType({str(t): TypeScores(len(g), mean([s.precision for s in g]), mean([s.recall for s in g]),
                                                mean([s.f1 for s in g])) for t, g in sorted(groups.items())})


def aggregate_wcxb(scores: Sequence[WcxbScore]) -> Scores:
    words = aggregate_words(scores)
    return Scores(words.precision, words.recall, words.f1, f1_by_type=f1_by_type(scores),
                  with_rate=mean([s.with_rate for s in scores]),
                  without_rate=mean([s.without_rate for s in scores]), by_type=scores_by_type(scores))


def aggregate(kind: str, scores: Sequence[PageScore]) -> Scores:
    """A dataset's headline figures from its pages' scores."""
    if kind == "scrapinghub":
        return aggregate_shingles(scores)  # type: ignore[arg-type]
    if kind == "snippets":
        return aggregate_snippets(scores)  # type: ignore[arg-type]
    if kind == "wcxb":
        return aggregate_wcxb(scores)  # type: ignore[arg-type]
    return aggregate_words(scores)  # type: ignore[arg-type]
