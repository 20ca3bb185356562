"""The paper's two decision trees (NumWords and Density) over a block and its neighbours."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...document.blocks import Document
from ..base import Classification, Context
from .features import Features, block_features, neighbours


@dataclass(frozen=True)
class NumWordsParams:
    """The published NumWords decision tree; every default is the paper's.

    max_link_density: a block with a higher link density is boilerplate.
    max_prev_link_density: above this, the previous block counts as a link list.
    short_words: a current block with at most this many words is short.
    next_short_words: a next block with at most this many words is short.
    min_prev_words: a short block between short blocks is content when the
        previous block has more words than this.
    long_words / next_long_words: after a link list, the block is content when
        it has more words than ``long_words`` or the next block has more than
        ``next_long_words``.
    wrap_width: line width (characters) for the text density feature.
    """

    max_link_density: float = 0.333333
    max_prev_link_density: float = 0.555556
    short_words: int = 16
    next_short_words: int = 15
    min_prev_words: int = 4
    long_words: int = 40
    next_long_words: int = 17
    wrap_width: int = 80


@dataclass(frozen=True)
class DensityParams:
    """The published text-density decision tree; every default is the paper's.

    max_link_density / max_prev_link_density: as in :class:`NumWordsParams`.
    low_density: a current block with at most this text density is sparse.
    next_low_density: a next block with at most this text density is sparse.
    min_prev_density: a sparse block before a sparse block is content when the
        previous block is denser than this.
    next_density_after_links: after a link list, the block is content when the
        next block is denser than this.
    wrap_width: line width (characters) for the text density feature.
    """

    max_link_density: float = 0.333333
    max_prev_link_density: float = 0.555556
    low_density: float = 9.0
    next_low_density: float = 10.0
    min_prev_density: float = 4.0
    next_density_after_links: float = 11.0
    wrap_width: int = 80


def numwords_rule(prev: Features, curr: Features, nxt: Features,
                  p: NumWordsParams = NumWordsParams()) -> tuple[bool, str]:
    """The NumWords decision tree: (is content, why). ``why`` is a template for
    :func:`explain` (formatting every block's reason costs more than deciding)."""
    if curr.link_density > p.max_link_density:
        return False, "link density {curr.link_density:.2f} > {p.max_link_density:g}"
    if prev.link_density > p.max_prev_link_density:
        content = curr.words > p.long_words or nxt.words > p.next_long_words
        return content, ("after a link list: {curr.words} words (>{p.long_words}?), "
                         "next {nxt.words} (>{p.next_long_words}?)")
    if curr.words > p.short_words:
        return True, "{curr.words} words > {p.short_words}"
    if nxt.words > p.next_short_words:
        return True, "short, next block has {nxt.words} words > {p.next_short_words}"
    return prev.words > p.min_prev_words, (
        "short between short blocks: previous has {prev.words} words (>{p.min_prev_words}?)")


def density_rule(prev: Features, curr: Features, nxt: Features,
                 p: DensityParams = DensityParams()) -> tuple[bool, str]:
    """The text-density decision tree: (is content, why), ``why`` as in :func:`numwords_rule`."""
    if curr.link_density > p.max_link_density:
        return False, "link density {curr.link_density:.2f} > {p.max_link_density:g}"
    if prev.link_density > p.max_prev_link_density:
        return nxt.text_density > p.next_density_after_links, (
            "after a link list: next density {nxt.text_density:.1f} (>{p.next_density_after_links:g}?)")
    if curr.text_density > p.low_density:
        return nxt.text_density != 0, (
            "density {curr.text_density:.1f} > {p.low_density:g}, next density {nxt.text_density:.1f}")
    if nxt.text_density > p.next_low_density:
        return True, "sparse, next density {nxt.text_density:.1f} > {p.next_low_density:g}"
    return prev.text_density > p.min_prev_density, (
        "sparse between sparse blocks: previous density {prev.text_density:.1f} (>{p.min_prev_density:g}?)")


def classify(features: Sequence[Features], rule: Callable, params) -> list[tuple[bool, str]]:
    """(is content, why-template) for every block."""
    return [rule(prev, curr, nxt, params) for prev, curr, nxt in neighbours(features)]


def explain(features: Sequence[Features], decisions: Sequence[tuple[bool, str]], params) -> list[str]:
    """The decisions' why-templates filled in with each block's features."""
    return [why.format(prev=prev, curr=curr, nxt=nxt, p=params)
            for (prev, curr, nxt), (_, why) in zip(neighbours(features), decisions)]


def _classification(features: Sequence[Features], rule: Callable, params, prefix: str,
                    context: Context) -> Classification:
    decisions = classify(features, rule, params)
    reasons = [f"{prefix}: {why}" for why in explain(features, decisions, params)] if context.explain else ()
    return Classification.from_labels([content for content, _ in decisions], reasons)


def run_numwords(doc: Document, p: NumWordsParams, context: Context) -> Classification:
    return _classification(block_features(doc, p.wrap_width), numwords_rule, p, "numwords", context)


def run_density(doc: Document, p: DensityParams, context: Context) -> Classification:
    return _classification(block_features(doc, p.wrap_width), density_rule, p, "density", context)


CLASSIFIERS: dict[str, Callable] = {"density": density_rule, "numwords": numwords_rule}
