"""What the content switches do around an algorithm: pruning before it, filters after it.

* :func:`prune_document`: the document without the blocks of the elements that match CSS
  selectors (``prune``), built before classification so no algorithm sees them.
* Post-filters turn kept blocks off, never on: :func:`comment_drop` (comment sections,
  dropped unless ``include_comments``), :func:`table_blocks` (``include_tables=False``)
  and :func:`repeated_blocks` (``deduplicate``).
* Page rejects: :func:`missing_metadata` (``only_with_metadata``) and
  :func:`other_language` (``target_language``) say why a page gives an empty result.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
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

    ``max_share``: when the comment-section blocks would be more than this share of the kept
    words, the detection is taken for a mistake (a forum's posts, a page wrapped in a
    comment-named element) and nothing is dropped.
    """

    words: frozenset[str] = frozenset({"comment", "comments", "disqus", "respond", "reply", "replies",
                                       "commentlist", "discussion"})
    state_tokens: frozenset[str] = frozenset({"comments-open", "comments-closed", "comments-link", "no-comments",
                                              "has-comments", "comments-count", "comment-count",
                                              "comments-number", "comments_link"})
    wrapper_tags: frozenset[str] = frozenset({"html", "body", "main", "article"})
    max_share: float = 0.5


@lru_cache(maxsize=8)
def _native_words(params: CommentParams) -> _core.CommentWords:
    """``params``' word lists as the core reads them, built once per parameter set."""
    return _core.CommentWords(words=sorted(params.words), state_tokens=sorted(params.state_tokens),
                              wrapper_tags=sorted(params.wrapper_tags))


def comment_elements(doc: Document, params: CommentParams = CommentParams()) -> np.ndarray:
    """Per element: it or an ancestor names a comment section (computed by the core,
    ``crates/core/src/filters.rs``, from the attributes the document holds)."""
    return doc.native.comment_elements(_native_words(params))


def comment_blocks(doc: Document, params: CommentParams = CommentParams(),
                   only: Sequence[bool] | None = None) -> list[bool]:
    """Per block: it lies in a comment section (with ``only``, blocks not in it are False)."""
    return doc.native.comment_blocks(_native_words(params), [True] * len(doc.blocks) if only is None else only)


def comment_drop(doc: Document, keep: Sequence[bool], comments: Sequence[bool],
                 params: CommentParams = CommentParams()) -> list[bool]:
    """The kept comment blocks to drop: none when they are most of the kept text (see
    :attr:`CommentParams.max_share`)."""
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
