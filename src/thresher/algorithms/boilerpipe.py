"""Boilerpipe (Kohlschütter, Fankhauser, Nejdl, WSDM 2010): shallow text features.

Every block is described by five shallow features (:class:`Features`):

* **words**: tokens holding a letter or digit;
* **anchor words**: such tokens inside ``<a>``;
* **link density**: anchor words / words;
* **text density**: the block word-wrapped at 80 characters; the words on its
  lines divided by the number of lines, the last (partial) line left out when
  there are several;
* **tag level**: the depth of the block's delimiting element.

Three extractors share them:

``boilerpipe-numwords``
    the paper's decision tree over the word counts and link densities of the
    previous, current and next block (the "NumWords" classifier);
``boilerpipe-density``
    the paper's decision tree over text densities (the "Density" classifier);
``boilerpipe-article``
    an article pipeline in the spirit of boilerpipe's ArticleExtractor: end
    cues and title matching label blocks, a classifier decides, then a chain
    of filters cuts the text after an end cue, drops trailing headings, fuses
    nearby content, keeps the largest content segment (expanded to same-level
    neighbours), restores headlines between the title and the main text, and
    re-admits large same-level blocks and lists at the end of the text.

The pipeline works on :class:`Segment` values (runs of fused blocks) and maps
its decisions back onto blocks; nothing is mutated.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Callable, NamedTuple, Sequence

from ..blocks import Document
from .base import Algorithm, Classification, Context

SOURCE = ("Kohlschütter, Fankhauser, Nejdl: Boilerplate Detection using Shallow Text Features "
          "(WSDM 2010)")

# A token is a word when it holds a letter or a digit.
_WORDISH = re.compile(r"[^\W_]")
_NON_WORD_TOKEN = re.compile(r"(?<!\S)(?:[^\w\s]|_)+(?!\S)")


# ---------------------------------------------------------------- parameters

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


# ------------------------------------------------------------------ features

class Features(NamedTuple):
    """A block's (or a fused segment's) shallow features."""

    words: int
    anchor_words: int
    wrapped_words: int  # words on the counted wrapped lines
    wrapped_lines: int  # lines counted for the text density
    tag_level: int

    @property
    def link_density(self) -> float:
        return self.anchor_words / self.words if self.words else 0.0

    @property
    def text_density(self) -> float:
        return self.wrapped_words / self.wrapped_lines if self.wrapped_lines else 0.0


EMPTY = Features(0, 0, 0, 0, 0)  # the neighbour of the first and the last block


def is_word(token: str) -> bool:
    return token.isalnum() or _WORDISH.search(token) is not None


def count_words(text: str) -> int:
    """Whitespace-separated tokens of ``text`` holding a letter or a digit."""
    tokens = text.split()
    return len(tokens) - len(_NON_WORD_TOKEN.findall(text)) if tokens else 0


def wrapped_lines(text: str, width: int = 80) -> list[str]:
    """``text`` (single-spaced) word-wrapped at ``width``: a token that would take its
    line past ``width`` characters starts a new line; a longer token is a line of its own."""
    return _line_pattern(width).findall(text)


@lru_cache(maxsize=8)
def _line_pattern(width: int) -> re.Pattern:
    return re.compile(rf"[^ ]{{{width + 1},}}|[^ ](?:.{{0,{width - 1}}}(?= |$))")


def wrap_counts(text: str, width: int = 80) -> tuple[int, int, int]:
    """(words, words on counted lines, counted lines) of ``text`` wrapped at ``width``.

    One line: all its words over one line. Several lines: the last, partial
    line is left out of both counts.
    """
    if len(text) <= width:  # the tokens fit on one line
        words = count_words(text)
        return words, words, 1
    text = " ".join(text.split())  # preformatted blocks keep line breaks and runs of spaces
    lines = wrapped_lines(text, width)
    words = count_words(text)
    if len(lines) <= 1:
        return words, words, 1
    return words, words - count_words(lines[-1]), len(lines) - 1


def text_density(text: str, width: int = 80) -> float:
    """Words per wrapped line, the last line left out when there are several."""
    _, wrapped_words, lines = wrap_counts(text, width)
    return wrapped_words / lines if lines else 0.0


def inside(doc: Document, element: int, tag: str, stop: int = -1) -> bool:
    """Is ``element`` or one of its ancestors below ``stop`` a ``tag`` element?"""
    tags, parents = doc.elements.tags, doc.elements.parents
    while element >= 0 and element != stop:
        if tags[element] == tag:
            return True
        element = parents[element]
    return False


def anchor_words(doc: Document, block, words: int) -> int:
    """Words of ``block`` inside links.

    A block whose every token is link text is all anchor words. In a mixed
    block the delimiting element is not inside a link, so a span is link text
    exactly when a link lies between it and the delimiting element.
    """
    if not block.link_word_count:
        return 0
    if block.link_word_count >= block.word_count:
        return words
    linked = sum(count_words(text) for text, element in block.spans
                 if inside(doc, element, "a", stop=block.element))
    return min(words, linked)


def block_features(doc: Document, width: int = 80) -> tuple[Features, ...]:
    """The shallow features of every block, in block order.

    A block that fits on one line needs no wrapping: its words are its
    tokens (``Block.word_count``) less the tokens without a letter or digit.
    """
    depths = doc.elements.depths
    non_words, new = _NON_WORD_TOKEN.findall, tuple.__new__
    out = []
    for block in doc.blocks:
        text = block.text
        if len(text) > width:
            words, wrapped_words, lines = wrap_counts(text, width)
        else:
            words = wrapped_words = block.word_count - len(non_words(text)) if block.word_count else 0
            lines = 1
        anchor = anchor_words(doc, block, words)
        out.append(new(Features, (words, anchor, wrapped_words, lines, depths[block.element])))
    return tuple(out)


def neighbours(features: Sequence[Features]):
    """(previous, current, next) for every block; the edges see :data:`EMPTY`."""
    padded = (EMPTY, *features, EMPTY)
    return zip(padded, padded[1:], padded[2:])


# --------------------------------------------------------------- classifiers

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


# ------------------------------------------------------------ block labels

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
    return _is_end_cue(text, words, p.end_cue_max_words, _end_cue(p))


def _end_cue(p: ArticleParams) -> re.Pattern:
    return _end_cue_pattern(p.end_cue_prefixes, p.end_cue_contains, p.end_cue_counted)


def _is_end_cue(text: str, words: int, max_words: int, pattern: re.Pattern) -> bool:
    if words >= max_words:
        return False
    low = text.lower()
    if "\n" in low or "  " in low:  # preformatted text
        low = " ".join(low.split())
    return pattern.search(low) is not None


def block_labels(doc: Document, features: Sequence[Features], p: ArticleParams) -> list[int]:
    titles = title_candidates(doc.title, doc.meta_content("og:title", "twitter:title"),
                              min_part_words=p.title_part_words)
    shortest = min((len(t) for t in titles), default=0)
    longest = max((len(t) for t in titles), default=-1)
    end_cue, max_words = _end_cue(p), p.end_cue_max_words
    labels = []
    for block, f in zip(doc.blocks, features):
        label = 0
        # normalising trims at most a few characters of punctuation and spaces
        if shortest <= block.char_count <= longest + 8 and normalize_title(block.text) in titles:
            label |= TITLE
        if _is_end_cue(block.text, f.words, max_words, end_cue):
            label |= END_CUE
        if block.is_heading:
            label |= HEADING
        labels.append(label)
    return labels


# ----------------------------------------------------------------- segments

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

    def decided(self, content: bool, why: str, label: int = 0) -> "Segment":
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
            out[-1] = Segment(prev.blocks[:1] + (seg.last,), merge_features(prev.features, seg.features),
                              prev.labels | seg.labels, True, why)
            members[-1].extend(seg.blocks)
        else:
            out.append(seg)
            members.append(list(seg.blocks))
    return tuple(_new_segment(tuple(m), s.features, s.labels, s.content, s.why) for s, m in zip(out, members))


# ------------------------------------------------------------ pipeline steps

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


ALGORITHMS = (
    Algorithm(name="boilerpipe-numwords", params_type=NumWordsParams, run_fn=run_numwords, source=SOURCE, needs_language=False,
              needs_attributes=False,
              summary="Boilerpipe NumWords: decision tree over word counts and link densities of neighbours"),
    Algorithm(name="boilerpipe-density", params_type=DensityParams, run_fn=run_density, source=SOURCE, needs_language=False,
              needs_attributes=False,
              summary="Boilerpipe Density: decision tree over text densities and link densities of neighbours"),
    Algorithm(name="boilerpipe-article", params_type=ArticleParams, run_fn=run_article, source=SOURCE, needs_language=False,
              needs_attributes=False,
              summary="Boilerpipe article pipeline: end cues, title, classifier, fusion, largest segment"),
)
