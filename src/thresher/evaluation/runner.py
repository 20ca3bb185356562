"""Run an extractor over a labelled dataset and score it as the referee does.

Speed is the referee's: the sum of the wall-clock time of each extractor call
(loading, decompressing and scoring excluded), pages/s = pages / that sum and
MB/s = raw HTML megabytes (10^6 bytes) / that sum. An extractor that raises
counts as an error and as an empty extraction.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .datasets import Page, detect_kind, load, select
from .metrics import PageScore, Scores, ShingleScore, SnippetScore, aggregate, score_page

Extractor = Callable[[bytes, "str | None"], "str | None"]
ErrorHook = Callable[[str, BaseException], None]


@dataclass(frozen=True)
class PageResult:
    """One page's outcome. ``error`` is ``"Type: message"`` when the extractor raised."""

    id: str
    url: str | None
    score: PageScore
    seconds: float
    size: int
    error: str | None = None
    output: str | None = None  # the extraction, when outputs were kept

    def as_dict(self) -> dict[str, Any]:
        """The referee's per-page row, plus ``seconds`` and ``error``."""
        if isinstance(self.score, ShingleScore):
            row: dict[str, Any] = {"tp_fp_fn": list(self.score)}
        elif isinstance(self.score, SnippetScore):
            row = {"counts": list(self.score)}
        else:
            row = self.score._asdict()
        row.update(id=self.id, seconds=self.seconds)
        if self.error is not None:
            row["error"] = self.error
        return row


@dataclass(frozen=True)
class Summary:
    kind: str
    pages: int
    errors: int
    seconds: float  # sum of per-call extraction times
    bytes: int  # raw HTML bytes of the pages scored
    scores: Scores

    @property
    def precision(self) -> float:
        return self.scores.precision

    @property
    def recall(self) -> float:
        return self.scores.recall

    @property
    def f1(self) -> float:
        return self.scores.f1

    @property
    def pages_per_s(self) -> float | None:
        return self.pages / self.seconds if self.seconds else None

    @property
    def mb_per_s(self) -> float | None:
        return self.bytes / 1e6 / self.seconds if self.seconds else None

    def as_dict(self) -> dict[str, Any]:
        out = self.scores.as_dict()
        out.update(kind=self.kind, pages=self.pages, errors=self.errors, seconds=self.seconds,
                   pages_per_s=self.pages_per_s, mb_per_s=self.mb_per_s)
        return out


@dataclass(frozen=True)
class EvaluationResult:
    """Summary and per-page rows of one extractor over one dataset."""

    name: str  # the dataset directory's name, as the referee prints it
    summary: Summary
    pages: tuple[PageResult, ...]

    @property
    def pages_per_s(self) -> float | None:
        return self.summary.pages_per_s

    def lines(self) -> list[str]:
        """The referee's report lines (the headline, then per-type F1 for wcxb)."""
        s = self.summary
        line = (f"{self.name} [{s.kind}] pages={s.pages} errors={s.errors} "
                f"P={s.precision:.3f} R={s.recall:.3f} F1={s.f1:.3f}")
        if s.pages_per_s:
            line += f" pages/s={s.pages_per_s:.1f} MB/s={s.mb_per_s:.2f}"
        out = [line]
        if s.scores.f1_by_type is not None:
            out.append("  by type: " + " ".join(f"{t}={v:.3f}" for t, v in s.scores.f1_by_type.items()))
        return out

    def type_lines(self) -> list[str]:
        """A table of precision, recall and F1 per page type (none for datasets without types)."""
        by_type = self.summary.scores.by_type
        if not by_type:
            return []
        width = max(len("type"), *(len(t) for t in by_type))
        out = [f"  {'type':<{width}}  pages      P      R     F1"]
        out += [f"  {t:<{width}}  {v.pages:>5}  {v.precision:.3f}  {v.recall:.3f}  {v.f1:.3f}"
                for t, v in by_type.items()]
        return out

    def report(self) -> str:
        """The referee's lines, then the per-type table."""
        return "\n".join(self.lines() + self.type_lines())

    def to_json(self) -> dict[str, Any]:
        """The referee's ``--out`` layout: summary, pages, and outputs when they were kept."""
        data: dict[str, Any] = {"summary": self.summary.as_dict(),
                                "pages": [page.as_dict() for page in self.pages]}
        if any(page.output is not None for page in self.pages):
            data["outputs"] = {page.id: page.output for page in self.pages}
        return data


