"""Training the learned extractors (``dragnet`` and the ``thresher`` flagship).

Needs the ``train`` extra (LightGBM; PyTorch for the block-sequence network of ``thresher`` and
``thresher-accurate``; scikit-learn for the linear variants); the models it writes are plain
``.npz`` files that inference reads without any training library.

    thresher train ../shared/datasets/wcxb-dev -o thresher.npz --algorithm thresher --cv 5 --seed 0

Pipeline: pages -> documents -> block labels by alignment with the gold text
-> features -> (domain-grouped K-fold cross-validation, reported per page
type with the referee's word-level F1) -> a final fit on every page -> model.
"""
from __future__ import annotations

import math
import os
import re
import statistics
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple, Protocol
from urllib.parse import urlparse

import numpy as np

from .. import features as F
from ..algorithms.flagship import Params as FlagshipParams, decide_page
from ..document.blocks import build_document
from ..document.decode import decode
from ..document.language import page_language
from ..errors import ThresherError
from ..evaluation.datasets import TEXT_KINDS, detect_kind, load
from ..inference import learned as L
from ..inference.treemodel import Model, TreeEnsemble, averaged, from_lightgbm_dump, probability, save
from .align import align_document
from .sequence import SequenceExample, SequenceParams, fit_sequence

SEED = 0


@dataclass(frozen=True)
class TrainParams:
    """Learning settings. Defaults are the ones the shipped models were trained with.

    vocabulary_size: id/class tokens selected (half most content-like, half most boilerplate-like);
        the model file keeps those some tree reads.
    min_token_domains: a token must occur on this many distinct domains to be considered
        (keeps site-specific class names out of the model).
    trees / leaves / learning_rate / min_child_samples / feature_fraction / bagging: LightGBM.
    max_depth: LightGBM's depth limit (-1: none). Inference walks every tree
        level by level, so shallow trees are what make the flagship fast.
    inner_folds: folds used to produce out-of-fold stage-1 scores for stage 2 (more folds give
        stage 2 scores closer to those of the final stage 1, which sees all the pages; the
        choice is measured in docs/design-measurements.md).
    stage2_models: stage-2 tree models averaged (in logit space, stored as one ensemble). Model
        k (from 0) learns from out-of-fold stage-1 scores of its own inner folds, with seed
        ``seed + k`` for its trees and ``seed + k + 1`` for its folds; model 0 is the single
        model's. Linear models keep one.
    decoding: the flagship's rule, saved in the model file: "expected_f1" (a cut per page,
        see ``expected_f1_cut`` in ``crates/core/src/learned/decode.rs``) or "threshold".
    threshold: probability at which a block is content under the "threshold" decoding.
    threads: LightGBM threads (results do not depend on it).
    network: also train the block-sequence network (:mod:`thresher.inference.seqmodel`, with
        ``sequence``'s settings; needs PyTorch), whose scores the final ones average with
        weight ``network_weight``. It reads the base features and its own token columns:
        every id/class token seen on ``min_token_domains`` domains, counted without labels
        (the network learns which matter).
    """

    vocabulary_size: int = 400
    min_token_domains: int = 15
    trees: int = 150
    leaves: int = 40
    max_depth: int = 6
    learning_rate: float = 0.1
    min_child_samples: int = 40
    feature_fraction: float = 0.5
    bagging: float = 0.5
    inner_folds: int = 4
    stage2_models: int = 1
    decoding: str = "expected_f1"
    threshold: float = 0.30
    threads: int = 2
    seed: int = SEED
    network: bool = False
    network_weight: float = 0.5
    sequence: SequenceParams = SequenceParams()


@dataclass(frozen=True)
class Page:
    id: str
    url: str
    domain: str
    type: str
    gold: str
    features: L.PageFeatures
    labels: np.ndarray  # bool per block
    weights: np.ndarray  # per block training weight


@dataclass(frozen=True)
class TextlessPage:
    """A labelled page with no block to classify: it does not parse, or all its text is in
    scripts (a forum whose posts a script loads). Nothing can be trained on it, and every
    extraction of it is empty, which cross-validation scores as the referee does: 1 when the
    gold text is empty too, else 0."""

    id: str
    type: str
    gold: str


