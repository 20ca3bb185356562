"""Per-block feature matrices shared by the learned extractors.

The flagship's base matrix (:func:`base_columns`) is computed by the native core in one call
(``crates/core/src/features/``), one group of named columns after another:

* shallow text (:func:`shallow_text`) - Kohlschütter et al.'s shallow text features (words,
  link density, text density) plus jusText's stop-word density and simple character statistics;
* tree context - the block's place in the tree: depth, enclosing semantic elements
  (:data:`CONTEXT_TAGS`), id/class cue words on its ancestors, the text share and link density
  of its ancestors' subtrees, sibling repetition, its own tag (:data:`BLOCK_TAG_ONE_HOT`);
* CETR - Weninger et al.'s tag ratio over blocks, Gaussian-smoothed, and its derivative;
* page level - facts about the whole page broadcast to its blocks (link share, JSON-LD and
  OpenGraph types, overlap with the title and the structured-data body, relative length);
* page structure - repeated texts, copies of a text under other parents, the side of the
  main heading;
* template paths - blocks sharing their whole (tag, class) or tag path from the root;
* neighbours - :data:`NEIGHBOUR_COLUMNS` of the blocks before and after.

This module keeps what Python reads around it: the head's JSON-LD and meta facts the core is
handed, the tree facts and id/class tokens, and the column containers.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain as iter_chain
from typing import Iterable, Mapping, NamedTuple

import numpy as np

from .. import _core
from ..document.blocks import Document, hidden_by_style
from ..errors import ModelError

# id/class cue words; matched against whole tokens after splitting on non-alphanumerics.
NEGATIVE_CUES = frozenset(
    "nav navbar navigation menu menubar footer foot sidebar side aside widget widgets banner ad ads advert "
    "advertisement sponsor sponsored promo promotion social share sharing related recommended "
    "breadcrumb breadcrumbs cookie cookies consent gdpr newsletter subscribe subscription signup login "
    "header masthead topbar toolbar popup modal overlay tags tag pagination pager copyright legal "
    "disclaimer skip hidden sr only outbrain taboola trending popular more".split())
POSITIVE_CUES = frozenset(
    "article content main body text entry post posts story prose markdown description desc detail details "
    "product message messages reply replies answer answers question thread topic comment comments "
    "cooked blog page documentation docs doc section item itemprop articlebody".split())
# Tags whose presence on the path is a feature of its own.
CONTEXT_TAGS = ("a", "li", "ul", "ol", "table", "td", "th", "form", "nav", "header", "footer",
                "aside", "article", "main", "section", "blockquote", "pre", "code", "figure",
                "figcaption", "dl", "label", "button", "select", "noscript", "address", "time")
# Block tags with a one-hot column each, and the columns whose neighbours' values are features
# (the core's lists, crates/core/src/features/context.rs and neighbours.rs).
BLOCK_TAG_ONE_HOT: tuple[str, ...] = tuple(_core.BLOCK_TAG_ONE_HOT)
NEIGHBOUR_COLUMNS: tuple[str, ...] = tuple(_core.NEIGHBOUR_COLUMNS)
MAX_CUE_DISTANCE = 30


@dataclass(frozen=True)
class Columns:
    """A named group of feature columns for every block of a page."""

    names: tuple[str, ...]
    values: np.ndarray  # shape (n_blocks, len(names)), float32

    @staticmethod
    def of(columns: Mapping[str, Iterable[float]], n: int) -> "Columns":
        names = tuple(columns)
        if not names:
            return Columns((), np.zeros((n, 0), np.float32))
        matrix = np.empty((n, len(names)), np.float32)
        for j, name in enumerate(names):
            column = columns[name]
            if isinstance(column, np.ndarray):
                matrix[:, j] = column
            elif n:
                matrix[:, j] = np.fromiter(column, np.float32, count=n)
        return Columns(names, matrix)

    def column(self, name: str) -> np.ndarray:
        return self.values[:, self.names.index(name)]

    def rows(self, which: np.ndarray) -> "Columns":
        """The same columns for the blocks ``which`` selects (a boolean mask or indices)."""
        return Columns(self.names, self.values[which])

    def select(self, names: tuple[str, ...], reader: str = "the caller") -> np.ndarray:
        """The values of the columns ``names``, in that order (the matrix itself when they are
        all of them in order). A name that is not here is a :class:`~thresher.errors.ModelError`
        naming ``reader``."""
        if names == self.names:
            return self.values
        index, missing = selection(self.names, names)
        if missing:
            raise ModelError(f"{reader} reads features this thresher does not compute ({', '.join(missing[:3])}"
                             f"{', ...' if len(missing) > 3 else ''}); retrain the model")
        return self.values[:, index]


@lru_cache(maxsize=32)
def selection(have: tuple[str, ...], want: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...]]:
    """The columns of ``have`` that hold ``want``'s names, in ``want``'s order, and the names of
    ``want`` that ``have`` lacks (memoised: a page's feature layout is the same on every page, and
    so is each model's; callers must not change the array)."""
    position = {name: j for j, name in enumerate(have)}
    missing = tuple(name for name in want if name not in position)
    index = np.array([position.get(name, -1) for name in want], np.int64)
    index.flags.writeable = False
    return index, missing


def concat(groups: Iterable[Columns]) -> Columns:
    groups = list(groups)
    return Columns(tuple(iter_chain.from_iterable(g.names for g in groups)), np.hstack([g.values for g in groups]))


def pad_ends(values: np.ndarray, radius: int, before=0.0, after=None) -> np.ndarray:
    """``values`` with ``radius`` rows of ``before`` in front and of ``after`` (default:
    ``before``) behind, along the first axis, in ``values``' dtype: what ``np.pad`` gives,
    for about a seventh of its per-call cost (1.4 against 10 µs on 300 rows; several calls a page)."""
    out = np.empty((len(values) + 2 * radius,) + values.shape[1:], values.dtype)
    out[:radius] = before
    out[radius:len(out) - radius] = values
    out[len(out) - radius:] = before if after is None else after
    return out


# ------------------------------------------------------------------ shallow text

SHALLOW_COLUMNS: tuple[str, ...] = tuple(_core.SHALLOW_COLUMNS)


@lru_cache(maxsize=64)
def native_stop_words(stoplist: frozenset[str]) -> "_core.StopWords":
    """A stop list as the core reads it, built once per list."""
    return _core.StopWords(sorted(stoplist))


def shallow_text(doc: Document, stoplist: frozenset[str]) -> Columns:
    """Kohlschütter et al.'s shallow text features of each block, and thresher's additions
    (computed by the core, ``crates/core/src/features/shallow.rs``): the log of its characters,
    words and start tags; link density and the share of its words in links; stop-word density
    (``stoplist``: lower-cased words); text density (words per line wrapped at 80 characters);
    punctuation, digit and upper-case ratios; sentence ends; average word length; whether it
    ends with punctuation, is a heading, holds a copyright sign or a date, starts upper case."""
    return Columns(SHALLOW_COLUMNS, doc.native.shallow_text(native_stop_words(stoplist)))


def text_density(text: str) -> float:
    """Kohlschütter's text density of one text: words per line when it is wrapped greedily at 80
    characters (a longer word gets a line of its own), the last line left out when there are
    several; the ``text_density`` column of :func:`shallow_text`."""
    return _core.text_density(text)


# ------------------------------------------------------------------ tree context

@dataclass(frozen=True)
class TreeFacts:
    """Per-element facts (numpy arrays indexed by element) propagated down or accumulated up."""

    context_bits: np.ndarray  # OR of CONTEXT_TAGS bits on the path
    neg_distance: np.ndarray  # ancestors to the nearest negative cue (MAX_CUE_DISTANCE when none)
    pos_distance: np.ndarray
    subtree_chars: np.ndarray  # text characters inside each element
    subtree_link_chars: np.ndarray
    same_sibling_count: np.ndarray  # siblings with the same tag and class
    paths: np.ndarray  # (elements, 2) uint64: hashes of the (tag, class) path and of the tag path
    hidden: np.ndarray  # the element or an ancestor is hidden (attribute, aria-hidden, inline style)
    roles: dict  # element -> its ``role`` attribute, for the elements that have one
    parents: np.ndarray  # parent index, the root pointing to itself
    ids: list  # id value per element (None when it has none)
    classes: list  # class value per element (None when it has none)
    tokens_of: dict  # id or class value -> its tokens (split_tokens), one entry per distinct value
    id_slot: np.ndarray  # per element: the position of its id value among tokens_of's keys
    class_slot: np.ndarray

    def tokens(self, element: int) -> list[str]:
        """An element's id tokens, then its class tokens."""
        return self.tokens_of[self.ids[element]] + self.tokens_of[self.classes[element]]


def is_hidden(attrs: dict) -> bool:
    """Hidden by the ``hidden`` attribute, ``aria-hidden="true"`` or an inline style."""
    if "hidden" in attrs or (attrs.get("aria-hidden") or "").strip().lower() == "true":
        return True
    return hidden_by_style(attrs)


@lru_cache(maxsize=1)
def _tree_params() -> "_core.TreeFactsParams":
    """The constants :func:`tree_facts` hands the core, built once."""
    return _core.TreeFactsParams(context_tags=list(CONTEXT_TAGS), negative_cues=sorted(NEGATIVE_CUES),
                                 positive_cues=sorted(POSITIVE_CUES), max_cue_distance=MAX_CUE_DISTANCE)


def tree_facts(doc: Document) -> TreeFacts:
    """Own facts per element (id and class tokens, cue words, hiding attributes, roles), then
    inherited ones (OR of CONTEXT_TAGS along the path, distance to the nearest cue, hidden) and
    subtree sums, computed by the core (``crates/core/src/features/tree.rs``).

    Paths are hashed per element over its (tag, class) path and its tag path from the root: two
    elements get the same hash when their paths are the same (up to a 64-bit collision)."""
    return TreeFacts(**doc.native.tree_facts(_tree_params()))


@dataclass(frozen=True)
class Vocabulary:
    """A model's id/class token vocabulary: the tokens its columns stand for, in column order.
    Built once per model (:attr:`thresher.inference.learned.LearnedModel.token_vocabulary`); the core's
    lookup table and the column names are made on first use and kept."""

    tokens: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.tokens)

    @cached_property
    def native(self) -> "_core.Vocabulary":
        """The table the core looks tokens up in (a token listed twice: its last column)."""
        return _core.Vocabulary(list(self.tokens))

    @cached_property
    def names(self) -> tuple[str, ...]:
        return token_names(self.tokens)


