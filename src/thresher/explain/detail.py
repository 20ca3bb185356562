"""What the explain views show of one block besides its decision: feature values and,
for the learned algorithms, the features that pushed its score up or down most."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..algorithms import flagship
from ..document.blocks import Document
from ..features import text_density
from ..inference import learned as L
from ..inference.treemodel import TreeEnsemble, sigmoid
from .contributions import Contributions, path_contributions

# Model files of the learned algorithms, by the base algorithm's name (``+tree`` variants
# score blocks with their base's model).
FLAGSHIP_FILES = {"thresher": flagship.MODEL_FILE, "thresher-accurate": flagship.ACCURATE_MODEL_FILE}
DRAGNET_FILES = {"dragnet": "dragnet.npz", "dragnet-comments": "dragnet-comments.npz"}
TOP_K = 8  # contributions kept per block: the few that moved it most


@dataclass(frozen=True)
class BlockDetail:
    """One block as a learned model saw it.

    stage: the tree model whose contributions these are ("stage1" or "stage2").
    bias: that model's margin before any feature (base plus the roots' values).
    features: the block's non-zero values of the features that model reads.
    top: (feature, value, contribution) of the features that moved the margin most.
    """

    stage: str
    bias: float
    features: dict[str, float]
    top: tuple[tuple[str, float, float], ...]


@dataclass(frozen=True)
class Shallow:
    """Per-block facts every algorithm's view shows, and the charts plot."""

    words: np.ndarray
    link_density: np.ndarray
    text_density: np.ndarray


def shallow(doc: Document) -> Shallow:
    numbers = doc.numbers
    density = np.array([text_density(block.text) for block in doc.blocks], np.float64)
    return Shallow(numbers.words.copy(), numbers.link_density, density)


def base_name(algorithm: str) -> str:
    return algorithm.split("+", 1)[0]


def is_learned(algorithm: str) -> bool:
    return base_name(algorithm) in FLAGSHIP_FILES or base_name(algorithm) in DRAGNET_FILES


def model_path(algorithm: str, model: str | None) -> str:
    name = base_name(algorithm)
    return model or L.shipped_model_path({**FLAGSHIP_FILES, **DRAGNET_FILES}[name])


def learned_details(doc: Document, algorithm: str, language: str,
                    model: str | None = None) -> tuple[BlockDetail, ...] | None:
    """Per-block details of a learned algorithm (None for the others).

    The flagship's blocks are explained by stage 2 where stage 2 scored them (the blocks
    stage 1 is unsure of) and by stage 1 elsewhere; its sequence network, averaged into the
    final score, is not decomposed."""
    if not doc.blocks or not is_learned(algorithm):
        return None
    loaded = L.load_learned(model_path(algorithm, model))
    page = L.page_features(doc, language)
    if base_name(algorithm) in DRAGNET_FILES:
        stage1 = loaded.stage("stage1")
        if not isinstance(stage1, TreeEnsemble):  # only trees are decomposed into contributions
            return None
        x = L.checked(stage1, L.dragnet_features(page, loaded.token_vocabulary))
        return _details(stage1, x, path_contributions(stage1, x), "stage1")
    return _flagship_details(loaded, page)


def _flagship_details(loaded: L.LearnedModel, page: L.PageFeatures) -> tuple[BlockDetail, ...] | None:
    stage1 = loaded.stage("stage1")
    if not isinstance(stage1, TreeEnsemble):  # only trees are decomposed into contributions
        return None
    s1 = L.stage1_features(page, loaded.token_vocabulary, L.reads_candidates(stage1))
    x1 = L.checked(stage1, s1)
    first = _details(stage1, x1, path_contributions(stage1, x1), "stage1")
    stage2 = loaded.models.get("stage2")
    if not isinstance(stage2, TreeEnsemble):
        return first
    own = sigmoid(stage1.margin(x1))
    rows = np.flatnonzero(L.uncertain(own, flagship.Params.certain))
    if not len(rows):
        return first
    around = L.context_features(page.doc, own)
    x2 = L.checked(stage2, L.stage2_layout(s1.rows(rows), around.rows(rows)))
    second = _details(stage2, x2, path_contributions(stage2, x2), "stage2")
    merged = list(first)
    for position, row in enumerate(rows.tolist()):
        merged[row] = second[position]
    return tuple(merged)


def _details(model: TreeEnsemble, x: np.ndarray, contributions: Contributions,
             stage: str) -> tuple[BlockDetail, ...]:
    names = model.feature_names
    read = np.array(sorted(names.index(name) for name in model.read_features()), np.int64)
    values = np.asarray(x, np.float64)
    out = []
    for row in range(values.shape[0]):
        line = values[row]
        nonzero = read[line[read] != 0.0]
        features = {names[j]: float(line[j]) for j in nonzero.tolist()}
        top = tuple((names[j], float(line[j]), c) for j, c in contributions.top(row, TOP_K))
        out.append(BlockDetail(stage, float(contributions.bias[row]), features, top))
    return tuple(out)
