"""The trainers, by the name of the algorithm each trains: the one table ``thresher train`` reads.

Every trainer takes the labelled dataset folders and the model path to write, with the number
of cross-validation folds (``None`` or 0: none) and the random seed as keywords, and returns its
report. A :class:`TrainerSpec` carries a trainer with the defaults the command line uses when
``--cv`` or ``--seed`` is not given, and the packages it cannot train without, which the command
line checks before it reads a page.

The flagship's block-sequence network needs PyTorch: it is a small transformer (convolutions,
attention within chunks of blocks, layer norms) trained by gradient descent, which neither
LightGBM nor scikit-learn can fit, and writing its gradients by hand in numpy would be a second
implementation of the network.
"""
from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from .density_classifier import train_density_classifier
from .learned import SEED, train_dragnet, train_dragnet_comments, train_flagship, train_flagship_accurate
from .pagetype import train_page_type


class Trainer(Protocol):
    """Fits a model on ``dataset_dirs``, writes it to ``out`` and returns a report."""

    def __call__(self, dataset_dirs: Sequence[str | Path], out: str | Path, /, *, cv: int | None,
                 seed: int) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class TrainerSpec:
    """One trainable algorithm: its trainer, what it writes, and the command line's defaults."""

    name: str
    summary: str
    train: Trainer
    default_cv: int | None  # folds when --cv is not given (None: no cross-validation)
    default_seed: int = SEED
    needs: tuple[str, ...] = ()  # import names of the packages it cannot train without

    def missing(self) -> tuple[str, ...]:
        """The packages of :attr:`needs` that are not installed (found without importing them)."""
        return tuple(name for name in self.needs if importlib.util.find_spec(name) is None)


# What each package a trainer needs is for, as the command line names it.
PACKAGES: Mapping[str, str] = MappingProxyType({
    "lightgbm": "lightgbm (the tree models)",
    "torch": "PyTorch (the block-sequence network: lightgbm, scikit-learn and numpy cannot train it)",
})
TREES, NETWORK = ("lightgbm",), ("lightgbm", "torch")


TRAINERS: Mapping[str, TrainerSpec] = MappingProxyType({spec.name: spec for spec in (
    TrainerSpec("thresher", "the flagship: two tree stages averaged with a small block-sequence network",
                train_flagship, default_cv=5, needs=NETWORK),
    TrainerSpec("thresher-accurate", "the flagship's trees with the larger block-sequence network",
                train_flagship_accurate, default_cv=5, needs=NETWORK),
    TrainerSpec("dragnet", "Dragnet's content model", train_dragnet, default_cv=5, needs=TREES),
    TrainerSpec("dragnet-comments", "Dragnet's content and comments model", train_dragnet_comments,
                default_cv=None, needs=TREES),
    TrainerSpec("density-classifier", "the density algorithm's two-class character n-gram model",
                train_density_classifier, default_cv=None),
    TrainerSpec("page-type", "the page-type classifier (seven WCXB types) behind Result.page_type",
                train_page_type, default_cv=5),
)})