@dataclass(frozen=True)
class Prepared:
    """A dataset read for training: the pages with blocks, and the textless ones."""

    pages: list[Page]
    textless: list[TextlessPage]


# ------------------------------------------------------------------ data

def domain_of(url: str | None) -> str:
    host = urlparse(url or "").netloc.lower()
    return host[4:] if host.startswith("www.") else host


def check_datasets(dataset_dirs: Sequence[str | Path]) -> None:
    """Raise :class:`ThresherError` unless every directory is a dataset whose gold is the main
    text (wcxb, scrapinghub or readability layout): checked before any page is prepared."""
    for directory in map(Path, dataset_dirs):
        kind = detect_kind(directory)  # DatasetError (a ThresherError) for no known layout
        if kind not in TEXT_KINDS:
            raise ThresherError(f"{directory}: the {kind} layout has no gold main text to align blocks to; "
                                f"training reads the {', '.join(TEXT_KINDS)} layouts")


def iter_labelled(dataset_dirs: Sequence[str | Path]) -> Iterable[tuple[str, bytes, str, str, str]]:
    """(id, html bytes, url, gold main text, page type) for every page of the datasets (wcxb,
    scrapinghub or readability layout; pages without a type are articles).

    Reads through :func:`thresher.evaluation.datasets.load`, the loader the referee-identical
    evaluation uses, so training and evaluation see the same pages and page types.
    """
    check_datasets(dataset_dirs)
    for directory in map(Path, dataset_dirs):
        for page in load(directory):
            yield (f"{directory.name}/{page.id}", page.html, page.url or "", page.gold["text"],
                   page.gold.get("type", "article"))


def block_weights(doc, labels: np.ndarray) -> np.ndarray:
    """Weight blocks by their share of the page's words: the metric is a per-page mean of word F1."""
    words = np.fromiter((max(1, b.word_count) for b in doc.blocks), np.float64, count=len(doc.blocks))
    content_words = max(50.0, float(words[labels].sum()))
    return np.clip(words / content_words, 0.002, 1.0) * 100.0


def prepare_dataset(dataset_dirs: Sequence[str | Path], log=print) -> Prepared:
    """Every labelled page of ``dataset_dirs``: with its features, labels and weights, or as textless."""
    pages, textless = [], []
    start = time.perf_counter()
    for page_id, html, url, gold, kind in iter_labelled(dataset_dirs):
        try:
            doc = build_document(decode(html).text, url)
        except ThresherError:
            doc = None
        if doc is None or not doc.blocks:
            textless.append(TextlessPage(page_id, kind, gold))
            continue
        language = page_language(doc)
        labels = np.asarray(align_document(doc, gold).labels, bool)
        pages.append(Page(page_id, url, domain_of(url) or page_id, kind, gold,
                          L.page_features(doc, language), labels, block_weights(doc, labels)))
        if len(pages) % 250 == 0:
            log(f"  prepared {len(pages)} pages ({time.perf_counter() - start:.0f} s)")
    if textless:
        log(f"  {len(textless)} pages without text to classify (scored as empty extractions)")
    return Prepared(pages, textless)


# ------------------------------------------------------------------ vocabulary

def token_domains(pages: Sequence[Page]) -> dict[str, set]:
    """The domains each id/class token occurs on."""
    domains: dict[str, set] = defaultdict(set)
    for page in pages:
        for toks in page.features.token_sets:
            for t in toks:
                domains[t].add(page.domain)
    return domains


def frequent_tokens(pages: Sequence[Page], min_domains: int) -> tuple[str, ...]:
    """Every token seen on at least ``min_domains`` domains (the labels are not read)."""
    return tuple(sorted(t for t, doms in token_domains(pages).items() if len(doms) >= min_domains))


def select_vocabulary(pages: Sequence[Page], size: int, min_domains: int) -> tuple[str, ...]:
    """Tokens with the largest |log odds| of content vs boilerplate, seen on enough domains."""
    content: Counter[str] = Counter()
    boiler: Counter[str] = Counter()
    for page in pages:
        for toks, label in zip(page.features.token_sets, page.labels):
            for t in toks:
                (content if label else boiler)[t] += 1
    domains = token_domains(pages)
    n_content, n_boiler = max(1, sum(content.values())), max(1, sum(boiler.values()))
    scored = []
    for t, doms in domains.items():
        if len(doms) < min_domains:
            continue
        odds = math.log((content[t] + 1) / n_content) - math.log((boiler[t] + 1) / n_boiler)
        scored.append((odds, t))
    scored.sort()
    half = size // 2
    chosen = [t for _, t in scored[:half]] + [t for _, t in scored[-half:]]
    return tuple(sorted(set(chosen)))


