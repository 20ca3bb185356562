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
per-element tree facts (:mod:`.tree`), the head's JSON-LD and meta facts (:mod:`.head`), the
id/class tokens (:mod:`.tokens`), CETR's unit features and clustering (:mod:`.cetr`) and
Readability's candidate columns (:mod:`.candidates`).
The names below are the package's interface; the submodules are imported as ``features``.
Each name loads its submodule when first read (the flagship's extraction needs only
:mod:`.native` and :mod:`.head`, not the column containers).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._lazy import attribute as _attribute

if TYPE_CHECKING:
    from .columns import NEIGHBOUR_COLUMNS, Columns, concat, neighbours, selection, shift
    from .head import page_types, structured_text
    from .native import (
        BLOCK_TAG_ONE_HOT,
        CONTEXT_TAGS,
        MAX_CUE_DISTANCE,
        NEGATIVE_CUES,
        POSITIVE_CUES,
        SHALLOW_COLUMNS,
        base_columns,
        native_stop_words,
        shallow_text,
        text_density,
        tree_params,
    )
    from .tokens import (
        TokenBags,
        Vocabulary,
        token_bags,
        token_columns,
        token_name,
        token_names,
        token_sets,
        vocabulary,
    )
    from .tree import TreeFacts, tree_facts

__all__ = [
    "BLOCK_TAG_ONE_HOT", "CONTEXT_TAGS", "MAX_CUE_DISTANCE", "NEGATIVE_CUES", "NEIGHBOUR_COLUMNS", "POSITIVE_CUES",
    "SHALLOW_COLUMNS", "Columns", "TokenBags", "TreeFacts", "Vocabulary", "base_columns", "concat",
    "native_stop_words", "neighbours", "page_types", "selection", "shallow_text", "shift",
    "structured_text", "text_density", "token_bags", "token_columns", "token_name", "token_names", "token_sets",
    "tree_facts", "tree_params", "vocabulary",
]

# The names of the interface, and the submodule each comes from.
_LAZY = {name: module for module, names in {
    ".columns": ("NEIGHBOUR_COLUMNS", "Columns", "concat", "neighbours", "selection", "shift"),
    ".head": ("page_types", "structured_text"),
    ".native": ("BLOCK_TAG_ONE_HOT", "CONTEXT_TAGS", "MAX_CUE_DISTANCE", "NEGATIVE_CUES", "POSITIVE_CUES",
                "SHALLOW_COLUMNS", "base_columns", "native_stop_words", "shallow_text", "text_density",
                "tree_params"),
    ".tree": ("TreeFacts", "tree_facts"),
    ".tokens": ("TokenBags", "Vocabulary", "token_bags", "token_columns", "token_name", "token_names",
                "token_sets", "vocabulary"),
}.items() for name in names}


def __getattr__(name: str) -> Any:
    return _attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
