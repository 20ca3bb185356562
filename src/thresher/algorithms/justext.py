"""jusText (Pomikálek, 2011): stop-word density and link density, then context.

Five stages over the document's blocks, each a pure function:

1. preprocessing: ``select`` content and blocks with a copyright sign are bad;
2. context-free classes: bad / short / near-good / good from length, link
   density and stop-word density;
3. heading preprocessing: a short heading followed closely by good text
   becomes near-good;
4. context-sensitive pass: short and near-good blocks take a class from their
   nearest good/bad neighbours (document edges count as bad);
5. heading postprocessing: a non-bad heading followed closely by good text is
   good.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from ..document.blocks import Document
from ..document.language import stopwords
from .base import Algorithm, Classification, Context


class Cls(str, Enum):
    BAD = "bad"
    SHORT = "short"
    NEAR_GOOD = "near-good"
    GOOD = "good"


@dataclass(frozen=True)
class Params:
    """jusText's thresholds; the defaults are the published ones.

    max_link_density: blocks with more link characters than this share are bad.
    length_low / length_high: character lengths splitting short, medium and long.
    stopwords_low / stopwords_high: stop-word densities splitting low, medium, high.
    max_heading_distance: characters between a heading and good text for the
        heading passes to apply.
    no_headings: skip both heading passes.
    stoplist: explicit stop words; None takes the page language's list.
    """

    max_link_density: float = 0.2
    length_low: int = 70
    length_high: int = 200
    stopwords_low: float = 0.30
    stopwords_high: float = 0.32
    max_heading_distance: int = 200
    no_headings: bool = False
    stoplist: frozenset[str] | None = None


@dataclass(frozen=True)
class BlockStats:
    length: int
    link_density: float
    stopword_density: float
    has_link: bool
    has_copyright: bool
    in_select: bool
    is_heading: bool


def block_stats(doc: Document, stoplist: frozenset[str]) -> list[BlockStats]:
    in_select = _select_elements(doc)
    out = []
    for block in doc.blocks:
        words = block.text.split()
        stop = sum(1 for word in words if word.lower() in stoplist)
        out.append(BlockStats(
            length=block.char_count, link_density=block.link_density,
            stopword_density=stop / len(words) if words else 0.0,
            has_link=block.link_char_count > 0, has_copyright="\xa9" in block.text or "&copy" in block.text,
            in_select=in_select[block.element], is_heading=block.is_heading))
    return out


def _select_elements(doc: Document) -> list[bool]:
    """Per element: is it a ``<select>`` or inside one? (parents come before children)."""
    tags, parents = doc.elements.tags, doc.elements.parents
    inside = [False] * len(tags)
    for i, tag in enumerate(tags):
        inside[i] = tag == "select" or (parents[i] >= 0 and inside[parents[i]])
    return inside


# -- stage 1 + 2: context-free classification

def context_free_class(s: BlockStats, p: Params, thresholds: tuple[float, float]) -> Cls:
    low, high = thresholds
    if s.link_density > p.max_link_density or s.has_copyright or s.in_select:
        return Cls.BAD
    if s.length < p.length_low:
        return Cls.BAD if s.has_link else Cls.SHORT
    if s.stopword_density >= high:
        return Cls.GOOD if s.length > p.length_high else Cls.NEAR_GOOD
    if s.stopword_density >= low:
        return Cls.NEAR_GOOD
    return Cls.BAD


# -- stage 3: heading preprocessing

def _good_follows(classes: Sequence[Cls], stats: Sequence[BlockStats], i: int, max_distance: int) -> bool:
    """Is there a good block after ``i`` within ``max_distance`` characters?"""
    distance = 0
    for j in range(i + 1, len(classes)):
        if distance > max_distance:
            return False
        if classes[j] is Cls.GOOD:
            return True
        distance += stats[j].length
    return False


def promote_short_headings(classes: list[Cls], stats: list[BlockStats], p: Params) -> list[Cls]:
    out = list(classes)
    for i, s in enumerate(stats):
        if s.is_heading and classes[i] is Cls.SHORT and _good_follows(classes, stats, i, p.max_heading_distance):
            out[i] = Cls.NEAR_GOOD
    return out


# -- stage 4: context-sensitive classification

def _is_anchor(c: Cls, ignore_near_good: bool) -> bool:
    """Whether a neighbour of class ``c`` decides a short or near-good block's class."""
    return c is Cls.GOOD or c is Cls.BAD or (c is Cls.NEAR_GOOD and not ignore_near_good)


