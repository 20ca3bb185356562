"""The trainers, by the name of the algorithm each trains: the one table ``thresher train`` reads.

Every trainer takes the labelled dataset folders and the model path to write, with the number
of cross-validation folds (``None`` or 0: none) and the random seed as keywords, and returns its
report. A :class:`TrainerSpec` carries a trainer with the defaults the command line uses when
``--cv`` or ``--seed`` is not given.
"""
from __future__ import annotations

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


TRAINERS: Mapping[str, TrainerSpec] = MappingProxyType({spec.name: spec for spec in (
    TrainerSpec("thresher", "the flagship: two tree stages averaged with a small block-sequence network",
                train_flagship, default_cv=5),
    TrainerSpec("thresher-accurate", "the flagship's trees with the larger block-sequence network",
                train_flagship_accurate, default_cv=5),
    TrainerSpec("dragnet", "Dragnet's content model", train_dragnet, default_cv=5),
    TrainerSpec("dragnet-comments", "Dragnet's content and comments model", train_dragnet_comments,
                default_cv=None),
    TrainerSpec("density-classifier", "the density algorithm's two-class character n-gram model",
                train_density_classifier, default_cv=None),
    TrainerSpec("page-type", "the page-type classifier (seven WCXB types) behind Result.page_type",
                train_page_type, default_cv=5),
)})
