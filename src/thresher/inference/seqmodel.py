"""A block-sequence network (model kind ``"sequence"``), evaluated by the native core.

It reads one page's feature rows *in reading order* and gives every block a
score from the whole sequence around it, where a tree model sees each row on its own:

1. input: the numeric columns, standardised and clipped to +-``CLIP``, beside the
   mean embedding of the block's id/class token columns (the token columns are
   0/1; a block without tokens gets zeros); a two-layer perceptron (tanh GELU);
2. a width-5 convolution over reading order (residual, ReLU);
3. ``layers`` pre-norm transformer layers whose attention runs within consecutive
   chunks of ``chunk`` blocks, so the cost stays linear in the page length;
4. a width-3 convolution (residual, ReLU), layer norm and one logit per block.

The weights are stored in the model file (:mod:`thresher.inference.treemodel`'s layout) under
the names below, in the shapes ``torch.nn.Linear`` / ``Conv1d`` / ``LayerNorm`` give
them; :mod:`thresher.training.sequence` trains it, and ``thresher._core.SequenceNet``
(``crates/core/src/seqnet.rs``) runs it in float32 on one thread, without BLAS.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import _core
from .._lazy import LazyModule, cached_property
from ..errors import ModelError

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays

CLIP = 6.0
# weight names, besides the per-layer ones "layer{i}.{name}" for each of LAYER_WEIGHTS
INPUT_WEIGHTS = ("mean", "scale", "embedding", "in1.weight", "in1.bias", "in2.weight", "in2.bias",
                 "conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "norm.weight", "norm.bias",
                 "out.weight", "out.bias")
LAYER_WEIGHTS = ("ln1.weight", "ln1.bias", "qkv.weight", "qkv.bias", "proj.weight", "proj.bias",
                 "ln2.weight", "ln2.bias", "ff1.weight", "ff1.bias", "ff2.weight", "ff2.bias")


def weight_names(layers: int) -> tuple[str, ...]:
    return INPUT_WEIGHTS + tuple(f"layer{i}.{w}" for i in range(layers) for w in LAYER_WEIGHTS)


def weight_shapes(numeric: int, tokens: int, width: int, embedding: int, layers: int) -> dict[str, tuple]:
    """The shape of every weight of a network of this size, by name."""
    shapes = {"mean": (numeric,), "scale": (numeric,), "embedding": (tokens, embedding),
              "in1.weight": (width, numeric + embedding), "in1.bias": (width,), "in2.weight": (width, width),
              "in2.bias": (width,), "conv1.weight": (width, width, 5), "conv1.bias": (width,),
              "conv2.weight": (width, width, 3), "conv2.bias": (width,), "norm.weight": (width,),
              "norm.bias": (width,), "out.weight": (1, width), "out.bias": (1,)}
    layer = {"ln1.weight": (width,), "ln1.bias": (width,), "qkv.weight": (3 * width, width), "qkv.bias": (3 * width,),
             "proj.weight": (width, width), "proj.bias": (width,), "ln2.weight": (width,), "ln2.bias": (width,),
             "ff1.weight": (2 * width, width), "ff1.bias": (2 * width,), "ff2.weight": (width, 2 * width),
             "ff2.bias": (width,)}
    for i in range(layers):
        shapes.update({f"layer{i}.{name}": shape for name, shape in layer.items()})
    return shapes


def split_columns(feature_names: tuple[str, ...], token_columns: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the numeric inputs (every name not a token column) and of the token columns."""
    tokens = set(token_columns)
    position = {name: i for i, name in enumerate(feature_names)}
    numeric = [i for i, name in enumerate(feature_names) if name not in tokens]
    return np.array(numeric, np.int64), np.array([position[t] for t in token_columns], np.int64)


def as_slice(positions: np.ndarray) -> slice | np.ndarray:
    """A slice where ``positions`` are one increasing run (indexing then gives a view, not a copy)."""
    n = len(positions)
    if n and np.array_equal(positions, np.arange(positions[0], positions[0] + n)):
        return slice(int(positions[0]), int(positions[0]) + n)
    return positions


