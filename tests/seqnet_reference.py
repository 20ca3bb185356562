"""A plain numpy transcription of the block-sequence network, as an oracle for the native one.

Test code only: thresher itself runs the network in the core (``thresher._core.SequenceNet``).
The transcription follows the architecture step by step, in float32, with numpy's own matrix
products, so the two agree up to float32 rounding.
"""
from __future__ import annotations

import numpy as np

from thresher.inference.seqmodel import LAYER_WEIGHTS, SequenceNet, standardised

LAYER_NORM_EPS = 1e-5


def pad_ends(values: np.ndarray, radius: int) -> np.ndarray:
    return np.pad(values, ((radius, radius),) + ((0, 0),) * (values.ndim - 1))


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




def reference_margin_bags(net: SequenceNet, values: np.ndarray, indices: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """What ``net.margin_bags`` computes, transcribed in numpy."""
    w = net.weights
    embedded = mean_embedding(w["embedding"], indices, offsets)
    x = np.concatenate([standardised(np.asarray(values, np.float32), w["mean"], w["scale"]), embedded], axis=1)
    h = linear(gelu(linear(x, w["in1.weight"], w["in1.bias"])), w["in2.weight"], w["in2.bias"])
    h = h + np.maximum(conv(h, w["conv1.weight"], w["conv1.bias"]), 0)
    for i in range(net.layers):
        lw = {name: w[f"layer{i}.{name}"] for name in LAYER_WEIGHTS}
        normed = layer_norm(h, lw["ln1.weight"], lw["ln1.bias"])
        q, k, v = np.split(linear(normed, lw["qkv.weight"], lw["qkv.bias"]), 3, 1)
        h = h + linear(chunked_attention(q, k, v, net.heads, net.chunk), lw["proj.weight"], lw["proj.bias"])
        inner = np.maximum(linear(layer_norm(h, lw["ln2.weight"], lw["ln2.bias"]), lw["ff1.weight"], lw["ff1.bias"]), 0)
        h = h + linear(inner, lw["ff2.weight"], lw["ff2.bias"])
    h = h + np.maximum(conv(h, w["conv2.weight"], w["conv2.bias"]), 0)
    return linear(layer_norm(h, w["norm.weight"], w["norm.bias"]), w["out.weight"], w["out.bias"])[:, 0]