def timed_call(extractor: Extractor, html: bytes, url: str | None) -> tuple[str, float, BaseException | None]:
    """(extraction, seconds, exception); a raising extractor yields ""."""
    start = time.perf_counter()
    try:
        pred = extractor(html, url) or ""
        error = None
    except Exception as exc:  # noqa: BLE001 - a crash on one page counts as an empty extraction
        pred, error = "", exc
    return pred, time.perf_counter() - start, error


def error_text(exc: BaseException | None) -> str | None:
    """A row's ``error``: ``"Type: message"``, or None."""
    return None if exc is None else f"{type(exc).__name__}: {exc}"


def page_row(page: Page, kind: str, pred: str, seconds: float, error: str | None,
             keep_output: bool = False) -> PageResult:
    """One page's row from an extraction already made and timed (elsewhere, possibly)."""
    return PageResult(page.id, page.url, score_page(kind, pred, page.gold), seconds, len(page.html), error,
                      pred if keep_output else None)


def score_rows(pages: Iterable[Page], kind: str, extractor: Extractor, *, keep_outputs: bool = False,
               on_error: ErrorHook | None = None) -> list[PageResult]:
    """Run and time ``extractor`` on each page and score its output: one row per page."""
    rows = []
    for page in pages:
        pred, seconds, exc = timed_call(extractor, page.html, page.url)
        if exc is not None and on_error is not None:
            on_error(page.id, exc)
        rows.append(page_row(page, kind, pred, seconds, error_text(exc), keep_outputs))
    return rows


def summarize(rows: Sequence[PageResult], kind: str, name: str = "") -> EvaluationResult:
    """The referee's summary of per-page rows (errors, summed time and size, aggregated scores)."""
    summary = Summary(kind, len(rows), sum(r.error is not None for r in rows),
                      sum(r.seconds for r in rows), sum(r.size for r in rows),
                      aggregate(kind, [r.score for r in rows]))
    return EvaluationResult(name, summary, tuple(rows))


def evaluate_pages(pages: Iterable[Page], kind: str, extractor: Extractor, *, name: str = "",
                   keep_outputs: bool = False, on_error: ErrorHook | None = None) -> EvaluationResult:
    """Score ``extractor`` over already-loaded ``pages`` of a ``kind`` dataset."""
    return summarize(score_rows(pages, kind, extractor, keep_outputs=keep_outputs, on_error=on_error), kind, name)


def evaluate(dataset_dir: str | Path, extractor: Extractor, *, every: int = 1, limit: int | None = None,
             keep_outputs: bool = False, on_error: ErrorHook | None = None) -> EvaluationResult:
    """Score ``extractor(html_bytes, url) -> text`` over the dataset at ``dataset_dir``.

    ``every``/``limit`` take every k-th page and then the first n of those (the
    referee scores all pages: leave both at their defaults to compare with it).
    """
    root = Path(dataset_dir)
    kind = detect_kind(root)
    pages = select(load(root), every, limit)
    return evaluate_pages(pages, kind, extractor, name=root.name, keep_outputs=keep_outputs,
                          on_error=on_error)


@dataclass(frozen=True)
class ThresherExtractor:
    """``thresher.extract`` with fixed options, as an ``(html, url) -> text`` callable."""

    algorithm: str | None = None
    model: str | None = None
    language: str | None = None
    params: Any = None
    switches: tuple[tuple[str, Any], ...] = ()  # more keyword arguments of thresher.extract

    def __call__(self, html: bytes, url: str | None = None) -> str:
        from ..api import extract

        options: dict[str, Any] = {"model": self.model, "language": self.language, "params": self.params,
                                   **dict(self.switches)}
        if self.algorithm is not None:
            options["algorithm"] = self.algorithm
        return extract(html, url, **options)