# ------------------------------------------------------------------ fitting

def _lgb_params(p: TrainParams) -> dict:
    return {"objective": "binary", "learning_rate": p.learning_rate, "num_leaves": p.leaves,
            "max_depth": p.max_depth,
            "min_child_samples": p.min_child_samples, "feature_fraction": p.feature_fraction,
            "bagging_fraction": p.bagging, "bagging_freq": 1, "seed": p.seed, "deterministic": True,
            "force_row_wise": True, "num_threads": p.threads, "verbose": -1, "max_bin": 63}


def fit_trees(x: np.ndarray, y: np.ndarray, w: np.ndarray, names: tuple[str, ...], p: TrainParams):
    # OpenMP threads that spin while waiting make training crawl on a busy machine
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import lightgbm as lgb

    booster = lgb.train(_lgb_params(p), lgb.Dataset(x, y.astype(np.float64), weight=w, free_raw_data=True),
                        num_boost_round=p.trees)
    return from_lightgbm_dump(booster.dump_model(), names)


def fit_linear(x: np.ndarray, y: np.ndarray, w: np.ndarray, names: tuple[str, ...], p: TrainParams):
    from sklearn.linear_model import LogisticRegression

    from ..inference.treemodel import LinearModel

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=1.0, max_iter=300, random_state=p.seed)
    clf.fit((x - mean) / scale, y, sample_weight=w)
    return LinearModel(names, mean.astype(np.float64), scale.astype(np.float64), clf.coef_[0].astype(np.float64),
                       float(clf.intercept_[0]))


def _stack(pages: Sequence[Page], build: Callable[[Page], F.Columns]):
    cols = [build(page) for page in pages]
    names = cols[0].names
    return (names, np.vstack([c.values for c in cols]), np.concatenate([p.labels for p in pages]),
            np.concatenate([p.weights for p in pages]))


class _FromDomain(Protocol):
    @property
    def domain(self) -> str: ...


def group_folds(pages: Sequence[_FromDomain], k: int, seed: int = SEED) -> list[list[int]]:
    """Deterministic domain-grouped folds: a domain's pages all land in the same fold."""
    by_domain: dict[str, list[int]] = defaultdict(list)
    for i, page in enumerate(pages):
        by_domain[page.domain].append(i)
    order = sorted(by_domain, key=lambda d: (zlib.crc32(f"{seed}:{d}".encode()), d))
    folds: list[list[int]] = [[] for _ in range(k)]
    for domain in sorted(order, key=lambda d: -len(by_domain[d])):
        smallest = min(range(k), key=lambda f: (len(folds[f]), f))
        folds[smallest].extend(by_domain[domain])
    return [sorted(f) for f in folds]


@dataclass(frozen=True)
class Trained:
    stage1: Model
    stage2: Model | None
    vocabulary: tuple[str, ...]
    threshold: float
    network: L.Network | None = None


def train_flagship_models(pages: Sequence[Page], p: TrainParams, family: str = "trees") -> Trained:
    fit = fit_trees if family == "trees" else fit_linear
    vocab = select_vocabulary(pages, p.vocabulary_size, p.min_token_domains)
    tokens = F.Vocabulary(vocab)
    names, x, y, w = _stack(pages, lambda page: L.stage1_features(page.features, tokens))
    stage1 = fit(x, y, w, names, p)
    count = p.stage2_models if family == "trees" else 1
    models = [fit_stage2(pages, tokens, replace(p, seed=p.seed + k), fit) for k in range(count)]
    stage2 = averaged(models) if count > 1 else models[0]
    network = fit_network(pages, p) if p.network else None
    return pruned(Trained(stage1, stage2, vocab, p.threshold, network))


