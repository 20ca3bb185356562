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

The package keeps what Python reads around it, by subject: the column containers
(:mod:`.columns`), the native calls and the constants they are handed (:mod:`.native`), the
head's JSON-LD and meta facts (:mod:`.head`), the id/class tokens (:mod:`.tokens`), CETR's unit
features and clustering (:mod:`.cetr`) and Readability's candidate columns (:mod:`.candidates`).
The names below are the package's interface; the submodules are imported as ``features``.
"""
from __future__ import annotations

from .columns import NEIGHBOUR_COLUMNS, Columns, concat, neighbours, selection, shift
from .head import page_types, structured_text
from .native import (
    BLOCK_TAG_ONE_HOT,
    CONTEXT_TAGS,
    MAX_CUE_DISTANCE,
    NEGATIVE_CUES,
    POSITIVE_CUES,
    SHALLOW_COLUMNS,
    TreeFacts,
    base_columns,
    native_stop_words,
    shallow_text,
    text_density,
    tree_facts,
    tree_params,
)
from .tokens import TokenBags, Vocabulary, token_bags, token_columns, token_name, token_names, token_sets, vocabulary

__all__ = [
    "BLOCK_TAG_ONE_HOT", "CONTEXT_TAGS", "MAX_CUE_DISTANCE", "NEGATIVE_CUES", "NEIGHBOUR_COLUMNS", "POSITIVE_CUES",
    "SHALLOW_COLUMNS", "Columns", "TokenBags", "TreeFacts", "Vocabulary", "base_columns", "concat",
    "native_stop_words", "neighbours", "page_types", "selection", "shallow_text", "shift",
    "structured_text", "text_density", "token_bags", "token_columns", "token_name", "token_names", "token_sets",
    "tree_facts", "tree_params", "vocabulary",
]
