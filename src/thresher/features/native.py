"""The native core's feature calls on one page: shallow text and the flagship's base matrix
(``crates/core/src/features/``), with the constants Python hands them (the tree facts as
Python reads them are :mod:`.tree`'s)."""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from .. import _core
from .head import page_types, structured_text

if TYPE_CHECKING:
    from ..document.blocks import Document
    from .columns import Columns

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

# Block tags with a one-hot column each (the core's list, crates/core/src/features/context.rs).
BLOCK_TAG_ONE_HOT: tuple[str, ...] = tuple(_core.BLOCK_TAG_ONE_HOT)
MAX_CUE_DISTANCE = 30
SHALLOW_COLUMNS: tuple[str, ...] = tuple(_core.SHALLOW_COLUMNS)


@lru_cache(maxsize=64)
def native_stop_words(stoplist: frozenset[str]) -> _core.StopWords:
    """A stop list as the core reads it, built once per list."""
    return _core.StopWords(sorted(stoplist))


def shallow_text(doc: Document, stoplist: frozenset[str]) -> Columns:
    """Kohlschütter et al.'s shallow text features of each block, and thresher's additions
    (computed by the core, ``crates/core/src/features/shallow.rs``): the log of its characters,
    words and start tags; link density and the share of its words in links; stop-word density
    (``stoplist``: lower-cased words); text density (words per line wrapped at 80 characters);
    punctuation, digit and upper-case ratios; sentence ends; average word length; whether it
    ends with punctuation, is a heading, holds a copyright sign or a date, starts upper case."""
    from .columns import Columns

    return Columns(SHALLOW_COLUMNS, doc.native.shallow_text(native_stop_words(stoplist)))


def text_density(text: str) -> float:
    """Kohlschütter's text density of one text: words per line when it is wrapped greedily at 80
    characters (a longer word gets a line of its own), the last line left out when there are
    several; the ``text_density`` column of :func:`shallow_text`."""
    return _core.text_density(text)


@lru_cache(maxsize=1)
def tree_params() -> _core.TreeFactsParams:
    """The constants the core's tree pass reads (:func:`.tree.tree_facts`, the base matrix, the
    token columns), built once."""
    return _core.TreeFactsParams(context_tags=list(CONTEXT_TAGS), negative_cues=sorted(NEGATIVE_CUES),
                                 positive_cues=sorted(POSITIVE_CUES), max_cue_distance=MAX_CUE_DISTANCE)


def base_columns(doc: Document, stoplist: frozenset[str]) -> Columns:
    """The flagship's base feature matrix, computed by the core in one call
    (``crates/core/src/features/base.rs``): :func:`shallow_text`, then the block's place in the
    tree (``context.rs``), CETR's smoothed tag ratio and its derivative (``cetr.rs``), the page
    level (``page.rs``), repeated texts and the main heading (``structure.rs``), template paths
    (``template.rs``) and the neighbours' values of :data:`NEIGHBOUR_COLUMNS`
    (``neighbours.rs``). The head's JSON-LD and meta tags are read here and handed over: the
    structured text (:func:`structured_text`) and the page's types (:func:`page_types`). The
    tree facts are those :func:`~thresher.features.tree.tree_facts` reads (the core computes
    them once per page)."""
    from .columns import Columns  # the flagship's extraction scores without it

    names, values = doc.native.base_columns(native_stop_words(stoplist), tree_params(), title=doc.title,
                                            structured_text=structured_text(doc), page_types=page_types(doc))
    return Columns(tuple(names), values)