def fit_stage2(pages: Sequence[Page], vocab: F.Vocabulary, p: TrainParams, fit):
    """Stage 2, learnt from out-of-fold stage-1 scores (inner folds drawn with ``p.seed + 1``)."""
    oof = _out_of_fold_scores(pages, vocab, p, fit)
    cols = [L.stage2_features(L.stage1_features(pg.features, vocab), pg.features.doc, s) for pg, s in zip(pages, oof)]
    return fit(np.vstack([c.values for c in cols]), np.concatenate([pg.labels for pg in pages]),
               np.concatenate([pg.weights for pg in pages]), cols[0].names, p)


def fit_network(pages: Sequence[Page], p: TrainParams) -> L.Network:
    """The block-sequence network over the base features and its own id/class-token columns."""
    vocab = F.Vocabulary(frequent_tokens(pages, p.min_token_domains))
    columns = [L.network_features(pg.features, vocab) for pg in pages]
    examples = [SequenceExample(c.values, pg.labels, pg.weights) for pg, c in zip(pages, columns)]
    model = fit_sequence(examples, columns[0].names, vocab.names, p.sequence)
    return L.Network(model, vocab, p.network_weight)


def pruned(trained: Trained) -> Trained:
    """The same models without the vocabulary tokens no tree reads.

    Scores do not change (an unread column cannot move a row), and inference
    builds narrower feature rows. Linear models read every column and are
    returned as they are; the network keeps its own token columns.
    """
    models = [m for m in (trained.stage1, trained.stage2) if m is not None]
    trees = [m for m in models if isinstance(m, TreeEnsemble)]
    if len(trees) != len(models):
        return trained
    read = frozenset[str]().union(*(m.read_features() for m in trees))
    unread = {F.token_name(t) for t in trained.vocabulary} - read

    def relayout(model):
        if model is None:
            return None
        return model.with_feature_names(tuple(n for n in model.feature_names if n not in unread))

    return Trained(relayout(trained.stage1), relayout(trained.stage2),
                   tuple(t for t in trained.vocabulary if F.token_name(t) not in unread), trained.threshold,
                   trained.network)


def _out_of_fold_scores(pages: Sequence[Page], vocab: F.Vocabulary, p: TrainParams, fit) -> list[np.ndarray]:
    scores: list[np.ndarray | None] = [None] * len(pages)
    for fold in group_folds(pages, p.inner_folds, p.seed + 1):
        held = set(fold)
        train = [pg for i, pg in enumerate(pages) if i not in held]
        names, x, y, w = _stack(train, lambda page: L.stage1_features(page.features, vocab))
        model = fit(x, y, w, names, p)
        for i in fold:
            scores[i] = probability(model, L.stage1_features(pages[i].features, vocab).values)
    return scores  # type: ignore[return-value]


def train_dragnet_models(pages: Sequence[Page], p: TrainParams, family: str = "trees") -> Trained:
    fit = fit_trees if family == "trees" else fit_linear
    vocab = select_vocabulary(pages, p.vocabulary_size, p.min_token_domains)
    tokens = F.Vocabulary(vocab)
    names, x, y, w = _stack(pages, lambda page: L.dragnet_features(page.features, tokens))
    return pruned(Trained(fit(x, y, w, names, p), None, vocab, p.threshold))


_COMMENT_TOKEN = re.compile(
    r"^(?:comments?|comment(?:list|body|text|content)|repl(?:y|ies)|respon(?:d|ses?)|discussions?)$")


def with_comments(page: Page) -> Page:
    """Labels for Dragnet's content+comments model: the main content plus user comments.

    A block counts as a comment when an element among its own and its ancestors'
    id/class tokens (3 levels, as the token features see them) names comments or
    replies, and the block is prose rather than links (link density < 0.5, 3+ words).
    """
    doc = page.features.doc
    labels = page.labels.copy()
    for i, (block, toks) in enumerate(zip(doc.blocks, page.features.token_sets)):
        if labels[i] or block.link_density >= 0.5 or block.word_count < 3:
            continue
        labels[i] = any(_COMMENT_TOKEN.match(t) for t in toks)
    return Page(page.id, page.url, page.domain, page.type, page.gold, page.features, labels,
                block_weights(doc, labels))


def train_dragnet_comments_models(pages: Sequence[Page], p: TrainParams, family: str = "trees") -> Trained:
    return train_dragnet_models([with_comments(page) for page in pages], p, family)


