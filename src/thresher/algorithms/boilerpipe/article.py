"""The article pipeline in the spirit of boilerpipe's ArticleExtractor, over :class:`Segment` values."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import NamedTuple

from ...document.blocks import Document
from ..base import Classification, Context
from .classifiers import CLASSIFIERS, DensityParams, NumWordsParams, classify, explain
from .features import Features, block_features, inside

# Lower-cased end-of-article cues, tested on short blocks only. A bare "related"
# or "© " prefix is left out on purpose: "Related: <link>" lines inside articles
# and "© Photographer" image credits would end the article too early.
END_CUE_PREFIXES = (
    "comments", "please rate this", "post a comment", "leave a comment", "leave a reply",
    "add your comment", "reader comments", "related articles", "related stories", "related posts",
    "related content", "related links", "related coverage", "what's next?", "reuse/rights",
    "© reuters")
END_CUE_CONTAINS = (
    "all rights reserved", "add your comment", "add comment", "reader views", "have your say",
    "reader comments", "what you think...", "reuse/rights", "reuse rights",
    "thanks for your comments - this feedback is now closed")
# "12 comments", "3 users responded in this post"
END_CUE_COUNTED = r"^\d[\d,.]*\s+(?:comments?|responses?|users responded in)\b"


@dataclass(frozen=True)
class ArticleParams:
    """The article pipeline's thresholds; defaults follow boilerpipe's ArticleExtractor.

    classifier: "density" or "numwords", the decision tree that labels blocks.
    density / numwords: that classifier's thresholds.
    end_cue_max_words: only blocks with fewer words can be end-of-article cues.
    end_cue_prefixes / end_cue_contains / end_cue_counted: the cues (lower-cased
        prefixes, substrings, and a regular expression for comment counts).
    min_words_before_end: an end cue only ends the article after this many
        words of full-text content (words of content blocks whose text density
        is at least ``full_text_density``).
    full_text_density: see ``min_words_before_end``.
    fuse_distance: content blocks at most this many blocks apart are fused.
    fuse_into_boilerplate: the first fusion lets a content block join the
        block before it even when that one is boilerplate (boilerpipe's
        behaviour: the pair becomes content).
    expand_min_words: when the largest segment is expanded to same-level
        neighbours, a neighbour needs at least this many words.
    large_block_words: after the largest segment is chosen, any other segment
        at its tag level with at least this many words is content too.
    title_part_words: a part of the page title (split at "|", " - ", ":" ...)
        other than the longest needs this many words to be matched on its own.
    headlines_before_content: segments between the title match and the main
        text that were content before the largest-segment choice are kept.
    list_at_end: link-free list items directly after the main text, deeper
        than it, are kept.
    """

    classifier: str = "density"
    density: DensityParams = DensityParams()
    numwords: NumWordsParams = NumWordsParams()
    end_cue_max_words: int = 15
    end_cue_prefixes: tuple[str, ...] = END_CUE_PREFIXES
    end_cue_contains: tuple[str, ...] = END_CUE_CONTAINS
    end_cue_counted: str = END_CUE_COUNTED
    min_words_before_end: int = 60
    full_text_density: float = 9.0
    fuse_distance: int = 1
    fuse_into_boilerplate: bool = True
    expand_min_words: int = 150
    large_block_words: int = 100
    title_part_words: int = 4
    headlines_before_content: bool = True
    list_at_end: bool = True

    def __post_init__(self) -> None:
        if self.classifier not in CLASSIFIERS:
            raise ValueError(f"classifier must be one of {', '.join(CLASSIFIERS)}, not {self.classifier!r}")

    @property
    def wrap_width(self) -> int:
        return self.density.wrap_width if self.classifier == "density" else self.numwords.wrap_width


TITLE, END_CUE, HEADING, VERY_LIKELY, MIGHT_BE = 1, 2, 4, 8, 16
_TITLE_SPLITS = tuple(re.compile(pattern) for pattern in (
    r"\s*[|»›]\s*",            # "Story | Site"
    r"\s+[-–—]\s+",            # "Story - Site"
    r"\s*::\s*|:\s+",          # "Site: Story"
    r"\s*[|»:()\-–—]\s*",      # everything at once
))
_TITLE_TRIM = " \t\n.,;:!?-–—|»›'\"“”‘’()[]"


def normalize_title(text: str) -> str:
    return " ".join(text.lower().split()).strip(_TITLE_TRIM)


def title_candidates(*titles: str, min_part_words: int = 4) -> frozenset[str]:
    """Normalised strings a headline block may equal: each title, its longest
    part under several separator conventions, and its parts of at least
    ``min_part_words`` words."""
    found: set[str] = set()
    for title in titles:
        whole = normalize_title(title)
        if not whole:
            continue
        found.add(whole)
        for splitter in _TITLE_SPLITS:
            parts = [normalize_title(part) for part in splitter.split(whole)]
            parts = [part for part in parts if part]
            if len(parts) > 1:
                found.add(max(parts, key=len))
                found.update(part for part in parts if len(part.split()) >= min_part_words)
    return frozenset(found)


@lru_cache(maxsize=8)
def _end_cue_pattern(prefixes: tuple[str, ...], contains: tuple[str, ...], counted: str) -> re.Pattern:
    alternatives = [f"^(?:{'|'.join(map(re.escape, prefixes))})"] if prefixes else []
    alternatives += [re.escape(cue) for cue in contains]
    alternatives += [counted] if counted else []
    return re.compile("|".join(alternatives) or "(?!)")


def is_end_cue(text: str, words: int, p: ArticleParams) -> bool:
    """Does this block announce the end of the article (comments, copyright, related links)?"""
    if words >= p.end_cue_max_words:
        return False
    low = text.lower()
    if "\n" in low or "  " in low:  # preformatted text
        low = " ".join(low.split())
    return _end_cue_pattern(p.end_cue_prefixes, p.end_cue_contains, p.end_cue_counted).search(low) is not None


def block_labels(doc: Document, features: Sequence[Features], p: ArticleParams) -> list[int]:
    titles = title_candidates(doc.title, doc.meta_content("og:title", "twitter:title"),
                              min_part_words=p.title_part_words)
    shortest = min((len(t) for t in titles), default=0)
    longest = max((len(t) for t in titles), default=-1)
    labels = []
    for block, f in zip(doc.blocks, features):
        label = 0
        # normalising trims at most a few characters of punctuation and spaces
        if shortest <= block.char_count <= longest + 8 and normalize_title(block.text) in titles:
            label |= TITLE
        if is_end_cue(block.text, f.words, p):
            label |= END_CUE
        if block.is_heading:
            label |= HEADING
        labels.append(label)
    return labels


class Segment(NamedTuple):
    """Blocks fused into one unit of the article pipeline."""

    blocks: tuple[int, ...]  # block indices, ascending
    features: Features
    labels: int
    content: bool
    why: str  # the last decision that set ``content``

    @property
    def first(self) -> int:
        return self.blocks[0]

    @property
    def last(self) -> int:
        return self.blocks[-1]

    def has(self, label: int) -> bool:
        return bool(self.labels & label)

    def decided(self, content: bool, why: str, label: int = 0) -> Segment:
        return _new_segment(self.blocks, self.features, self.labels | label, content, why)


def _new_segment(blocks: tuple[int, ...], features: Features, labels: int, content: bool, why: str) -> Segment:
    """``Segment(...)`` without the keyword handling: segments are made per block and per step."""
    return tuple.__new__(Segment, (blocks, features, labels, content, why))


def merge_features(a: Features, b: Features) -> Features:
    return Features(a.words + b.words, a.anchor_words + b.anchor_words, a.wrapped_words + b.wrapped_words,
                    a.wrapped_lines + b.wrapped_lines, min(a.tag_level, b.tag_level))


def _may_fuse(prev: Segment, seg: Segment, distance: int, content_only: bool, same_level: bool) -> bool:
    return (seg.first - prev.last - 1 <= distance
            and (prev.content or not content_only)
            and (prev.features.tag_level == seg.features.tag_level or not same_level))


def fuse(segments: Sequence[Segment], distance: int, content_only: bool, same_level: bool) -> tuple[Segment, ...]:
    """Block-proximity fusion: a content segment joins the segment before it
    when at most ``distance`` blocks lie between them (``content_only``: only
    when that one is content too; ``same_level``: only at the same tag level).
    A fused segment is content when either part was."""
    start = next((i for i, s in enumerate(segments) if s.content), None) if content_only else 0
    if len(segments) < 2 or start is None:
        return tuple(segments)
    out = list(segments[:start + 1])
    members = [list(s.blocks) for s in out]
    for seg in segments[start + 1:]:
        prev = out[-1]
        if seg.content and _may_fuse(prev, seg, distance, content_only, same_level):
            why = prev.why if prev.content else seg.why
            out[-1] = Segment((*prev.blocks[:1], seg.last), merge_features(prev.features, seg.features),
                              prev.labels | seg.labels, True, why)
            members[-1].extend(seg.blocks)
        else:
            out.append(seg)
            members.append(list(seg.blocks))
    return tuple(_new_segment(tuple(m), s.features, s.labels, s.content, s.why) for s, m in zip(out, members))


def cut_after_end_cue(segments: Sequence[Segment], p: ArticleParams) -> tuple[Segment, ...]:
    """After enough full-text content, an end cue makes it and everything later boilerplate."""
    words, ended = 0, False
    out = []
    for seg in segments:
        if seg.content and seg.features.text_density >= p.full_text_density:
            words += seg.features.words
        ended = ended or (seg.has(END_CUE) and words >= p.min_words_before_end)
        out.append(seg.decided(False, "after the end-of-article cue") if ended and seg.content else seg)
    return tuple(out)


def drop_trailing_headings(segments: Sequence[Segment]) -> tuple[Segment, ...]:
    """Headings that end the content have nothing under them."""
    out = list(segments)
    for i in range(len(out) - 1, -1, -1):
        if not out[i].content:
            continue
        if not out[i].has(HEADING):
            break
        out[i] = out[i].decided(False, "trailing heading")
    return tuple(out)


def drop_boilerplate(segments: Sequence[Segment]) -> tuple[Segment, ...]:
    """Later steps see only content and title segments."""
    return tuple(s for s in segments if s.content or s.has(TITLE))


def keep_largest(segments: Sequence[Segment], min_words: int) -> tuple[Segment, ...]:
    """Only the content segment with the most words stays content, plus the
    same-tag-level segments of at least ``min_words`` words around it (up to
    the first shallower segment on each side)."""
    content = [i for i, s in enumerate(segments) if s.content]
    if not content:
        return tuple(segments)
    best = max(content, key=lambda i: (segments[i].features.words, -i))
    level = segments[best].features.tag_level
    words = segments[best].features.words
    out = [s.decided(True, f"largest content segment ({words} words)", VERY_LIKELY) if i == best
           else s.decided(False, "not in the largest segment", MIGHT_BE) for i, s in enumerate(segments)]
    for order in (range(best - 1, -1, -1), range(best + 1, len(out))):
        for i in order:
            seg_level = out[i].features.tag_level
            if seg_level < level:
                break
            if seg_level == level and out[i].features.words >= min_words:
                out[i] = out[i].decided(True, f"beside the largest segment, {min_words}+ words")
    return tuple(out)


def expand_title_to_content(segments: Sequence[Segment]) -> tuple[Segment, ...]:
    """Headlines before main content: former content between the title match and the main text is kept."""
    title = start = -1
    for i, seg in enumerate(segments):
        if seg.has(TITLE):
            title = i
        if seg.content:
            start = i
            break
    if title < 0 or start <= title:
        return tuple(segments)
    return tuple(s.decided(True, "between the title and the main text")
                 if title <= i < start and s.has(MIGHT_BE) else s for i, s in enumerate(segments))


def large_blocks_at_main_level(segments: Sequence[Segment], min_words: int) -> tuple[Segment, ...]:
    level = next((s.features.tag_level for s in segments if s.content and s.has(VERY_LIKELY)), None)
    if level is None:
        return tuple(segments)
    return tuple(s.decided(True, f"{min_words}+ words at the main text's tag level")
                 if not s.content and s.features.words >= min_words and s.features.tag_level == level
                 else s for s in segments)


def list_at_end(segments: Sequence[Segment], is_list_item: Callable[[Segment], bool]) -> tuple[Segment, ...]:
    """Link-free list items right after the main text, nested deeper than it, are its list."""
    out = list(segments)
    level = None
    for i, seg in enumerate(out):
        if seg.content and seg.has(VERY_LIKELY):
            level = seg.features.tag_level
        elif (level is not None and seg.features.tag_level > level and seg.has(MIGHT_BE)
              and seg.features.anchor_words == 0 and is_list_item(seg)):
            out[i] = seg.decided(True, "list at the end of the main text")
        else:
            level = None
    return tuple(out)


def _in_list_item(doc: Document, seg: Segment) -> bool:
    return any(inside(doc, doc.blocks[i].element, "li") for i in seg.blocks)


class ArticleRun(NamedTuple):
    features: tuple[Features, ...]  # per block
    decisions: list[tuple[bool, str]]  # the classifier's, per block (why-templates)
    classified: tuple[Segment, ...]  # after the steps that precede boilerplate removal
    final: tuple[Segment, ...]


def article_segments(doc: Document, p: ArticleParams) -> ArticleRun:
    """Run the whole pipeline."""
    features = block_features(doc, p.wrap_width)
    decisions = classify(features, CLASSIFIERS[p.classifier], _rule_params(p))
    labels = block_labels(doc, features, p)
    segments: tuple[Segment, ...] = tuple(
        _new_segment((i,), f, label, content, "classifier") for i, (f, label, (content, _)) in
        enumerate(zip(features, labels, decisions)))
    segments = cut_after_end_cue(segments, p)
    segments = drop_trailing_headings(segments)
    segments = fuse(segments, p.fuse_distance, content_only=not p.fuse_into_boilerplate, same_level=False)
    classified = segments
    segments = drop_boilerplate(segments)
    segments = fuse(segments, p.fuse_distance, content_only=True, same_level=True)
    segments = keep_largest(segments, p.expand_min_words)
    if p.headlines_before_content:
        segments = expand_title_to_content(segments)
    segments = large_blocks_at_main_level(segments, p.large_block_words)
    if p.list_at_end:
        segments = list_at_end(segments, partial(_in_list_item, doc))
    return ArticleRun(features, decisions, classified, segments)


def _rule_params(p: ArticleParams):
    return p.density if p.classifier == "density" else p.numwords


def article_reasons(run: ArticleRun, p: ArticleParams) -> list[str]:
    """Why each block ended where it did: the classifier's decision, then the pipeline's."""
    decided = [f"{p.classifier}: {why}" for why in explain(run.features, run.decisions, _rule_params(p))]
    reasons = list(decided)
    for seg in run.classified:
        if not seg.content:
            for i in seg.blocks:
                reasons[i] = f"{decided[i]}; {'boilerplate' if seg.why == 'classifier' else seg.why}"
    for seg in run.final:
        for i in seg.blocks:
            reasons[i] = f"{decided[i]}; {seg.why}"
    return reasons


def run_article(doc: Document, p: ArticleParams, context: Context) -> Classification:
    result = article_segments(doc, p)
    labels = [False] * len(doc.blocks)
    for seg in result.final:
        for i in seg.blocks:
            labels[i] = seg.content
    return Classification.from_labels(labels, article_reasons(result, p) if context.explain else ())
