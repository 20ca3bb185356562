"""A block-sequence network evaluated with numpy alone (model kind ``"sequence"``).

It reads one page's feature rows *in reading order* and gives every block a
score from the whole sequence around it, where a tree model sees each row on its own:

1. input: the numeric columns, standardised and clipped to +-``CLIP``, beside the
   mean embedding of the block's id/class token columns (the token columns are
   0/1; a block without tokens gets zeros); a two-layer perceptron (tanh GELU);
2. a width-5 convolution over reading order (residual, ReLU);
3. ``layers`` pre-norm transformer layers whose attention runs within consecutive
   chunks of ``chunk`` blocks, so the cost stays linear in the page length;
4. a width-3 convolution (residual, ReLU), layer norm and one logit per block.

The weights are stored in the model file (:mod:`thresher.treemodel`'s layout) under
the names below, in the shapes ``torch.nn.Linear`` / ``Conv1d`` / ``LayerNorm`` give
them; :mod:`thresher.training.sequence` trains it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .errors import ModelError
from .features import pad_ends

CLIP = 6.0
LAYER_NORM_EPS = 1e-5
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


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (what the network is trained with)."""
    return 0.5 * x * (1.0 + np.tanh(np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x * x * x)))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Row-wise layer norm. The means are sums over the width (what ``mean`` computes, without
    its Python wrapper: the same float32 results)."""
    width = np.float32(x.shape[1])
    mean = np.add.reduce(x, axis=1, keepdims=True) / width
    centred = x - mean
    var = np.add.reduce(centred * centred, axis=1, keepdims=True) / width
    return centred / np.sqrt(var + np.float32(LAYER_NORM_EPS)) * weight + bias


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return x @ weight.T + bias


def conv(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Convolution over the rows (``weight``: (out, in, width), zero padding at both ends), as
    one matrix product: row i of the windows holds rows i .. i + width - 1 of the padded input,
    laid out (in, width) like each output channel's weights (stacked from shifted slices, which
    costs about half of copying a strided window view)."""
    n, width = x.shape[0], weight.shape[2]
    padded = pad_ends(x, width // 2)
    windows = np.stack([padded[k:k + n] for k in range(width)], axis=2)  # (n, in, width)
    return windows.reshape(n, -1) @ weight.reshape(weight.shape[0], -1).T + bias


def mean_embedding(embedding: np.ndarray, indices: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Row i: the mean of ``embedding``'s rows ``indices[offsets[i]:offsets[i + 1]]`` (zeros for
    a row without tokens), what a 0/1 bag times ``embedding`` over the bag's size gives."""
    n = len(offsets) - 1
    counts = np.diff(offsets)
    rows = np.zeros((len(indices) + 1, embedding.shape[1]), np.float32)  # a last zero row: see below
    np.take(embedding, indices, axis=0, out=rows[:-1])
    # reduceat sums rows[offsets[i]:offsets[i + 1]]; every start is <= len(indices), a valid row thanks
    # to the zero row, and a row without tokens (an empty range) is zeroed after
    sums = np.add.reduceat(rows, offsets[:-1], axis=0) if n else np.zeros((0, embedding.shape[1]), np.float32)
    sums[counts == 0] = 0.0
    return sums / np.maximum(counts, 1)[:, None].astype(np.float32)


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """Softmax along the last axis, computed in place (``scores`` is overwritten and returned)."""
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores


# How many attention scores (chunks x heads x chunk x chunk) one batch of chunks may hold: bounds
# the memory of a long page's attention (16 MiB of float32) while batching a short page's chunks.
ATTENTION_BATCH_SCORES = 1 << 22


def chunked_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int, chunk: int) -> np.ndarray:
    """Multi-head attention of each block over the blocks of its own chunk of ``chunk``.

    The whole chunks are attended in batches of several chunks at once (one matrix product per
    batch instead of one per chunk), then the last, shorter chunk on its own."""
    n, width = q.shape
    out = np.empty_like(q)
    q = q * np.float32(1.0 / np.sqrt(width // heads))
    whole = n - n % chunk
    per_batch = max(1, ATTENTION_BATCH_SCORES // (heads * chunk * chunk)) * chunk
    for start in range(0, whole, per_batch):
        rows = slice(start, min(whole, start + per_batch))
        out[rows] = _attend(q[rows], k[rows], v[rows], heads, chunk)
    if whole < n:
        out[whole:] = _attend(q[whole:], k[whole:], v[whole:], heads, n - whole)
    return out


def _attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int, span: int) -> np.ndarray:
    """Attention within each run of ``span`` rows (the row count is a multiple of ``span``;
    ``q`` is already scaled)."""
    n, width = q.shape
    qh, kh, vh = (t.reshape(n // span, span, heads, width // heads).transpose(0, 2, 1, 3) for t in (q, k, v))
    mixed = softmax_rows(qh @ kh.transpose(0, 1, 3, 2)) @ vh  # (chunks, heads, span, size)
    return mixed.transpose(0, 2, 1, 3).reshape(n, width)


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
        return tuple(map(as_slice, split_columns(self.feature_names, self.token_columns)))

    def margin(self, x: np.ndarray) -> np.ndarray:
        """One logit per row of ``x`` (a page's blocks, in reading order)."""
        if x.shape[0] == 0:
            return np.zeros(0)
        x = np.asarray(x, np.float32)
        numeric, token = self._columns
        bag = x[:, token]
        embedded = (bag @ self.weights["embedding"]) / np.maximum(bag.sum(axis=1, keepdims=True), 1)
        return self._margin(x[:, numeric], embedded)

    def margin_bags(self, values: np.ndarray, indices: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """:meth:`margin` with the token columns given sparsely: ``values`` holds the numeric
        columns (in ``feature_names`` order, token columns left out) and row i's tokens are the
        token columns ``indices[offsets[i]:offsets[i + 1]]``, numbered in ``token_columns`` order."""
        if values.shape[0] == 0:
            return np.zeros(0)
        embedded = mean_embedding(self.weights["embedding"], indices, offsets)
        return self._margin(np.asarray(values, np.float32), embedded)

    def _margin(self, values: np.ndarray, embedded: np.ndarray) -> np.ndarray:
        w = self.weights
        h = self._input(values, embedded)
        h = h + np.maximum(conv(h, w["conv1.weight"], w["conv1.bias"]), 0)
        for i in range(self.layers):
            h = self._layer(h, {name: w[f"layer{i}.{name}"] for name in LAYER_WEIGHTS})
        h = h + np.maximum(conv(h, w["conv2.weight"], w["conv2.bias"]), 0)
        return linear(layer_norm(h, w["norm.weight"], w["norm.bias"]), w["out.weight"], w["out.bias"])[:, 0]

    def _input(self, values: np.ndarray, embedded: np.ndarray) -> np.ndarray:
        w = self.weights
        values = standardised(values, w["mean"], w["scale"])
        h = gelu(linear(np.concatenate([values, embedded], axis=1), w["in1.weight"], w["in1.bias"]))
        return linear(h, w["in2.weight"], w["in2.bias"])

    def _layer(self, h: np.ndarray, w: dict) -> np.ndarray:
        q, k, v = np.split(linear(layer_norm(h, w["ln1.weight"], w["ln1.bias"]), w["qkv.weight"], w["qkv.bias"]), 3, 1)
        h = h + linear(chunked_attention(q, k, v, self.heads, self.chunk), w["proj.weight"], w["proj.bias"])
        inner = np.maximum(linear(layer_norm(h, w["ln2.weight"], w["ln2.bias"]), w["ff1.weight"], w["ff1.bias"]), 0)
        return h + linear(inner, w["ff2.weight"], w["ff2.bias"])

    def arrays(self) -> dict[str, np.ndarray]:
        shape = {"layers": self.layers, "heads": self.heads, "chunk": self.chunk}
        return {**{f"w.{k}": v for k, v in self.weights.items()}, **{k: np.asarray(v) for k, v in shape.items()}}


def from_arrays(feature_names: tuple[str, ...], spec: dict, get) -> SequenceNet:
    layers = int(get("layers"))
    weights = {name: np.asarray(get(f"w.{name}"), np.float32) for name in weight_names(layers)}
    return SequenceNet(feature_names, tuple(spec["token_columns"]), weights, layers, int(get("heads")),
                       int(get("chunk")), spec.get("meta", {}))
