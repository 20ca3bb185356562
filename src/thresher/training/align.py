"""Label blocks content/boilerplate by aligning them to a page's gold main text.

Gold text and blocks are both reduced to lower-cased ``\\w+`` tokens (the
referee's tokens). Each block is cut into token n-grams (the whole block when
it is shorter than ``n``); the gold text's n-grams form a multiset. Blocks are
visited in reading order and *consume* matching gold n-grams, so boilerplate
that repeats a phrase of the article (a title in the navigation, say) cannot
claim more occurrences than the gold text has. A block's coverage is the share
of its n-grams found; it is content when coverage >= ``threshold``.

Consumption is two-pass: long blocks (which align unambiguously) consume first,
then short ones take what is left, so a short navigation link cannot steal the
occurrence that belongs to a paragraph.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class AlignParams:
    """n: n-gram length; threshold: coverage at which a block is content;
    long_block: token count from which a block aligns in the first pass."""

    n: int = 3
    threshold: float = 0.5
    long_block: int = 12


@dataclass(frozen=True)
class Alignment:
    labels: tuple[bool, ...]
    coverage: tuple[float, ...]


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def ngrams(toks: Sequence[str], n: int) -> list[tuple[str, ...]]:
    if not toks:
        return []
    if len(toks) < n:
        return [tuple(toks)]
    return [tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)]


def _gold_grams(gold_tokens: Sequence[str], n: int) -> Counter:
    """Gold n-grams of every length up to ``n`` (short blocks match as whole sequences)."""
    counts: Counter = Counter()
    for k in range(1, n + 1):
        counts.update(tuple(gold_tokens[i:i + k]) for i in range(len(gold_tokens) - k + 1))
    return counts


def _consume(grams: list[tuple[str, ...]], available: Counter) -> int:
    found = 0
    for gram in grams:
        if available[gram] > 0:
            available[gram] -= 1
            found += 1
    return found


def align_texts(block_texts: Sequence[str], gold: str, params: AlignParams = AlignParams()) -> Alignment:
    """Align a sequence of block texts to the gold main text."""
    available = _gold_grams(tokens(gold), params.n)
    grams = [ngrams(tokens(text), params.n) for text in block_texts]
    coverage = [0.0] * len(grams)
    order = sorted(range(len(grams)), key=lambda i: (len(grams[i]) < params.long_block, i))
    for i in order:
        if grams[i]:
            coverage[i] = _consume(grams[i], available) / len(grams[i])
    return Alignment(tuple(c >= params.threshold for c in coverage), tuple(coverage))


def align_document(doc, gold: str, params: AlignParams = AlignParams()) -> Alignment:
    """Align a :class:`~thresher.blocks.Document`'s blocks to the gold main text."""
    return align_texts([block.text for block in doc.blocks], gold, params)
