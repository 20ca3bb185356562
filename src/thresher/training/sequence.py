"""Training :class:`thresher.inference.seqmodel.SequenceNet` with PyTorch (the ``train`` extra).

PyTorch is imported when :func:`fit_sequence` runs, not when this module is; the trained
weights are exported as float32 arrays, and inference needs no training library (the native core runs it).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ThresherError
from ..inference.seqmodel import SequenceNet, split_columns, standardised, weight_names


@dataclass(frozen=True)
class SequenceParams:
    """The network and its training recipe.

    width / layers / heads / embedding: model size.
    chunk: attention span, in blocks (attention runs within consecutive chunks).
    epochs / learning_rate / weight_decay / pages_per_step: AdamW with a one-cycle schedule,
        gradients summed over ``pages_per_step`` pages and clipped to norm 1.
    crop: pages longer than this many blocks are trained on a random window of it.
    dropout: after attention and the feed-forward layer, in training only.
    threads / seed: PyTorch's CPU threads and random seed (one run is deterministic for both).
    """

    width: int = 96
    layers: int = 2
    heads: int = 4
    embedding: int = 32
    chunk: int = 512
    epochs: int = 12
    learning_rate: float = 1e-3
    weight_decay: float = 0.01
    pages_per_step: int = 8
    crop: int = 1500
    dropout: float = 0.1
    threads: int = 2
    seed: int = 0


@dataclass(frozen=True)
class SequenceExample:
    """One page: feature rows in reading order, labels and per-block loss weights."""

    x: np.ndarray
    labels: np.ndarray
    weights: np.ndarray


def standardisation(examples: Sequence[SequenceExample], numeric: np.ndarray):
    """Mean and scale of the numeric columns over all training rows."""
    rows = np.vstack([e.x[:, numeric] for e in examples]).astype(np.float64)
    return rows.mean(axis=0).astype(np.float32), (rows.std(axis=0) + 1e-6).astype(np.float32)


def fit_sequence(examples: Sequence[SequenceExample], names: tuple[str, ...], token_columns: tuple[str, ...],
                 p: SequenceParams) -> SequenceNet:
    """Train on whole pages (cropped to ``p.crop`` blocks) and export the weights."""
    try:
        import torch
    except ModuleNotFoundError:
        raise ThresherError("training the sequence network needs PyTorch: pip install 'thresher[train]'") from None
    torch.manual_seed(p.seed)
    torch.set_num_threads(p.threads)
    rng = np.random.default_rng(p.seed)
    numeric, token = split_columns(names, token_columns)
    mean, scale = standardisation(examples, numeric)
    net = _network(torch, len(numeric), len(token), p)
    _train(torch, net, [_tensors(torch, e, numeric, token, mean, scale) for e in examples], p, rng)
    weights = {"mean": mean, "scale": scale, **_export(net)}
    return SequenceNet(names, token_columns, {k: weights[k] for k in weight_names(p.layers)}, p.layers, p.heads,
                       p.chunk, {"family": "sequence", "width": p.width, "epochs": p.epochs})


def _tensors(torch, e: SequenceExample, numeric, token, mean, scale):
    values = standardised(e.x[:, numeric], mean, scale).astype(np.float32)
    return (torch.from_numpy(values), torch.from_numpy(np.ascontiguousarray(e.x[:, token], np.float32)),
            torch.from_numpy(e.labels.astype(np.float32)), torch.from_numpy(e.weights.astype(np.float32)))


def _train(torch, net, pages, p: SequenceParams, rng: np.random.Generator) -> None:
    steps = max(1, math.ceil(len(pages) / p.pages_per_step)) * p.epochs
    optimiser = torch.optim.AdamW(net.parameters(), lr=p.learning_rate, weight_decay=p.weight_decay)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, p.learning_rate, total_steps=steps)
    loss_of = torch.nn.functional.binary_cross_entropy_with_logits
    net.train()
    for _ in range(p.epochs):
        order = rng.permutation(len(pages))
        for start in range(0, len(order), p.pages_per_step):
            for i in order[start:start + p.pages_per_step]:
                values, bag, labels, weights = _cropped(pages[i], p.crop, rng)
                # block-weighted cross-entropy summed over the page; 1/100 keeps a page's loss near 1
                loss = (loss_of(net(values, bag), labels, reduction="none") * weights).sum() / 100.0
                loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimiser.step()
            optimiser.zero_grad()
            schedule.step()
    net.eval()


def _cropped(page, crop: int, rng: np.random.Generator):
    n = page[0].shape[0]
    if n <= crop:
        return page
    start = int(rng.integers(0, n - crop + 1))
    return tuple(t[start:start + crop] for t in page)


def _export(net) -> dict[str, np.ndarray]:
    state = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in net.state_dict().items()}
    renamed = {"embedding": state.pop("embedding.weight").T.copy()}  # (tokens, embedding), as numpy multiplies
    for key, value in state.items():
        renamed[key.replace("layers.", "layer", 1) if key.startswith("layers.") else key] = value
    return renamed


def _network(torch, n_numeric: int, n_tokens: int, p: SequenceParams):
    """The PyTorch twin of :class:`SequenceNet` (same computation, same weight names)."""
    nn, F = torch.nn, torch.nn.functional
    d, size = p.width, p.width // p.heads

    class Layer(nn.Module):  # type: ignore[name-defined]  # torch is imported at run time, untyped here
        def __init__(self):
            super().__init__()
            self.ln1, self.qkv, self.proj = nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.ln2, self.ff1, self.ff2 = nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
            self.drop = nn.Dropout(p.dropout)

        def forward(self, h):
            q, k, v = self.qkv(self.ln1(h)).chunk(3, -1)
            mixed = []
            for start in range(0, h.shape[0], p.chunk):
                qh, kh, vh = (t[start:start + p.chunk].reshape(-1, p.heads, size).transpose(0, 1) for t in (q, k, v))
                attention = torch.softmax(qh @ kh.transpose(1, 2) / math.sqrt(size), -1)
                mixed.append((attention @ vh).transpose(0, 1).reshape(-1, d))
            h = h + self.drop(self.proj(torch.cat(mixed)))
            return h + self.drop(self.ff2(torch.relu(self.ff1(self.ln2(h)))))

    class Network(nn.Module):  # type: ignore[name-defined]  # as Layer
        def __init__(self):
            super().__init__()
            self.embedding = nn.Linear(n_tokens, p.embedding, bias=False)  # a bag's mean embedding
            nn.init.normal_(self.embedding.weight)  # as torch.nn.Embedding starts
            self.in1, self.in2 = nn.Linear(n_numeric + p.embedding, d), nn.Linear(d, d)
            self.conv1, self.conv2 = nn.Conv1d(d, d, 5, padding=2), nn.Conv1d(d, d, 3, padding=1)
            self.layers = nn.ModuleList([Layer() for _ in range(p.layers)])
            self.norm, self.out = nn.LayerNorm(d), nn.Linear(d, 1)

        def forward(self, values, bag):
            embedded = self.embedding(bag) / bag.sum(1, keepdim=True).clamp(min=1)
            h = self.in2(F.gelu(self.in1(torch.cat([values, embedded], 1)), approximate="tanh"))
            h = h + torch.relu(self.conv1(h.T[None]))[0].T
            for layer in self.layers:
                h = layer(h)
            h = h + torch.relu(self.conv2(h.T[None]))[0].T
            return self.out(self.norm(h))[:, 0]

    return Network()