def predict(trained: Trained, page: L.PageFeatures, dragnet: bool = False) -> np.ndarray:
    if dragnet:
        return probability(trained.stage1, L.dragnet_features(page, F.vocabulary(trained.vocabulary)).values)
    return L.two_stage_scores(trained.stage1, trained.stage2, page, F.vocabulary(trained.vocabulary),
                              FlagshipParams.confident, trained.network, FlagshipParams.certain).final


# ------------------------------------------------------------------ evaluation

def word_f1(pred: str, gold: str) -> float:
    from ..evaluation.metrics import word_prf

    return word_prf(pred, gold)[2]


def page_text(page: Page, keep: np.ndarray) -> str:
    return "\n\n".join(b.text for b, k in zip(page.features.doc.blocks, keep) if k)


def cross_validate(pages: Sequence[Page], k: int, trainer, p: TrainParams, dragnet: bool = False,
                   log=print, thresholds: Sequence[float] = (), textless: Sequence[TextlessPage] = ()) -> dict:
    """Domain-grouped K-fold CV; referee word F1 per page type at the model threshold
    (and, for tuning, at each of ``thresholds``). The ``textless`` pages count too, with
    the empty extraction every model gives them, so that the mean is over the whole dataset,
    as the referee's is."""
    probabilities: list[np.ndarray | None] = [None] * len(pages)
    for n, fold in enumerate(group_folds(pages, k, p.seed)):
        held = set(fold)
        trained = trainer([pg for i, pg in enumerate(pages) if i not in held], p)
        for i in fold:
            probabilities[i] = predict(trained, pages[i].features, dragnet)
        log(f"  fold {n + 1}/{k}: {len(fold)} pages")
    # the flagship's decoding rules; Dragnet is scored as published (a threshold, possibly empty)
    never_empty = not dragnet
    decoding = "threshold" if dragnet else p.decoding
    report = _score(pages, probabilities, decoding, p.threshold, never_empty, textless)
    report["at_threshold"] = {t: _score(pages, probabilities, "threshold", t, never_empty, textless)["f1"]
                              for t in thresholds}
    return report


def _score(pages: Sequence[Page], probabilities, decoding: str, threshold: float, never_empty: bool,
           textless: Sequence[TextlessPage] = ()) -> dict:
    rule = FlagshipParams(never_empty=never_empty)
    per_type: dict[str, list[float]] = defaultdict(list)
    for page, prob in zip(pages, probabilities):
        keep, _ = decide_page(prob, page.features.doc, decoding, threshold, rule)
        per_type[page.type].append(word_f1(page_text(page, keep), page.gold))
    for empty in textless:
        per_type[empty.type].append(word_f1("", empty.gold))
    scores = [s for v in per_type.values() for s in v]
    return {"f1": statistics.mean(scores), "pages": len(scores), "decoding": decoding, "threshold": threshold,
            "f1_by_type": {t: statistics.mean(v) for t, v in sorted(per_type.items())}}


def format_report(name: str, report: dict) -> str:
    types = " ".join(f"{t}={v:.3f}" for t, v in report["f1_by_type"].items())
    rule = L.DECODING_NAMES[report.get("decoding", "threshold")]
    if rule == "threshold":
        rule += f" {report['threshold']:.2f}"
    line = f"{name}: CV F1={report['f1']:.3f} over {report['pages']} pages ({rule})\n  by type: {types}"
    if report.get("at_threshold"):
        line += "\n  by threshold: " + " ".join(f"{t:.2f}={v:.3f}" for t, v in report["at_threshold"].items())
    return line


# ------------------------------------------------------------------ entry points

def _save(trained: Trained, out: str | Path, algorithm: str, p: TrainParams, report: dict | None,
          datasets: Sequence[str | Path]) -> None:
    models: dict[str, Model] = {"stage1": trained.stage1}
    if trained.stage2 is not None:
        models["stage2"] = trained.stage2
    meta = {"algorithm": algorithm, "vocabulary": list(trained.vocabulary), "threshold": trained.threshold,
            "decoding": p.decoding}
    if trained.network is not None:
        models["network"] = trained.network.model
        meta.update(network_vocabulary=list(trained.network.vocabulary.tokens), network_weight=trained.network.weight)
    meta |= {"seed": p.seed, "params": asdict(p), "datasets": [Path(d).name for d in datasets], "cv": report}
    save(models, out, meta, compress=False)  # loaded by a first extraction: stored, not inflated


