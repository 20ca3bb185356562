"""The per-element facts of the core's tree pass as Python reads them (the hidden-element
rule, cue distances, path hashes ...), for the page-type features, training and tests; the
flagship's base matrix reads the same facts inside the core (:func:`.native.base_columns`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .native import tree_params

if TYPE_CHECKING:
    import numpy as np

    from ..document.blocks import Document


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
    hidden: np.ndarray  # the element or an ancestor is hidden (the core's one rule, crates/core/src/hidden.rs)
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



def tree_facts(doc: Document) -> TreeFacts:
    """Own facts per element (id and class tokens, cue words, hiding attributes, roles), then
    inherited ones (OR of CONTEXT_TAGS along the path, distance to the nearest cue, hidden) and
    subtree sums, computed by the core (``crates/core/src/features/tree.rs``).

    Paths are hashed per element over its (tag, class) path and its tag path from the root: two
    elements get the same hash when their paths are the same (up to a 64-bit collision)."""
    return TreeFacts(**doc.native.tree_facts(tree_params()))
