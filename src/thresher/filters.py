"""What the content switches do around an algorithm: pruning before it, filters after it.

* :func:`prune_document`: the document without the blocks of the elements that match CSS
  selectors (``prune``), built before classification so no algorithm sees them.
* Comment sections (:func:`comment_sections`, found in the core by their names and their
  structure): never main content on a page that is not a forum, their entries the page's
  comments; on a forum :func:`comment_drop` drops the named ones unless they are most of
  the text (a forum's posts are its content). :func:`comment_headings` finds a trailing
  "Comments" heading.
* Post-filters turn kept blocks off, never on: :func:`comment_drop`,
  :func:`table_blocks` (``include_tables=False``) and :func:`repeated_blocks`
  (``deduplicate``).
* Page rejects: :func:`missing_metadata` (``only_with_metadata``) and
  :func:`other_language` (``target_language``) say why a page gives an empty result.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from itertools import compress
from operator import and_
from typing import TYPE_CHECKING, Any

from . import _core
from ._lazy import LazyModule
from .algorithms.base import Classification
from .document.blocks import Block, Document, ElementTable, PageBlocks
from .options import SeenTexts, css_selectors

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays


@dataclass(frozen=True)
class CommentParams:
    """The comment-section detector.

    An element names a comment section when one of its class tokens or its id, split into
    words at ``-`` and ``_`` and lower-cased, has a word in ``words`` and is not one of
    ``state_tokens`` (page-state classes such as WordPress's ``comments-open`` on ``<body>``).
    Elements with a tag in ``wrapper_tags`` never do (they wrap the whole page). A block lies
    in a comment section when its delimiting element or an ancestor names one.

    The structural detector (``crates/core/src/comments.rs``) finds lists of sibling entries
    (tags ``entry_tags``, at least ``min_entries``) each with two comment signals in its
    subtree, one of them specific to comments: an author (class, id or itemprop words
    ``author_words``, ``<cite>``, ``rel=author``), a time (``<time>``, ``time_words``,
    date-looking text), a reply or permalink control (``marker_words``, a link whose whole
    text is one of ``marker_texts`` or whose address replies), an avatar (``avatar_parts`` in
    an image's class, id, src or alt), schema.org's ``Comment``/``UserComments`` itemtype, or
    a comment class word. An entry with a heading of ``headline_link_words`` link words or
    more to another page, or whose first block is mostly a link of ``teaser_link_words``
    words or more to another page, is a teaser, not a comment, one with an ``h1``/``h2`` or a word of
    ``other_words`` (reviews, answers) or schema.org's ``Review``/``Answer`` itemtype is
    other content, and one of more than ``max_entry_chars`` characters or more than
    ``max_link_share`` of them in links is a page region or a link list; ``form_words`` mark
    comment forms (never comment text).
    A list's parent is part of the section when its entries hold ``parent_share`` of its text.

    ``max_share``: on a forum page (:func:`is_forum`) named sections' kept blocks are dropped
    only when they are at most this share of the kept words (:func:`comment_drop`).

    ``heading_words``: a kept heading (or a block of at most ``short_title_words`` words) of at
    most ``heading_max_words`` words with one of these words (or opening with a number and
    holding one of ``count_words``) (digits and punctuation aside)
    after which nothing of the main content is kept is a comment section's title ("3
    Comments", "Leave a Reply"), not content.
    """

    words: frozenset[str] = frozenset({"comment", "comments", "disqus", "respond", "reply", "replies",
                                       "commentlist", "discussion"})
    state_tokens: frozenset[str] = frozenset({"comments-open", "comments-closed", "comments-link", "no-comments",
                                              "has-comments", "comments-count", "comment-count",
                                              "comments-number", "comments_link"})
    wrapper_tags: frozenset[str] = frozenset({"html", "body", "main", "article"})
    max_share: float = 0.5
    author_words: frozenset[str] = frozenset({"author", "user", "username", "nickname", "fn", "vcard", "poster",
                                              "commenter", "byline", "nick", "uname"})
    time_words: frozenset[str] = frozenset({"date", "time", "timestamp", "datetime", "published", "ago",
                                            "posted"})
    marker_words: frozenset[str] = frozenset({"reply", "permalink", "report", "flag", "vote", "votes", "upvote",
                                              "downvote", "like", "likes"})
    marker_texts: frozenset[str] = frozenset({"reply", "permalink", "report", "report abuse", "flag", "like",
                                              "quote", "link", "antworten", "répondre", "responder", "rispondi",
                                              "beantwoorden", "reageren", "odpowiedz", "svara", "svar",
                                              "ответить", "返信", "回复", "답글", "reply ↓"})
    avatar_parts: tuple[str, ...] = ("avatar", "gravatar", "userpic")
    form_words: frozenset[str] = frozenset({"respond", "form", "commentform", "textarea", "login", "signin"})
    entry_tags: frozenset[str] = frozenset({"li", "article", "div", "section", "dd", "blockquote", "tr"})
    min_entries: int = 2
    parent_share: float = 0.6
    headline_link_words: int = 2
    teaser_link_words: int = 4
    other_words: frozenset[str] = frozenset({"review", "reviews", "rating", "ratings", "testimonial", "feedback",
                                             "testimonials", "answer", "answers", "question", "questions"})
    max_entry_chars: int = 5000
    max_link_share: float = 0.8
    heading_words: frozenset[str] = frozenset({
        "comment", "comments", "reply", "replies", "kommentar", "kommentare", "kommentarer", "commentaire",
        "commentaires", "comentario", "comentarios", "comentários", "commenti", "commento", "reacties",
        "komentarze", "komentáře", "комментарии", "коментарі", "yorumlar", "コメント", "评论", "댓글"})
    count_words: frozenset[str] = frozenset({"thoughts", "responses", "reactions", "replies", "comments"})
    heading_max_words: int = 12
    short_title_words: int = 4


@lru_cache(maxsize=8)
def _native_words(params: CommentParams) -> _core.CommentWords:
    """``params``' word lists as the core reads them, built once per parameter set."""
    return _core.CommentWords(words=sorted(params.words), state_tokens=sorted(params.state_tokens),
                              wrapper_tags=sorted(params.wrapper_tags))


@lru_cache(maxsize=8)
def _native_signals(params: CommentParams) -> _core.CommentSignals:
    """``params``' structural vocabularies and thresholds as the core reads them."""
    return _core.CommentSignals(
        author_words=sorted(params.author_words), time_words=sorted(params.time_words),
        marker_words=sorted(params.marker_words), marker_texts=sorted(params.marker_texts),
        avatar_parts=list(params.avatar_parts), form_words=sorted(params.form_words),
        entry_tags=sorted(params.entry_tags), min_entries=params.min_entries, parent_share=params.parent_share,
        headline_link_words=params.headline_link_words, teaser_link_words=params.teaser_link_words,
        other_words=sorted(params.other_words),
        max_entry_chars=params.max_entry_chars, max_link_share=params.max_link_share)


# The bits of :func:`comment_sections`' answer.
NAMED, SECTION, ENTRY = 1, 2, 4


def comment_sections(doc: Document, params: CommentParams = CommentParams()) -> bytes:
    """Per block, a byte of bits: :data:`NAMED` (inside an element whose id or class names a
    comment section), :data:`SECTION` (inside a comment section, named or found by its
    structure, or its title heading) and :data:`ENTRY` (the text of a comment: inside an
    entry, not a form or a reply control). Computed by the core in one pass."""
    if not doc.blocks:
        return b""
    return doc.native.comment_sections(_native_words(params), _native_signals(params))


_NOT_WORD = r"[\W\d_]+"  # compiled at its first use (a page whose comment sections have headings)


def is_comment_heading(text: str, params: CommentParams = CommentParams()) -> bool:
    """A comment section's title: at most ``heading_max_words`` words, one of them a
    ``heading_words`` word ("Comments", "Leave a Reply"), or a count of ``count_words``
    ("12 thoughts on ...", "3 Responses to ...")."""
    words = re.sub(_NOT_WORD, " ", text.casefold()).split()
    if not 0 < len(text.split()) <= params.heading_max_words:
        return False
    counted = text.lstrip()[:1].isdigit() and any(w in params.count_words for w in words)
    return counted or any(w in params.heading_words for w in words)


def comment_headings(doc: Document, keep: Sequence[bool], sections: Sequence[bool],
                     params: CommentParams = CommentParams()) -> list[bool]:
    """Per block: a kept heading (or a block of at most ``short_title_words`` words) that
    titles comments (:func:`is_comment_heading`) right before a comment section
    (``sections``, per block) or after which no block but such titles is kept: a "Comments"
    heading or a "Leave a comment" link left after the article. Only the blocks that could be
    such a title are read: the last kept ones and those right before a section."""
    n = len(keep)
    drop = [False] * n

    def title(index: int) -> bool:
        block = doc.blocks[index]
        return ((block.is_heading or block.word_count <= params.short_title_words)
                and is_comment_heading(block.text, params))

    # The kept blocks from the end while they are titles; the kept blocks before the first
    # that is not are read only when a section follows them.
    last = -1
    for index in compress(range(n - 1, -1, -1), reversed(keep)):
        if not title(index):
            last = index
            break
        drop[index] = True
    for index in compress(range(last), map(and_, keep[:last], sections[1:last + 1])):
        drop[index] = title(index)
    return drop


def blocks_with(sections: bytes, bit: int) -> list[bool]:
    """Per block of :func:`comment_sections`' answer: whether its byte holds ``bit``."""
    return list(map(bool, sections.translate(_only(bit))))


@cache
def _only(bit: int) -> bytes:
    """The translation table that keeps ``bit`` of each byte and clears the others."""
    return bytes(b & bit for b in range(256))


def is_forum(keep: Sequence[bool], sections: Sequence[bool], page_type: str) -> bool:
    """Whether a page's comment sections are its content: the page type is ``forum`` and the
    algorithm kept some of them (a thread's posts). A page the type classifier takes for a
    forum whose sections were all left out (an article with its comments) is not one."""
    return page_type == "forum" and any(map(and_, keep, sections))


def comment_drop(doc: Document, keep: Sequence[bool], comments: Sequence[bool],
                 params: CommentParams = CommentParams()) -> list[bool]:
    """The kept comment blocks to drop on a forum page: none when they are most of the kept
    text (see :attr:`CommentParams.max_share`)."""
    return doc.native.comment_drop(keep, comments, params.max_share)


def table_blocks(doc: Document) -> list[bool]:
    """Per block: it lies inside a ``<table>``."""
    return doc.native.blocks_inside(["table"])


def repeated_blocks(blocks: Sequence[Block], keep: Sequence[bool], seen: SeenTexts) -> list[bool]:
    """Per block: kept, and its text was already kept often enough (``seen`` counts it). Only
    the kept blocks are read."""
    return [bool(k) and seen.seen_enough(blocks[i].text) for i, k in enumerate(keep)]


def without(classification: Classification, drop: Sequence[bool]) -> Classification:
    """``classification`` with the ``drop`` blocks turned off (scores and reasons kept)."""
    if not any(drop):
        return classification
    labels = tuple(bool(keep) and not dropped for keep, dropped in zip(classification.labels, drop))
    return replace(classification, labels=labels)


def pruned_blocks(doc: Document, selectors: Sequence[str]) -> np.ndarray:
    """Per block: it lies inside an element matching one of the CSS ``selectors`` (matched
    natively on the page's DOM, ``crates/core/src/select.rs``); :class:`OptionError` for a
    selector it cannot read."""
    return doc.native.pruned_blocks(css_selectors(tuple(selectors)))


def prune_document(doc: Document, selectors: Sequence[str]) -> Document:
    """``doc`` without the blocks inside elements matching ``selectors``: a view of the native
    page without them (``_core.Page.keep_blocks``); the elements stay, their block ranges
    renumbered (a pruned subtree's range is empty)."""
    drop = pruned_blocks(doc, selectors)
    if not drop.any():
        return doc
    keep = ~drop
    before = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)
    el = doc.elements
    elements = ElementTable(el.tags, el.parents, el.depths, el.attrs,
                            tuple(before[list(el.first_blocks)].tolist()),
                            tuple(before[list(el.end_blocks)].tolist()))
    return replace(doc, elements=elements, blocks=PageBlocks(doc.native.keep_blocks(keep)))


# Inline tags whose mark is bold or italic; ``include_formatting=False`` renders them as plain spans.
FORMATTING_TAGS = frozenset({"b", "strong", "i", "em", "cite"})


def unformatted(doc: Document) -> Document:
    """``doc`` whose bold and italic elements the renderers write as plain text (no marks): the
    same page, with those tags in :attr:`Document.unmarked`."""
    if not FORMATTING_TAGS.intersection(doc.elements.tags):
        return doc
    return replace(doc, unmarked=doc.unmarked | FORMATTING_TAGS)


def missing_metadata(metadata: Any, url: str | None) -> str:
    """Why a page lacks the essential metadata (title, date, URL); "" when it has them."""
    missing = [name for name, value in (("title", getattr(metadata, "title", "")),
                                        ("date", getattr(metadata, "date", "")),
                                        ("url", getattr(metadata, "url", "") or url or "")) if not value]
    return f"missing metadata: {', '.join(missing)}" if missing else ""


def other_language(page_language: str, target: str | None) -> str:
    """Why a page in ``page_language`` is not in ``target``; "" when it is (or no target)."""
    if not target or page_language.split("-")[0].lower() == target.split("-")[0]:
        return ""
    return f"page language {page_language or 'unknown'!r} is not {target!r}"
