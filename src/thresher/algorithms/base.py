"""What every algorithm is: a name, a frozen ``Params`` type, and a pure function.

``run(doc, params, context) -> Classification``: one label per block, an
optional score per block, and a short reason per block for the explain view.
Algorithms never mutate the document or anything shared.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._lazy import LazyModule
from ..document.blocks import Document

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays


@dataclass(frozen=True)
class Context:
    """Per-call facts an algorithm may need besides the document.

    language: ISO 639-1 code of the page ("" when unknown).
    model: path of a user-trained model file, for learned algorithms.
    source: the decoded page source, for algorithms that work on source lines (density, CETR).
    explain: build a reason per block (``Classification.reasons``); algorithms
        whose reasons cost real time skip them when this is False.
    """

    language: str = ""
    model: str | None = None
    source: str | None = field(default=None, repr=False)
    explain: bool = True


@dataclass(frozen=True)
class Classification:
    """Per-block decisions of one algorithm; ``labels[i]`` is True for main content."""

    labels: tuple[bool, ...]
    scores: tuple[float, ...] | None = None
    reasons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.scores is not None and len(self.scores) != len(self.labels):
            raise ValueError("scores and labels differ in length")
        if self.reasons and len(self.reasons) != len(self.labels):
            raise ValueError("reasons and labels differ in length")

    @classmethod
    def from_labels(cls, labels: Sequence[bool] | np.ndarray, reasons: Sequence[str] = (),
                    scores: Sequence[float] | np.ndarray | None = None) -> Classification:
        """A classification from per-block labels and scores, given as sequences or numpy arrays."""
        return cls(tuple(np.asarray(labels, bool).tolist()),
                   None if scores is None else tuple(np.asarray(scores, np.float64).tolist()),
                   tuple(reasons))


Runner = Callable[[Document, Any, Context], Classification]


@dataclass(frozen=True)
class Algorithm:
    """A registered extractor."""

    name: str
    summary: str
    source: str  # the paper or write-up it implements
    params_type: type
    run_fn: Runner = field(repr=False)
    needs_language: bool = True  # False: the caller may skip language identification
    needs_attributes: bool = True  # False: it never reads element attributes (ids, classes, ...)
    needs_source: bool = False  # True: it reads the decoded page source (``Context.source``)

    def run(self, doc: Document, params: Any = None, context: Context = Context()) -> Classification:
        params = self.params_type() if params is None else params
        if not isinstance(params, self.params_type):
            raise TypeError(f"{self.name} takes {self.params_type.__qualname__}, not {type(params).__name__}")
        if not doc.blocks:
            return Classification(())
        result = self.run_fn(doc, params, context)
        if len(result.labels) != len(doc.blocks):
            raise AssertionError(f"{self.name} returned {len(result.labels)} labels for {len(doc.blocks)} blocks")
        return result