@lru_cache(maxsize=16)
def vocabulary(tokens: tuple[str, ...]) -> Vocabulary:
    """The :class:`Vocabulary` of ``tokens`` (memoised per tuple, for callers that hold a
    tuple: training, tests)."""
    return Vocabulary(tokens)


def token_columns(doc: Document, vocabulary: Vocabulary) -> Columns:
    """One 0/1 column per vocabulary token: does the block's element or one of its two first
    ancestors hold the token in its id or class (``crates/core/src/features/tokens.rs``)."""
    return Columns(vocabulary.names, doc.native.token_columns(vocabulary.native, _tree_params()))


class TokenBags(NamedTuple):
    """The same 0/1 token columns stored sparsely: block i holds the vocabulary positions
    ``indices[offsets[i]:offsets[i + 1]]`` (ascending)."""

    indices: np.ndarray  # int64
    offsets: np.ndarray  # int64, one more than there are blocks


def token_bags(doc: Document, vocabulary: Vocabulary) -> TokenBags:
    """:func:`token_columns` without the dense matrix: for a wide vocabulary (the sequence
    network reads 1,469 tokens) most of that matrix is zeros that cost time to write and read."""
    return TokenBags(*doc.native.token_bags(vocabulary.native, _tree_params()))


def token_sets(doc: Document) -> list[set[str]]:
    """Per block, the set of the id/class tokens its token columns can hold (what training
    counts to choose a vocabulary)."""
    return [set(held) for held in doc.native.block_tokens(_tree_params())]


