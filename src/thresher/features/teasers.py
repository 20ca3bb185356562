"""Teaser grids: the link-dense repeated items of a "related posts" or "you may also like" list.

A teaser item is one of several siblings of the same tag and class (a card, a list entry) that
holds a headline link and a line or two of summary: little text, a good share of it in links,
and at least two blocks (the headline and the snippet). :func:`teaser_blocks` marks their blocks.
On an article they are related content, not the article; on a listing or a collection page they
are what the page lists. Extraction does not read the marks yet: used as a rule by page type in
the flagship's decoding they did not help in cross-validation (docs/training-notes.md, "Decoding
by page type"); they are kept as a candidate column for the next retraining.

The rule reads arrays only (the tree facts' parents and sibling counts, the blocks' elements,
words and link density), so a training harness and extraction mark the same blocks.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..document.blocks import Document
from .native import tree_facts

# Elements that are never an item of their own: inline text and table cells and rows (a table's
# repeated rows are a table, not a grid of teasers).
NOT_ITEMS = frozenset({"a", "span", "p", "br", "td", "th", "tr", "option", "b", "i", "em", "strong", "small",
                       "img", "label"})


class TeaserRule(NamedTuple):
    """What makes an item a teaser.

    siblings: an item has at least this many others of its tag and class under its parent.
    levels: how far above a block's own element its item may lie.
    max_words: an item holds at most this many words.
    min_link_share: at least this share of the item's words are link words.
    """

    siblings: int = 2
    levels: int = 4
    max_words: int = 80
    min_link_share: float = 0.3


DEFAULT_RULE = TeaserRule()


def teaser_blocks(parents: np.ndarray, same_siblings: np.ndarray, itemlike: np.ndarray, block_element: np.ndarray,
                  words: np.ndarray, link_density: np.ndarray, rule: TeaserRule = DEFAULT_RULE) -> np.ndarray:
    """Per block: True when it lies in a teaser item (see the module's doc).

    ``parents``: each element's parent (the root its own); ``same_siblings``: each element's
    count of siblings with its tag and class; ``itemlike``: elements that may be items;
    ``block_element``, ``words``, ``link_density``: each block's delimiting element, words and
    share of characters inside links (its link words are read as that share of its words). A
    block belongs to the nearest item on its path, up to ``rule.levels`` elements above its own."""
    n_blocks = len(block_element)
    if n_blocks == 0 or len(parents) == 0:
        return np.zeros(n_blocks, bool)
    parents = np.asarray(parents, np.int64)
    candidate = (np.asarray(same_siblings) >= rule.siblings) & np.asarray(itemlike, bool)
    item = np.full(n_blocks, -1, np.int64)
    at = np.asarray(block_element, np.int64)
    for _ in range(rule.levels + 1):
        hit = (item < 0) & candidate[at]
        item[hit] = at[hit]
        at = parents[at]
    member = item >= 0
    if not member.any():
        return np.zeros(n_blocks, bool)
    words = np.maximum(1.0, np.asarray(words, np.float64))
    density = np.clip(np.asarray(link_density, np.float64), 0.0, 1.0)
    link_words = words * density
    groups, slot = np.unique(item[member], return_inverse=True)
    item_words = np.bincount(slot, words[member], len(groups))
    item_links = np.bincount(slot, link_words[member], len(groups))
    item_blocks = np.bincount(slot, minlength=len(groups))
    headline = np.bincount(slot, (density[member] > 0.5).astype(np.float64), len(groups)) > 0
    teaser = ((item_words <= rule.max_words) & (item_links >= rule.min_link_share * item_words)
              & (item_blocks >= 2) & headline)
    out = np.zeros(n_blocks, bool)
    out[member] = teaser[slot]
    return out


def document_teasers(doc: Document, rule: TeaserRule = DEFAULT_RULE) -> np.ndarray:
    """:func:`teaser_blocks` of ``doc``, from its tree facts."""
    facts = tree_facts(doc)
    itemlike = np.fromiter((tag not in NOT_ITEMS for tag in doc.elements.tags), bool, count=len(doc.elements))
    numbers = doc.numbers
    return teaser_blocks(facts.parents, facts.same_sibling_count, itemlike, numbers.element, numbers.words,
                         numbers.link_density, rule)
