"""Scoring extractors on labelled datasets, with the referee's loaders and metrics.

>>> from thresher.evaluation import evaluate, ThresherExtractor
>>> result = evaluate("wcxb-dev", ThresherExtractor("justext"))  # doctest: +SKIP
>>> print(result.report())  # doctest: +SKIP
"""
from __future__ import annotations

from .datasets import KINDS, DatasetError, Page, detect_kind, html_to_text, load, select
from .metrics import Scores, aggregate, score_page, word_prf
from .runner import (
                     EvaluationResult,
                     Extractor,
                     PageResult,
                     Summary,
                     ThresherExtractor,
                     error_text,
                     evaluate,
                     evaluate_pages,
                     page_row,
                     score_rows,
                     summarize,
                     timed_call,
)

__all__ = ["KINDS", "DatasetError", "EvaluationResult", "Extractor", "Page", "PageResult", "Scores",
           "Summary", "ThresherExtractor", "aggregate", "detect_kind", "error_text", "evaluate", "evaluate_pages",
           "html_to_text", "load", "page_row", "score_page", "score_rows", "select", "summarize", "timed_call",
           "word_prf"]