@lru_cache(maxsize=16)
def token_names(vocabulary: tuple[str, ...]) -> tuple[str, ...]:
    """The feature names of a vocabulary's token columns (memoised: a model's vocabulary
    is the same tuple on every page)."""
    return tuple(map(token_name, vocabulary))


def token_name(token: str) -> str:
    """The feature name of an id/class token."""
    return f"tok_{token}"


# ------------------------------------------------------------------ page head

def structured_text(doc: Document) -> str:
    """Article body, description and text fields of JSON-LD, plus OpenGraph/meta descriptions
    (what ``structured_overlap`` and ``page_has_structured_text`` read)."""
    parts = [doc.meta_content("og:description", "description", "twitter:description")]
    for obj in doc.json_ld_objects():
        for key in ("articleBody", "description", "text", "reviewBody"):
            value = obj.get(key)
            if isinstance(value, str):
                parts.append(value)
    return " ".join(p for p in parts if p)


def page_types(doc: Document) -> set[str]:
    """The lower-cased JSON-LD ``@type`` values and ``og:type`` of the page (what the
    ``page_type_*`` columns read)."""
    found = set()
    for obj in doc.json_ld_objects():
        kind = obj.get("@type")
        for k in (kind if isinstance(kind, list) else [kind]):
            if isinstance(k, str):
                found.add(k.lower())
    og = doc.meta_content("og:type").lower()
    if og:
        found.add(og)
    return found