def standardised(values: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The numeric inputs as the network reads them: standardised, clipped to +-``CLIP``."""
    return np.clip((values - mean) / scale, -CLIP, CLIP)


@dataclass(frozen=True)
class SequenceNet:
    """``token_columns``: the feature names read as a bag of id/class tokens (0/1); every other
    name is a numeric input. ``weights``: float32 arrays named as :func:`weight_names`."""

    feature_names: tuple[str, ...]
    token_columns: tuple[str, ...]
    weights: dict
    layers: int
    heads: int
    chunk: int
    meta: dict = field(default_factory=dict)

    kind = "sequence"

    def __post_init__(self) -> None:
        missing = set(weight_names(self.layers)) - self.weights.keys()
        if missing:
            raise ModelError(f"sequence model lacks weights {sorted(missing)[:3]}")
        width, embedding = self.weights["in2.weight"].shape[0], self.weights["embedding"].shape[-1]
        if self.heads < 1 or self.chunk < 1 or width % self.heads:
            raise ModelError("sequence model: heads must divide the width, and heads and chunk be positive")
        if not set(self.token_columns) <= set(self.feature_names):
            raise ModelError("sequence model: a token column is not among its feature names")
        tokens = len(self.token_columns)
        expected = weight_shapes(len(self.feature_names) - tokens, tokens, width, embedding, self.layers)
        wrong = [name for name, shape in expected.items() if self.weights[name].shape != shape]
        if wrong:
            raise ModelError(f"sequence model: weights of the wrong shape {wrong[:3]}")

    @cached_property
    def numeric_names(self) -> tuple[str, ...]:
        """The numeric inputs' names, in the order :meth:`margin_bags` reads them."""
        return tuple(self.feature_names[i] for i in split_columns(self.feature_names, self.token_columns)[0])

    @cached_property
    def _columns(self) -> tuple[slice | np.ndarray, slice | np.ndarray]:
        numeric, tokens = split_columns(self.feature_names, self.token_columns)
        return as_slice(numeric), as_slice(tokens)

    @cached_property
    def native(self) -> _core.SequenceNet:
        """The network built by the core (once per model)."""
        width, embedding = self.weights["in2.weight"].shape[0], self.weights["embedding"].shape[-1]
        tokens = len(self.token_columns)
        try:
            return _core.SequenceNet({name: np.ascontiguousarray(w, np.float32) for name, w in self.weights.items()},
                                     numeric=len(self.feature_names) - tokens, tokens=tokens, width=width,
                                     embedding=embedding, layers=self.layers, heads=self.heads, chunk=self.chunk)
        except ValueError as exc:
            raise ModelError(f"sequence model: {exc}") from None

    def margin(self, x: np.ndarray) -> np.ndarray:
        """One logit per row of ``x`` (a page's blocks, in reading order); its token columns
        are 0/1 and are read as each row's bag of tokens."""
        x = np.asarray(x, np.float32)
        numeric, token = self._columns
        rows, columns = np.nonzero(x[:, token])  # row-major order: each row's tokens together
        offsets = np.zeros(x.shape[0] + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=x.shape[0]), out=offsets[1:])
        return self.margin_bags(x[:, numeric], columns.astype(np.int64), offsets)

    def margin_bags(self, values: np.ndarray, indices: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """:meth:`margin` with the token columns given sparsely: ``values`` holds the numeric
        columns (in ``feature_names`` order, token columns left out) and row i's tokens are the
        token columns ``indices[offsets[i]:offsets[i + 1]]``, numbered in ``token_columns`` order."""
        if values.shape[0] == 0:
            return np.zeros(0)
        try:
            return self.native.margins(np.ascontiguousarray(values, np.float32),
                                       np.ascontiguousarray(indices, np.int64), np.ascontiguousarray(offsets, np.int64))
        except ValueError as exc:
            raise ModelError(f"sequence model: {exc}") from None

    def arrays(self) -> dict[str, np.ndarray]:
        shape = {"layers": self.layers, "heads": self.heads, "chunk": self.chunk}
        return {**{f"w.{k}": v for k, v in self.weights.items()}, **{k: np.asarray(v) for k, v in shape.items()}}


def from_arrays(feature_names: tuple[str, ...], spec: dict, get) -> SequenceNet:
    layers = int(get("layers"))
    weights = {name: np.asarray(get(f"w.{name}"), np.float32) for name in weight_names(layers)}
    return SequenceNet(feature_names, tuple(spec["token_columns"]), weights, layers, int(get("heads")),
                       int(get("chunk")), spec.get("meta", {}))
