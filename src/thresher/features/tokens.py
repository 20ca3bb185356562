"""Id/class tokens as features: a model's vocabulary, the 0/1 token columns (dense or as bags)
and the tokens each block can hold (``crates/core/src/features/tokens.rs``)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from .. import _core
from .._lazy import LazyModule, cached_property
from ..document.blocks import Document
from .columns import Columns
from .native import tree_params

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays


@dataclass(frozen=True)
class Vocabulary:
    """A model's id/class token vocabulary: the tokens its columns stand for, in column order.
    Built once per model (:attr:`thresher.inference.learned.LearnedModel.token_vocabulary`); the core's
    lookup table and the column names are made on first use and kept."""

    tokens: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.tokens)

    @cached_property
    def native(self) -> _core.Vocabulary:
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
    return Columns(vocabulary.names, doc.native.token_columns(vocabulary.native, tree_params()))


class TokenBags(NamedTuple):
    """The same 0/1 token columns stored sparsely: block i holds the vocabulary positions
    ``indices[offsets[i]:offsets[i + 1]]`` (ascending)."""

    indices: np.ndarray  # int64
    offsets: np.ndarray  # int64, one more than there are blocks


def token_bags(doc: Document, vocabulary: Vocabulary) -> TokenBags:
    """:func:`token_columns` without the dense matrix: for a wide vocabulary (the sequence
    network's) most of that matrix is zeros that cost time to write and read."""
    return TokenBags(*doc.native.token_bags(vocabulary.native, tree_params()))


def token_sets(doc: Document) -> list[set[str]]:
    """Per block, the set of the id/class tokens its token columns can hold (what training
    counts to choose a vocabulary)."""
    return [set(held) for held in doc.native.block_tokens(tree_params())]


@lru_cache(maxsize=16)
def token_names(vocabulary: tuple[str, ...]) -> tuple[str, ...]:
    """The feature names of a vocabulary's token columns (memoised: a model's vocabulary
    is the same tuple on every page)."""
    return tuple(map(token_name, vocabulary))


def token_name(token: str) -> str:
    """The feature name of an id/class token."""
    return f"tok_{token}"
