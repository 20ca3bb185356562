"""The five shallow features of a block: words, anchor words, link density, text density, tag level."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ... import _core
from ...document.blocks import Document

# A token is a word when it holds a letter or a digit: the tokens that do not.
_NON_WORD_TOKEN = re.compile(r"(?<!\S)(?:[^\w\s]|_)+(?!\S)")


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


def count_words(text: str) -> int:
    """Whitespace-separated tokens of ``text`` holding a letter or a digit."""
    tokens = text.split()
    return len(tokens) - len(_NON_WORD_TOKEN.findall(text)) if tokens else 0


def wrap_counts(text: str, width: int = 80) -> tuple[int, int, int]:
    """(words, words on counted lines, counted lines) of ``text`` wrapped at ``width``.

    Kohlschütter's wrap as the core computes the ``text_density`` feature column
    (``crates/core/src/features/shallow.rs``), counting as words only the tokens that hold a
    letter or a digit. One line: all its words over one line. Several lines: the last,
    partial line is left out of both counts.
    """
    return _core.wrap_counts(text, width)


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
