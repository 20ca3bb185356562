"""The page-type classifier: which of seven kinds of page a document is.

Two stages, stored in one versioned model file (:mod:`.treemodel`'s ``.npz`` format):

* ``words.<type>``: a linear model per type over the page's prefixed words
  (:func:`thresher.features.pagetype.page_signals`), read as a binary bag scaled to unit
  length; its margins, as log-probabilities (log-softmax over the types), are the last
  columns of the second stage's rows;
* ``trees.<type>``: a tree ensemble per type (one-vs-rest margins of a multiclass gradient
  boosting) over :data:`~thresher.features.pagetype.PAGE_FEATURES` and ``words_<type>``;
  the probabilities are the softmax of their margins, walked by the native core.

The header's ``meta`` says ``"task": "page-type"`` and lists the ``types`` in order.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from .._lazy import LazyModule
from ..document.blocks import Document
from ..errors import ModelError
from ..features.pagetype import PAGE_FEATURES, PageSignals, page_signals
from .learned import shipped_model_path
from .treemodel import LinearModel, TreeEnsemble, load

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays

TASK = "page-type"
FILENAME = "pagetype.npz"
# The seven types of the WCXB labels, in the model's order.
PAGE_TYPES = ("article", "collection", "documentation", "forum", "listing", "product", "service")


def word_columns(types: tuple[str, ...]) -> tuple[str, ...]:
    """The second stage's columns that hold the first stage's log-probabilities."""
    return tuple(f"words_{t}" for t in types)


def log_softmax(margins: np.ndarray) -> np.ndarray:
    """Log-probabilities of the rows of ``margins`` (one column per type)."""
    top = margins.max(axis=-1, keepdims=True)
    shifted = margins - top
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@dataclass(frozen=True)
class PageTypeModel:
    """The two stages of the page-type classifier, one model per type in each."""

    types: tuple[str, ...]
    words: tuple[LinearModel, ...]
    trees: tuple[TreeEnsemble, ...]
    vocabulary: Mapping[str, int]
    word_weights: np.ndarray  # (vocabulary, types): the words models' coefficients side by side
    word_base: np.ndarray  # (types,): their intercepts

    def word_scores(self, bags: list[frozenset[str]]) -> np.ndarray:
        """The first stage's log-probabilities, one row per bag and one column per type: each
        words model's margin of the bag's known words set to one and scaled to unit length
        (the models' ``mean`` is 0 and ``scale`` 1, so only the known words' weights count)."""
        margins = np.tile(self.word_base, (len(bags), 1))
        for i, bag in enumerate(bags):
            hits = [self.vocabulary[w] for w in bag if w in self.vocabulary]
            if hits:
                margins[i] += self.word_weights[hits].sum(axis=0) / np.sqrt(len(hits))
        return log_softmax(margins)

    def probabilities_of(self, signals: list[PageSignals]) -> np.ndarray:
        """Each page's probability of each type (rows sum to one)."""
        if not signals:
            return np.zeros((0, len(self.types)))
        x = np.hstack([np.vstack([s.row for s in signals]), self.word_scores([s.words for s in signals])])
        margins = np.column_stack([model.margin(x) for model in self.trees])
        return np.exp(log_softmax(margins))

    def probabilities(self, doc: Document) -> Mapping[str, float]:
        """``doc``'s probability of each type, by type name."""
        p = self.probabilities_of([page_signals(doc)])[0]
        return MappingProxyType({t: float(v) for t, v in zip(self.types, p)})


def page_type_model(types: tuple[str, ...], words: tuple[LinearModel, ...],
                    trees: tuple[TreeEnsemble, ...]) -> PageTypeModel:
    """The classifier of its parts (the words models must share one vocabulary, with ``mean``
    0 and ``scale`` 1)."""
    vocabulary = MappingProxyType({w: i for i, w in enumerate(words[0].feature_names)}) if words else \
        MappingProxyType({})
    weights = np.column_stack([m.coef for m in words]) if words else np.zeros((0, 0))
    base = np.array([m.base for m in words], np.float64)
    return PageTypeModel(types, words, trees, vocabulary, weights, base)


def from_models(models: Mapping[str, object], meta: Mapping[str, object], where: str) -> PageTypeModel:
    """A :class:`PageTypeModel` of a model file's models and meta; :class:`ModelError` when the
    file is not a page-type model this thresher can read."""
    if meta.get("task") != TASK:
        raise ModelError(f"{where}: not a page-type model (task {meta.get('task')!r})")
    types = meta.get("types")
    if not isinstance(types, list) or not types or not all(isinstance(t, str) for t in types):
        raise ModelError(f"{where}: the page-type model lists no types")
    words: list[LinearModel] = []
    trees: list[TreeEnsemble] = []
    tree_columns = PAGE_FEATURES + word_columns(tuple(types))
    for t in types:
        linear, ensemble = models.get(f"words.{t}"), models.get(f"trees.{t}")
        if not isinstance(linear, LinearModel) or not isinstance(ensemble, TreeEnsemble):
            raise ModelError(f"{where}: type {t!r} lacks its linear words model or its trees")
        if ensemble.feature_names != tree_columns:
            raise ModelError(f"{where}: the trees of {t!r} read other features than this thresher computes; "
                             "retrain the model")
        if words and linear.feature_names != words[0].feature_names:
            raise ModelError(f"{where}: the words models of the types read different vocabularies")
        if np.any(linear.mean != 0) or np.any(linear.scale != 1) or linear.coef.shape != (len(linear.feature_names),):
            raise ModelError(f"{where}: the words model of {t!r} is not a bag-of-words model (mean 0, scale 1)")
        if not (np.all(np.isfinite(linear.coef)) and np.all(np.isfinite(ensemble.value))
                and np.isfinite(linear.base) and np.isfinite(ensemble.base)):
            raise ModelError(f"{where}: type {t!r} has a weight that is not a finite number")
        words.append(linear)
        trees.append(ensemble)
    return page_type_model(tuple(types), tuple(words), tuple(trees))


def load_page_type_model(path: str | Path | None = None) -> PageTypeModel:
    """The page-type model at ``path`` (the shipped one when None), read once per file version."""
    where = str(path) if path is not None else shipped_model_path(FILENAME)
    try:
        st = os.stat(where)
    except OSError as exc:
        raise ModelError(f"{where}: cannot read the model file ({exc.strerror})") from None
    return _load(where, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4)
def _load(path: str, _mtime_ns: int, _size: int) -> PageTypeModel:
    models, meta = load(path)
    return from_models(models, meta, path)


def page_type_probabilities(doc: Document, path: str | Path | None = None) -> Mapping[str, float]:
    """``doc``'s probability of each page type (the shipped model, or the one at ``path``)."""
    return load_page_type_model(path).probabilities(doc)


def predicted_type(probabilities: Mapping[str, float]) -> str:
    """The most probable type ("" when there are none)."""
    return max(probabilities, key=lambda t: probabilities[t]) if probabilities else ""
