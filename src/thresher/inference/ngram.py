"""Character n-gram language models, one per class, as a binary text classifier: the model
file, loading and scoring (fitting is :mod:`thresher.training.ngram`).

This is the second stage of the density filter (Sujit Pal, "Extracting Useful
Text from HTML", 2009), which trains LingPipe's ``DynamicLMClassifier``: a
character n-gram process language model (n = 6) per category, "keep" and
"discard", and picks the category under which a chunk's text is likelier.

Model
    For each class, counts of every character n-gram of length 1..n seen in
    that class's training texts (grams never cross two texts). The
    probability of a character given the ``k`` characters before it is
    interpolated Witten-Bell, from the longest seen context down::

        P(c | h) = lam(h) * count(h c) / count(h) + (1 - lam(h)) * P(c | h minus its first char)
        lam(h)   = count(h) / (count(h) + L * types(h))

    ``count(h)`` is how often ``h`` was followed by any character,
    ``types(h)`` by how many different ones, ``L`` the ``lambda_factor``
    (1 = classic Witten-Bell). Below the empty context lies the uniform
    distribution over the alphabet (the characters seen in training, plus one
    for any other). A text's first characters use the shorter contexts they
    have; nothing is padded.

Decision
    ``score = (log P(text | content) - log P(text | boilerplate)) / len(text)``,
    a log-likelihood ratio per character; the text is content when the score
    exceeds the model's ``threshold`` (0 unless the trainer set another).

Pruning
    n-grams seen fewer than ``min_count`` times are dropped, with one
    threshold for both classes and all orders: a gram is never more frequent
    than its suffix, so the kept grams stay closed under suffixes. Context
    statistics are recomputed from the kept grams, so every distribution still
    sums to one. ``fit`` raises ``min_count`` until the JSON fits ``max_bytes``.

File
    JSON: ``{"schema": "thresher.density-classifier", "version": 1, "n", "lambda_factor",
    "lowercase", "alphabet_size", "threshold", "min_count", "classes":
    {"content": {"grams": {gram: count}}, "boilerplate": {...}}, "training": {...}}``.
    Loading needs the standard library and numpy only; grams are hashed
    (64-bit polynomial hash, wrapping) into sorted arrays for vectorised
    scoring.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import ModelError

SCHEMA = "thresher.density-classifier"
VERSION = 1
CLASSES = ("content", "boilerplate")
SHIPPED = "models/density_classifier.json"

_OFFSET = 0xCBF29CE484222325  # hash of the empty string
_PRIME = 0x100000001B3  # multiplier per character
_MASK = (1 << 64) - 1


class ClassLM(NamedTuple):
    """One class's model, hashed for lookup. All arrays are read-only."""

    gram_hashes: np.ndarray  # sorted uint64 hashes of the kept grams
    gram_counts: np.ndarray  # float64 counts, aligned with gram_hashes
    ctx_hashes: np.ndarray  # sorted uint64 hashes of every context (gram minus its last char)
    ctx_totals: np.ndarray  # float64 count(h)
    ctx_types: np.ndarray  # float64 types(h)


class NGramModel(NamedTuple):
    """A loaded classifier: ``classes`` follows :data:`CLASSES`."""

    n: int
    lambda_factor: float
    lowercase: bool
    alphabet_size: int
    threshold: float
    classes: tuple[ClassLM, ...]


# ------------------------------------------------------------------ hashing

def normalize(text: str, lowercase: bool) -> str:
    text = " ".join(text.split())
    return text.lower() if lowercase else text


class TextBatch(NamedTuple):
    """Texts concatenated: character codes and each character's position in its text."""

    joined: str
    codes: np.ndarray  # uint64, ord(c) + 1
    pos: np.ndarray  # int64
    starts: np.ndarray  # int64, offset of every text
    lengths: np.ndarray  # int64


def text_batch(texts: Sequence[str]) -> TextBatch:
    joined = "".join(texts)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if len(texts) else np.zeros(0, np.int64)
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64) + np.uint64(1)
    pos = np.arange(len(joined), dtype=np.int64) - np.repeat(starts, lengths)
    return TextBatch(joined, codes, pos, starts.astype(np.int64), lengths)


def order_hashes(codes: np.ndarray, n: int) -> list[np.ndarray]:
    """``out[k][i]``: hash of the k characters ending at ``i`` (k = 0..n); wrong where k > pos + 1."""
    size = len(codes)
    out = [np.full(size, _OFFSET, dtype=np.uint64)]
    prime = np.uint64(_PRIME)
    for _ in range(n):
        ctx = np.full(size, _OFFSET, dtype=np.uint64)
        if len(out) > 1:
            ctx[1:] = out[-1][:-1]
        with np.errstate(over="ignore"):
            out.append(ctx * prime + codes)
    return out


def _context_hashes(hashes: list[np.ndarray], k: int) -> np.ndarray:
    """Hash of the ``k - 1`` characters before each position (the context of a k-gram)."""
    if k == 1:
        return hashes[0]
    ctx = np.full(len(hashes[0]), _OFFSET, dtype=np.uint64)
    ctx[1:] = hashes[k - 1][:-1]
    return ctx


# ------------------------------------------------------------------ loading