# Per-algorithm settings where they differ from TrainParams' defaults (thresholds chosen by
# domain-grouped cross-validation; see the model files' "cv" reports and docs/training-notes.md).
_DRAGNET = TrainParams(threshold=0.25, vocabulary_size=1000, decoding="threshold")
# The default: the trees averaged with a small network (width 32, one layer, attention within
# chunks of 64 blocks, a 16-wide token embedding) at weight 0.3.
SMALL_NETWORK = SequenceParams(width=32, layers=1, chunk=64, embedding=16)
FLAGSHIP = TrainParams(network=True, network_weight=0.3, sequence=SMALL_NETWORK, stage2_models=2)
REPORTED_THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.5)  # the CV report also scores these

ModelFitter = Callable[[Sequence[Page], TrainParams], Trained]


class Recipe(NamedTuple):
    """How one learned algorithm is fitted: its model-fitting function and its settings."""

    fit: ModelFitter
    params: TrainParams


RECIPES: Mapping[str, Recipe] = MappingProxyType({
    "dragnet": Recipe(train_dragnet_models, _DRAGNET),
    "dragnet-comments": Recipe(train_dragnet_comments_models, _DRAGNET),
    "thresher": Recipe(train_flagship_models, FLAGSHIP),
    "thresher-accurate": Recipe(train_flagship_models, TrainParams(network=True)),
})


def train_prepared(algorithm: str, pages: Sequence[Page], out, *, cv: int | None, p: TrainParams,
                   datasets: Sequence[str | Path] = (), log=print, textless: Sequence[TextlessPage] = ()) -> dict:
    """Fit on every page and save; then, with ``cv``, cross-validate (``textless`` pages scored
    as empty extractions) and save again with the report.

    The final model is written first so that a long cross-validation never
    leaves the user without a model.
    """
    trainer = RECIPES[algorithm].fit
    dragnet = algorithm.startswith("dragnet")
    log(f"fitting {algorithm} on {len(pages)} pages")
    trained = trainer(pages, p)
    _save(trained, out, algorithm, p, None, datasets)
    log(f"wrote {out}")
    if not cv:
        return {}
    log(f"{cv}-fold cross-validation grouped by domain")
    report = cross_validate(pages, cv, trainer, p, dragnet, log, thresholds=REPORTED_THRESHOLDS, textless=textless)
    log(format_report(algorithm, report))
    _save(trained, out, algorithm, p, report, datasets)
    return report


def _train(algorithm: str, dataset_dirs, out, cv: int | None, seed: int, log) -> dict:
    check_datasets(dataset_dirs)
    log(f"preparing pages from {', '.join(map(str, dataset_dirs))}")
    prepared = prepare_dataset(dataset_dirs, log)
    p = replace(RECIPES[algorithm].params, seed=seed)
    return train_prepared(algorithm, prepared.pages, out, cv=cv, p=p, datasets=dataset_dirs, log=log,
                          textless=prepared.textless)


def train_flagship(dataset_dirs, out, *, cv: int | None = 5, seed: int = SEED, log=None) -> dict:
    return _train("thresher", dataset_dirs, out, cv, seed, log or _stderr)


def train_flagship_accurate(dataset_dirs, out, *, cv: int | None = 5, seed: int = SEED, log=None) -> dict:
    """The flagship's trees plus the block-sequence network (``thresher-accurate``; needs PyTorch)."""
    return _train("thresher-accurate", dataset_dirs, out, cv, seed, log or _stderr)


def train_dragnet(dataset_dirs, out, *, cv: int | None = 5, seed: int = SEED, log=None) -> dict:
    return _train("dragnet", dataset_dirs, out, cv, seed, log or _stderr)


def train_dragnet_comments(dataset_dirs, out, *, cv: int | None = None, seed: int = SEED, log=None) -> dict:
    """Dragnet's content+comments model. Its CV (if asked) scores against the content-only gold."""
    return _train("dragnet-comments", dataset_dirs, out, cv, seed, log or _stderr)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