def _nearest(classes: Sequence[Cls], ignore_near_good: bool, before: bool) -> list[Cls]:
    """For every block, the class of the nearest good/bad (or near-good) block before it
    (``before``) or after it; an edge counts as bad. One pass, so that a long run of short
    blocks (a select of thousands of options, a sitemap) costs linear time."""
    order = range(len(classes)) if before else range(len(classes) - 1, -1, -1)
    nearest, last = [Cls.BAD] * len(classes), Cls.BAD
    for i in order:
        nearest[i] = last
        if _is_anchor(classes[i], ignore_near_good):
            last = classes[i]
    return nearest


def _resolve_short(prev: Cls, nxt: Cls, prev_any: Cls, next_any: Cls) -> Cls:
    """A short block between its nearest good/bad neighbours ``prev`` and ``nxt``;
    ``prev_any`` / ``next_any`` are the nearest ones when near-good blocks count too."""
    if prev is nxt:
        return prev
    # one good, one bad: good only when a near-good block stands on the bad side
    if prev is Cls.BAD and prev_any is Cls.NEAR_GOOD:
        return Cls.GOOD
    if nxt is Cls.BAD and next_any is Cls.NEAR_GOOD:
        return Cls.GOOD
    return Cls.BAD


def _resolve_near_good(prev: Cls, nxt: Cls) -> Cls:
    return Cls.BAD if prev is Cls.BAD and nxt is Cls.BAD else Cls.GOOD


def context_sensitive(classes: list[Cls]) -> list[Cls]:
    """Short blocks take their neighbours' class, then near-good blocks become good unless
    both their neighbours are bad (reading the short blocks as resolved)."""
    prev, nxt = _nearest(classes, True, True), _nearest(classes, True, False)
    prev_any, next_any = _nearest(classes, False, True), _nearest(classes, False, False)
    after_short = [_resolve_short(prev[i], nxt[i], prev_any[i], next_any[i]) if c is Cls.SHORT else c
                   for i, c in enumerate(classes)]
    prev, nxt = _nearest(after_short, True, True), _nearest(after_short, True, False)
    return [_resolve_near_good(prev[i], nxt[i]) if c is Cls.NEAR_GOOD else c for i, c in enumerate(after_short)]


# -- stage 5: heading postprocessing

def restore_headings(final: list[Cls], context_free: list[Cls], stats: list[BlockStats], p: Params) -> list[Cls]:
    out = list(final)
    for i, s in enumerate(stats):
        if (s.is_heading and final[i] is Cls.BAD and context_free[i] is not Cls.BAD
                and _good_follows(final, stats, i, p.max_heading_distance)):
            out[i] = Cls.GOOD
    return out


def classify(doc: Document, p: Params, language: str = "") -> tuple[list[Cls], list[Cls]]:
    """Return (context-free classes, final classes) for every block."""
    stoplist = p.stoplist if p.stoplist is not None else stopwords(language)
    # Without a stop list jusText runs language-independent: both thresholds 0.
    thresholds = (p.stopwords_low, p.stopwords_high) if stoplist else (0.0, 0.0)
    stats = block_stats(doc, stoplist)
    context_free = [context_free_class(s, p, thresholds) for s in stats]
    classes = context_free if p.no_headings else promote_short_headings(context_free, stats, p)
    final = context_sensitive(classes)
    if not p.no_headings:
        final = restore_headings(final, context_free, stats, p)
    return context_free, final


def run(doc: Document, p: Params, context: Context) -> Classification:
    context_free, final = classify(doc, p, context.language)
    reasons = [f"context-free {cf.value} -> {c.value}" for cf, c in zip(context_free, final)]
    return Classification.from_labels([c is Cls.GOOD for c in final], reasons)


ALGORITHM = Algorithm(
    name="justext", params_type=Params, run_fn=run, needs_attributes=False,
    summary="jusText: length, link density and stop-word density, then a context pass over neighbours",
    source="Pomikálek, Removing Boilerplate and Duplicate Content from Web Corpora (PhD thesis, 2011)")
