"""Fitting the character n-gram classifier of :mod:`thresher.inference.ngram` (the model, its file
format and its scoring live there, where inference reads them without this package).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..inference.ngram import CLASSES, SCHEMA, VERSION, normalize, order_hashes, text_batch


@dataclass(frozen=True)
class FitParams:
    """How :func:`fit` builds a model.

    n: longest n-gram (LingPipe's ``NGRAM_SIZE`` in the write-up: 6).
    lambda_factor: Witten-Bell's ``L``.
    lowercase: fold case before counting and scoring.
    max_bytes: the JSON file must stay below this size; ``min_count`` rises until it does.
    min_count: smallest count kept (the starting point of that search).
    threshold: score above which a text is content.
    """

    n: int = 6
    lambda_factor: float = 1.0
    lowercase: bool = False
    max_bytes: int = 4_800_000
    min_count: int = 2
    threshold: float = 0.0


# ------------------------------------------------------------------ fitting

def count_ngrams(texts: Iterable[str], n: int = 6, lowercase: bool = False) -> dict[str, int]:
    """Counts of every character gram of length 1..n in ``texts`` (not across two texts)."""
    batch = text_batch([normalize(t, lowercase) for t in texts])
    hashes = order_hashes(batch.codes, n)
    counts: dict[str, int] = {}
    for k in range(1, n + 1):
        where = np.flatnonzero(batch.pos >= k - 1)
        if not len(where):
            break
        keys = hashes[k][where]
        order = np.argsort(keys)  # any occurrence will do as the gram's example, so no stable sort
        ranked = keys[order]
        first = np.flatnonzero(np.concatenate(([True], ranked[1:] != ranked[:-1])))
        freq = np.diff(np.concatenate((first, [len(ranked)])))
        for end, c in zip(where[order[first]].tolist(), freq.tolist()):
            counts[batch.joined[end - k + 1:end + 1]] = c
    return counts


def count_classes(content_texts: Sequence[str], boilerplate_texts: Sequence[str],
                  params: FitParams = FitParams()) -> dict[str, dict[str, int]]:
    """Unpruned gram counts of both classes."""
    return {"content": count_ngrams(content_texts, params.n, params.lowercase),
            "boilerplate": count_ngrams(boilerplate_texts, params.n, params.lowercase)}


def fit(content_texts: Sequence[str], boilerplate_texts: Sequence[str],
        params: FitParams = FitParams(), training: dict | None = None) -> dict:
    """Train both class models; return the JSON-ready model (pruned to ``params.max_bytes``)."""
    return build_model(count_classes(content_texts, boilerplate_texts, params), params, training)


def build_model(counts: dict[str, dict[str, int]], params: FitParams = FitParams(),
                training: dict | None = None) -> dict:
    """The JSON-ready model from unpruned counts, with the smallest ``min_count`` that fits ``max_bytes``."""
    alphabet = {g for table in counts.values() for g in table if len(g) == 1}
    min_count = _fitting_min_count(counts, params)
    while True:
        model = _model_json(counts, min_count, len(alphabet) + 1, params, training or {})
        if len(dumps(model).encode("utf-8")) <= params.max_bytes:
            return model
        min_count += 1


def _fitting_min_count(counts: dict[str, dict[str, int]], params: FitParams) -> int:
    """Smallest count threshold whose entries' JSON text (``"gram":count,``) fits, with 64 KiB to spare."""
    values = np.array([c for table in counts.values() for c in table.values()], dtype=np.int64)
    sizes = np.array([len(json.dumps(g, ensure_ascii=False).encode("utf-8")) + len(str(c)) + 2
                      for table in counts.values() for g, c in table.items()], dtype=np.int64)
    if not len(values):
        return max(1, params.min_count)
    top = int(values.max()) + 1
    by_count = np.bincount(values, weights=sizes, minlength=top + 1)
    kept_bytes = np.cumsum(by_count[::-1])[::-1]  # kept_bytes[m]: bytes of entries with count >= m
    budget = params.max_bytes - 65536
    for m in range(max(1, params.min_count), top + 1):
        if kept_bytes[m] <= budget:
            return m
    return top


def _model_json(counts: dict[str, dict[str, int]], min_count: int, alphabet_size: int,
                params: FitParams, training: dict) -> dict:
    return {
        "schema": SCHEMA, "version": VERSION, "n": params.n, "lambda_factor": params.lambda_factor,
        "lowercase": params.lowercase, "alphabet_size": alphabet_size, "threshold": params.threshold,
        "min_count": min_count, "smoothing": "interpolated Witten-Bell over a uniform alphabet",
        "classes": {name: {"grams": {g: c for g, c in sorted(counts[name].items()) if c >= min_count}}
                    for name in CLASSES},
        "training": training,
    }


def dumps(model: dict) -> str:
    return json.dumps(model, ensure_ascii=False, separators=(",", ":"))


def save_model(model: dict, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(dumps(model), encoding="utf-8")
    return path


