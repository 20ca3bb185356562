"""Label blocks content/boilerplate by aligning them to a page's gold main text.

Gold text and blocks are both reduced to lower-cased ``\\w+`` tokens (the
referee's tokens). Each block is cut into token n-grams (the whole block when
it is shorter than ``n``); the gold text's n-grams form a multiset. Blocks are
visited in reading order and *consume* matching gold n-grams, so boilerplate
that repeats a phrase of the article (a title in the navigation, say) cannot
claim more occurrences than the gold text has. A block's coverage is the share
of its n-grams found; it is content when coverage >= ``threshold``.

Consumption is two-pass: long blocks (``long_block`` tokens or more, which
align unambiguously) consume first, then short ones take what is left, so a
short navigation link cannot steal the occurrence that belongs to a paragraph.
The words an n-gram match used up are used up for shorter grams as well.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

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


def _consume(grams: list[tuple[str, ...]], available: Counter) -> list[bool]:
    """Take each gram from ``available`` while it lasts; which grams were found."""
    found = []
    for gram in grams:
        ok = available[gram] > 0
        if ok:
            available[gram] -= 1
        found.append(ok)
    return found


def _covered_runs(found: Sequence[bool], n: int, length: int) -> list[tuple[int, int]]:
    """Maximal runs [start, end) of tokens covered by the found n-grams of a block of ``length`` tokens."""
    covered = [False] * length
    for first, ok in enumerate(found):
        if ok:
            covered[first:first + n] = [True] * min(n, length - first)
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for i, c in enumerate([*covered, False]):
        if c and start is None:
            start = i
        elif not c and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _release_sub_grams(toks: Sequence[str], runs: Sequence[tuple[int, int]], n: int, available: Counter) -> None:
    """The gold text a long block matched is used up for shorter grams too: every
    k-gram (k < n) inside a matched run is taken once, so a short block cannot
    match words a paragraph already claimed."""
    for start, end in runs:
        for k in range(1, n):
            for i in range(start, end - k + 1):
                gram = tuple(toks[i:i + k])
                if available[gram] > 0:
                    available[gram] -= 1


def align_texts(block_texts: Sequence[str], gold: str, params: AlignParams = AlignParams()) -> Alignment:
    """Align a sequence of block texts to the gold main text."""
    n = params.n
    available = _gold_grams(tokens(gold), n)
    toks = [tokens(text) for text in block_texts]
    grams = [ngrams(t, n) for t in toks]
    coverage = [0.0] * len(grams)
    order = sorted(range(len(grams)), key=lambda i: (len(toks[i]) < params.long_block, i))
    for i in order:
        if not grams[i]:
            continue
        found = _consume(grams[i], available)
        coverage[i] = sum(found) / len(grams[i])
        if len(toks[i]) >= n:  # a block shorter than n matched one whole short gram: nothing inside it remains
            _release_sub_grams(toks[i], _covered_runs(found, n, len(toks[i])), n, available)
    return Alignment(tuple(c >= params.threshold for c in coverage), tuple(coverage))


def align_document(doc, gold: str, params: AlignParams = AlignParams()) -> Alignment:
    """Align a :class:`~thresher.document.blocks.Document`'s blocks to the gold main text."""
    return align_texts([block.text for block in doc.blocks], gold, params)