# ------------------------------------------------------------------ the base matrix

def base_columns(doc: Document, stoplist: frozenset[str]) -> Columns:
    """The flagship's base feature matrix, computed by the core in one call
    (``crates/core/src/features/base.rs``): :func:`shallow_text`, then the block's place in the
    tree (``context.rs``), CETR's smoothed tag ratio and its derivative (``cetr.rs``), the page
    level (``page.rs``), repeated texts and the main heading (``structure.rs``), template paths
    (``template.rs``) and the neighbours' values of :data:`NEIGHBOUR_COLUMNS`
    (``neighbours.rs``). The head's JSON-LD and meta tags are read here and handed over: the
    structured text (:func:`structured_text`) and the page's types (:func:`page_types`). The
    tree facts are those :func:`tree_facts` reads (the core computes them once per page)."""
    names, values = doc.native.base_columns(native_stop_words(stoplist), _tree_params(), title=doc.title,
                                            structured_text=structured_text(doc), page_types=page_types(doc))
    return Columns(tuple(names), values)


# ------------------------------------------------------------------ neighbours, for other layouts

def shift(values: np.ndarray, offset: int) -> np.ndarray:
    """Rows moved by ``offset`` along the reading order: row i gets row i + offset (zeros past the edges)."""
    out = np.zeros_like(values)
    if offset < 0 and len(values) > -offset:
        out[-offset:] = values[:offset]
    elif offset > 0 and len(values) > offset:
        out[:-offset] = values[offset:]
    return out


def neighbours(base: Columns, names: Iterable[str] = NEIGHBOUR_COLUMNS, offsets=(-2, -1, 1, 2)) -> Columns:
    """``<column>@<offset>`` for each offset, then each of ``names`` that ``base`` holds: the
    column's values moved by the offset (:func:`shift`). The base matrix gets its own from the
    core; Dragnet's layout reads its neighbours here."""
    names = [n for n in names if n in base.names]
    n = base.values.shape[0]
    src = base.values[:, [base.names.index(c) for c in names]]
    blocks = [shift(src, offset) for offset in offsets]
    out_names = [f"{c}@{offset:+d}" for offset in offsets for c in names]
    return Columns(tuple(out_names), np.hstack(blocks) if blocks else np.zeros((n, 0), np.float32))