def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _compile_class(grams: dict[str, int], n: int) -> ClassLM:
    """Hash every gram and its context (the gram minus its last char); sum context statistics."""
    texts = list(grams)
    counts = np.fromiter(grams.values(), dtype=np.float64, count=len(texts))
    if not texts:
        empty = np.zeros(0, dtype=np.uint64)
        return ClassLM(*(_frozen(a) for a in (empty, np.zeros(0), empty.copy(), np.zeros(0), np.zeros(0))))
    batch = text_batch(texts)
    hashes = order_hashes(batch.codes, n)
    last = batch.starts + batch.lengths - 1
    order = np.minimum(batch.lengths, n)
    table = np.vstack(hashes)  # table[k, i]: hash of the k chars ending at i
    gram_hash = table[order, last]
    ctx_hash = np.where(order > 1, table[np.maximum(order - 1, 0), np.maximum(last - 1, 0)], np.uint64(_OFFSET))
    g_order = np.argsort(gram_hash)
    c_keys, c_index = np.unique(ctx_hash, return_inverse=True)
    return ClassLM(
        _frozen(gram_hash[g_order]), _frozen(counts[g_order]), _frozen(c_keys),
        _frozen(np.bincount(c_index, weights=counts, minlength=len(c_keys))),
        _frozen(np.bincount(c_index, minlength=len(c_keys)).astype(np.float64)))


def compile_model(data: dict) -> NGramModel:
    """Check the schema of a JSON model and hash it for scoring."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise ModelError(f"not a density-classifier model (schema {found!r}, expected {SCHEMA!r})")
    if data.get("version") != VERSION:
        raise ModelError(f"density-classifier model version {data.get('version')!r}; this thresher reads {VERSION}")
    try:
        return NGramModel(
            n=int(data["n"]), lambda_factor=float(data["lambda_factor"]), lowercase=bool(data["lowercase"]),
            alphabet_size=int(data["alphabet_size"]), threshold=float(data.get("threshold", 0.0)),
            classes=tuple(_compile_class(data["classes"][name]["grams"], int(data["n"])) for name in CLASSES))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise ModelError(f"malformed density-classifier model: {type(exc).__name__}: {exc}") from None


def _parse(text: str, where: str) -> NGramModel:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ModelError(f"{where}: not JSON ({exc})") from None
    return compile_model(data)


@lru_cache(maxsize=8)
def load_model(path: str) -> NGramModel:
    """Load a model file (cached per path); :class:`ModelError` when it is missing or not one."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(f"cannot read model {path}: {exc}") from None
    return _parse(text, path)


@lru_cache(maxsize=1)
def shipped_model() -> NGramModel:
    """The model that ships inside the package."""
    resource = resources.files("thresher").joinpath(SHIPPED)
    try:
        text = resource.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise ModelError(f"the shipped model {SHIPPED} is missing from this installation") from None
    return _parse(text, SHIPPED)


# ------------------------------------------------------------------ scoring

def _find(keys: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of every query among the sorted ``keys``, and whether it is there."""
    if not len(keys):
        return np.zeros(len(queries), dtype=np.int64), np.zeros(len(queries), dtype=bool)
    at = np.minimum(np.searchsorted(keys, queries), len(keys) - 1)
    return at, keys[at] == queries


def _char_log_probs(lm: ClassLM, hashes: list[np.ndarray], pos: np.ndarray, model: NGramModel) -> np.ndarray:
    prob = np.full(len(pos), 1.0 / model.alphabet_size)
    for k in range(1, model.n + 1):
        at, seen = _find(lm.ctx_hashes, _context_hashes(hashes, k))
        seen &= pos >= k - 1
        if not seen.any():
            break
        total = np.where(seen, lm.ctx_totals[at], 1.0)
        types = np.where(seen, lm.ctx_types[at], 0.0)
        g_at, g_seen = _find(lm.gram_hashes, hashes[k])
        count = np.where(g_seen, lm.gram_counts[g_at], 0.0)
        lam = total / (total + model.lambda_factor * types)
        prob = np.where(seen, lam * count / total + (1.0 - lam) * prob, prob)
    return np.log(prob)


def class_log_probs(model: NGramModel, texts: Sequence[str]) -> np.ndarray:
    """``out[i, j]``: log-probability of text ``i`` under class ``CLASSES[j]``."""
    batch = text_batch([normalize(t, model.lowercase) for t in texts])
    out = np.zeros((len(texts), len(model.classes)))
    if not len(batch.codes):
        return out
    hashes = order_hashes(batch.codes, model.n)
    nonempty = batch.lengths > 0
    for j, lm in enumerate(model.classes):
        per_char = _char_log_probs(lm, hashes, batch.pos, model)
        out[nonempty, j] = np.add.reduceat(per_char, batch.starts[nonempty])
    return out


def scores(model: NGramModel, texts: Sequence[str]) -> np.ndarray:
    """Length-normalised log-likelihood ratio, content over boilerplate, per text (0 for empty text)."""
    lengths = np.array([len(normalize(t, model.lowercase)) for t in texts], dtype=np.float64)
    logp = class_log_probs(model, texts)
    return (logp[:, 0] - logp[:, 1]) / np.maximum(lengths, 1.0)


def classify(model: NGramModel, texts: Sequence[str]) -> np.ndarray:
    """True where a text is content."""
    return scores(model, texts) > model.threshold
