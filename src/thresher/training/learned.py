"""Training the learned extractors (``dragnet`` and the ``thresher`` flagship).

Needs the ``train`` extra (LightGBM, scikit-learn; PyTorch for ``thresher-accurate``'s
network); the models it writes are plain ``.npz`` files that inference reads with numpy alone.

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
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence
from urllib.parse import urlparse

import numpy as np

from .. import features as F
from .. import learned as L
from ..algorithms.flagship import Params as FlagshipParams, decide_page
from ..blocks import build_document
from ..decode import decode
from ..errors import ThresherError
from ..evaluation.datasets import detect_kind, load
from ..language import page_language
from ..treemodel import TreeEnsemble, averaged, from_lightgbm_dump, probability, save
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
    inner_folds: folds used to produce out-of-fold stage-1 scores for stage 2 (4: CV F1 0.866
        on wcxb-dev against 0.861 with 2 and 0.864 with 8; stage 2 learns from scores
        closer to those of the final stage 1, which sees all the pages).
    stage2_models: stage-2 tree models averaged (in logit space, stored as one ensemble). Model
        k (from 0) learns from out-of-fold stage-1 scores of its own inner folds, with seed
        ``seed + k`` for its trees and ``seed + k + 1`` for its folds; model 0 is the single
        model's. Linear models keep one.
    decoding: the flagship's rule, saved in the model file: "expected_f1" (a cut per page,
        see :func:`thresher.algorithms.flagship.expected_f1_cut`) or "threshold".
    threshold: probability at which a block is content under the "threshold" decoding.
    threads: LightGBM threads (results do not depend on it).
    network: also train the block-sequence network (:mod:`thresher.seqmodel`, with
        ``sequence``'s settings; needs PyTorch), whose scores the final ones average with
        weight ``network_weight``. It reads the base features and its own token columns:
        every id/class token seen on ``min_token_domains`` domains, counted without labels
        (1,469 on wcxb-dev; the network learns which matter).
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


def iter_labelled(dataset_dirs: Sequence[str | Path]) -> Iterable[tuple[str, bytes, str, str, str]]:
    """(id, html bytes, url, gold main text, page type) for every page of WCXB-layout datasets.

    Reads through :func:`thresher.evaluation.datasets.load`, the loader the referee-identical
    evaluation uses, so training and evaluation see the same pages and page types.
    """
    for directory in map(Path, dataset_dirs):
        if not (directory / "ground-truth").is_dir() or detect_kind(directory) != "wcxb":
            raise ThresherError(f"{directory}: training needs a WCXB-layout dataset (ground-truth/ + html/)")
        for page in load(directory):
            yield (f"{directory.name}/{page.id}", page.html, page.url or "", page.gold["text"],
                   page.gold["type"])


def block_weights(doc, labels: np.ndarray) -> np.ndarray:
    """Weight blocks by their share of the page's words: the metric is a per-page mean of word F1."""
    words = np.fromiter((max(1, b.word_count) for b in doc.blocks), np.float64, count=len(doc.blocks))
    content_words = max(50.0, float(words[labels].sum()))
    return np.clip(words / content_words, 0.002, 1.0) * 100.0


def prepare_pages(dataset_dirs: Sequence[str | Path], log=print) -> list[Page]:
    """The pages of ``dataset_dirs`` that have blocks, ready to train on."""
    return prepare_dataset(dataset_dirs, log).pages


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
        for toks in page.features.tokens.sets:
            for t in toks:
                domains[t].add(page.domain)
    return domains


def frequent_tokens(pages: Sequence[Page], min_domains: int) -> tuple[str, ...]:
    """Every token seen on at least ``min_domains`` domains (the labels are not read)."""
    return tuple(sorted(t for t, doms in token_domains(pages).items() if len(doms) >= min_domains))


def select_vocabulary(pages: Sequence[Page], size: int, min_domains: int) -> tuple[str, ...]:
    """Tokens with the largest |log odds| of content vs boilerplate, seen on enough domains."""
    content, boiler = Counter(), Counter()
    for page in pages:
        for toks, label in zip(page.features.tokens.sets, page.labels):
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

    from ..treemodel import LinearModel

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


def group_folds(pages: Sequence[Page], k: int, seed: int = SEED) -> list[list[int]]:
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
    stage1: object
    stage2: object | None
    vocabulary: tuple[str, ...]
    threshold: float
    network: L.Network | None = None


def train_flagship_models(pages: Sequence[Page], p: TrainParams, family: str = "trees") -> Trained:
    fit = fit_trees if family == "trees" else fit_linear
    vocab = select_vocabulary(pages, p.vocabulary_size, p.min_token_domains)
    names, x, y, w = _stack(pages, lambda page: L.stage1_features(page.features, vocab))
    stage1 = fit(x, y, w, names, p)
    count = p.stage2_models if family == "trees" else 1
    models = [fit_stage2(pages, vocab, replace(p, seed=p.seed + k), fit) for k in range(count)]
    stage2 = averaged(models) if count > 1 else models[0]
    network = fit_network(pages, p) if p.network else None
    return pruned(Trained(stage1, stage2, vocab, p.threshold, network))


def fit_stage2(pages: Sequence[Page], vocab: tuple[str, ...], p: TrainParams, fit):
    """Stage 2, learnt from out-of-fold stage-1 scores (inner folds drawn with ``p.seed + 1``)."""
    oof = _out_of_fold_scores(pages, vocab, p, fit)
    cols = [L.stage2_features(L.stage1_features(pg.features, vocab), pg.features.doc, s) for pg, s in zip(pages, oof)]
    return fit(np.vstack([c.values for c in cols]), np.concatenate([pg.labels for pg in pages]),
               np.concatenate([pg.weights for pg in pages]), cols[0].names, p)


def fit_network(pages: Sequence[Page], p: TrainParams) -> L.Network:
    """The block-sequence network over the base features and its own id/class-token columns."""
    vocab = frequent_tokens(pages, p.min_token_domains)
    columns = [L.network_features(pg.features, vocab) for pg in pages]
    examples = [SequenceExample(c.values, pg.labels, pg.weights) for pg, c in zip(pages, columns)]
    model = fit_sequence(examples, columns[0].names, F.token_names(vocab), p.sequence)
    return L.Network(model, vocab, p.network_weight)


def pruned(trained: Trained) -> Trained:
    """The same models without the vocabulary tokens no tree reads.

    Scores do not change (an unread column cannot move a row), and inference
    builds narrower feature rows. Linear models read every column and are
    returned as they are; the network keeps its own token columns.
    """
    models = [m for m in (trained.stage1, trained.stage2) if m is not None]
    if not all(isinstance(m, TreeEnsemble) for m in models):
        return trained
    read = frozenset().union(*(m.read_features() for m in models))
    unread = {F.token_name(t) for t in trained.vocabulary} - read

    def relayout(model):
        if model is None:
            return None
        return model.with_feature_names(tuple(n for n in model.feature_names if n not in unread))

    return Trained(relayout(trained.stage1), relayout(trained.stage2),
                   tuple(t for t in trained.vocabulary if F.token_name(t) not in unread), trained.threshold,
                   trained.network)


def _out_of_fold_scores(pages: Sequence[Page], vocab, p: TrainParams, fit) -> list[np.ndarray]:
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
    names, x, y, w = _stack(pages, lambda page: L.dragnet_features(page.features, vocab))
    return pruned(Trained(fit(x, y, w, names, p), None, vocab, p.threshold))


_COMMENT_TOKEN = re.compile(r"^(?:comments?|comment(?:list|body|text|content)|repl(?:y|ies)|respon(?:d|ses?)|discussions?)$")


def with_comments(page: Page) -> Page:
    """Labels for Dragnet's content+comments model: the main content plus user comments.

    A block counts as a comment when an element among its own and its ancestors'
    id/class tokens (3 levels, as the token features see them) names comments or
    replies, and the block is prose rather than links (link density < 0.5, 3+ words).
    """
    doc = page.features.doc
    labels = page.labels.copy()
    for i, (block, toks) in enumerate(zip(doc.blocks, page.features.tokens.sets)):
        if labels[i] or block.link_density >= 0.5 or block.word_count < 3:
            continue
        labels[i] = any(_COMMENT_TOKEN.match(t) for t in toks)
    return Page(page.id, page.url, page.domain, page.type, page.gold, page.features, labels,
                block_weights(doc, labels))


def train_dragnet_comments_models(pages: Sequence[Page], p: TrainParams, family: str = "trees") -> Trained:
    return train_dragnet_models([with_comments(page) for page in pages], p, family)


def predict(trained: Trained, page: L.PageFeatures, dragnet: bool = False) -> np.ndarray:
    if dragnet:
        return probability(trained.stage1, L.dragnet_features(page, trained.vocabulary).values)
    return L.two_stage_scores(trained.stage1, trained.stage2, page, trained.vocabulary, FlagshipParams.confident,
                              trained.network, FlagshipParams.certain).final


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
    for page in textless:
        per_type[page.type].append(word_f1("", page.gold))
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
    models = {"stage1": trained.stage1}
    if trained.stage2 is not None:
        models["stage2"] = trained.stage2
    meta = {"algorithm": algorithm, "vocabulary": list(trained.vocabulary), "threshold": trained.threshold,
            "decoding": p.decoding}
    if trained.network is not None:
        models["network"] = trained.network.model
        meta.update(network_vocabulary=list(trained.network.vocabulary), network_weight=trained.network.weight)
    meta |= {"seed": p.seed, "params": asdict(p), "datasets": [Path(d).name for d in datasets], "cv": report}
    save(models, out, meta)


# Per-algorithm settings where they differ from TrainParams' defaults (thresholds chosen
# by domain-grouped 5-fold CV on wcxb-dev; see the model files' "cv" reports).
# Vocabulary sizes by CV F1 (1,469 tokens occur on 15+ wcxb-dev domains): the flagship 0.858 with
# 200 tokens, 0.861 with 400, 0.859 with 1,000; Dragnet 0.797 with 200, 0.800 with 400, 0.802 with
# 600, 0.805 with 1,000.
# The flagship keeps 150 trees per stage at learning rate 0.1 (CV F1 0.861, documentation 0.931):
# 100 trees at 0.15 scored 0.860 with documentation at 0.921, for about 3% more pages/s.
# With 4 inner folds none of these did better: at a fixed cut of 0.3 (0.8659 as shipped), 250 trees at
# 0.07 (0.8650) and 63 leaves with min_child_samples 20 (0.8614); with the expected-F1 cut (0.8694 as
# shipped), min_child_samples 80 (0.8690), feature_fraction 0.3 with 600 tokens (0.8674) and alignment
# thresholds 0.4 / 0.6 (0.8678 / 0.8669), max_bin 255 (0.8688), min_token_domains 30 (0.8689), and
# 100 trees of depth 8 with 80 leaves at 0.12 (0.8682); nor did training without the 17 pages whose
# gold text is empty (0.8687). Given each page's true type (a one-hot of the gold label, which no page
# carries in use), the model reaches 0.8729: a page-type classifier could add at most about 0.0035.
# More features did not help either: 200 words of the block text picked like the id/class tokens
# (0.8679), or stage-2 means of the scores of blocks on the same tag/class path, 2 and 5 levels
# up (0.8682).
# A second model family does help. The lead: a network over the page's block sequence (an MLP on
# the 140 base features plus an id/class-token embedding, a width-5 convolution, a transformer
# encoder, a width-3 convolution). It was trained with torch on the same folds with one untuned
# recipe (12 epochs, AdamW, a one-cycle learning rate). Held out alone it scores 0.8639 (width 96,
# 2 layers), 0.8587 (32, 1) and 0.8507 (64, convolutions only). Averaged 50/50 with this model's
# final scores: 0.8766 (documentation 0.940), 0.8728 and 0.8717. Two tree models of different
# feature sets averaged give 0.8699 to 0.8706, so the gain comes from the network, not from
# averaging. The 96/2 network ships as thresher-accurate, as trained here (attention within chunks
# of 512 blocks, the tanh GELU, dropout after attention and the feed-forward layer only). Reading
# stage 1's 400 selected tokens, its CV F1 was 0.8715 (documentation 0.928, readability 0.943);
# reading its own list, every token on 15+ domains counted without labels (1,469 on all of
# wcxb-dev), it is 0.8743 (documentation 0.9385, readability 0.948). It runs at about 70% of the
# default's pages/s, so the default keeps the trees alone. Replacing stage 2 by a width-32 network
# that also reads the stage-1 scores (nested out-of-fold, as stage 2 does) scored 0.8619: worse
# than stage 2's trees, and 0.8725 averaged with them.
# A much smaller network does nearly as well: width 32, one layer, attention within chunks of 64
# blocks and a 16-wide token embedding scores 0.8524 alone and 0.8738 averaged with weight 0.3
# (0.8734 at 0.4; documentation 0.936), for about 0.9 ms a page against about 3.5 ms for the 96/2
# network (end to end, interleaved over the same pages). It is the lead for a network in the default,
# which would first need about 1 ms saved elsewhere to keep the default's pages/s. Ways to pay for it
# that cost too much quality: dropping stage 2 (stage 1 averaged with a width-32 network: 0.8690) or
# 100 trees per stage at 0.15 (0.8642 without the network, 0.8703 with it). Naive-Bayes evidence from the 1,469 frequent tokens as stage-1 features (the
# mean, largest and smallest log-odds of a block's tokens, out of fold) did not help (0.8692).
# Later trials on the same folds, none shipped: a third tree stage reading stage 2's out-of-fold
# scores through the same context columns (0.8683); stage-2 columns for the page's best DOM
# container by expected F1 (membership, its F1 and text share, the best subtree F1 on the block's
# path: 0.8702, within seed noise); stage 2 cut to 60 trees at 0.2 to pay for a network (0.8663).
# The small network's seed alone moves the blend by about 0.001 (0.8738 with seed 0, 0.8725 with
# seed 1); both seeds averaged give 0.8746 at weight 0.4, for twice the cost; 24 epochs instead of
# 12 give 0.8740. End to end on 400 wcxb-dev pages, interleaved on a quiet machine, the small network
# adds 0.80 ms to the default's 9.85 ms (+8%); running its BLAS on one thread does not help there
# (it does on a loaded machine, which batch workers already get).
# Template and copy features (trees alone, expected-F1 cut, from 0.8664 as then shipped): blocks
# with the same text elsewhere on the page, any parent, 0.8729; with the full root path of tags and
# classes as well (template_paths) 0.8750, but Readability's test pages fell from 0.955 to 0.944,
# mostly its lorem-ipsum fixtures, whose gold repeats a paragraph in two sections. Counting only
# copies under another parent: 0.8734 with the paths (Readability 0.9495); the paths without
# copies: 0.8704. Not kept: columns on the lowest common ancestor of a block's path group (0.8724),
# link-text columns per path (0.8703), stage-2 means of the scores on the same path (0.8738), a
# stage 2 of 75 trees at 0.2 (0.8743; Readability 0.924), depth-5 trees (0.8739) and the network's
# scores as a stage-2 column (0.8751, below averaging). The small network averaged in at 0.3 adds
# about 0.004 whatever the trees read (0.8781 from 0.8734 with paths and copies, in the harness
# that reuses an earlier network's out-of-fold scores; 0.8792 by `thresher train --cv 5`) and lifts
# Readability's test pages to 0.952: the default since. thresher-accurate's recipe (the 96/2 network
# at 0.5) retrained on the same columns: 0.8778 held out (forum 0.856, collection 0.696, product
# 0.668) and Readability 0.943, below the new default on both, so its older model was kept.
# On the shipped columns, out of fold on the same folds (the harness reproduces `thresher train
# --cv 5`'s 0.8792 and its per-type figures exactly): the trees alone 0.8773; the small network
# alone 0.8584 with seed 0, 0.8589 with seed 1; averaged in at 0.3, 0.8792 (seed 0, shipped) and
# 0.8798 (seed 1); both seeds' networks averaged, 0.8798 at 0.3 and 0.8796 at 0.4; seed 0's network
# averaged in logit space instead of probability, 0.8796. None ships: every variant lies within the
# seeds' spread, and a second network costs its time on every page.
# Where a block meets the main heading in the tree (the innermost element holding both: levels up
# from the block, levels up from the heading, that element's text share; aimed at the product and
# collection pages that keep a shop's promotions beside the item), same folds: trees alone 0.8775,
# the small network alone 0.8611 (from 0.8584), averaged at 0.3 0.8807 (collection 0.694, listing
# 0.761, product 0.685, documentation 0.935 from 0.939, mostly one man page whose two long pre
# blocks fell under the cut). Not shipped: retrained on all of wcxb-dev it scored 0.945 on
# Readability's test pages (from 0.952), keeping related stories and reader comments that share a
# container with the headline (yahoo-2, yahoo-3, aclu, aktualne). That drop is within the seed's
# own reach: the shipped recipe and columns trained with --seed 1 instead of 0 score 0.938 there
# (yahoo-3 0.94 -> 0.51, aclu 1.00 -> 0.83, and four lorem-ipsum fixtures 1.00 -> 0.84), so one
# training run cannot tell a column's effect on those 130 pages from its seed's; judging a change
# there needs several seeds per variant, or a default averaged over seeds. Which seed matters is
# the trees': seed 0's trees with seed 1's network score 0.952 there, seed 1's trees with seed 0's
# network 0.938. Held out, same folds, the trees' seed moves the blend by up to 0.0023: as shipped
# 0.8792 (seed 0) and 0.8798 (seed 1); with the heading scope 0.8807 and 0.8784, so the scope's gain
# is noise. The trees of both seeds averaged (then blended with the network at 0.3) give 0.8802 as
# shipped (every page type at or above rs-trafilatura's; documentation 0.939) and 0.8811 with the
# scope, for twice the trees' time on every page. Trees without subsampling (bagging and
# feature_fraction 1.0: no seed at all) lose: 0.8745 alone, 0.8784 blended (with the scope). Two
# seeds of 75 trees at 0.2 (the trees' time of one 150-tree model) blend to 0.8765 and 0.8763 alone
# and 0.8785 averaged, below one 150-tree model. On Readability (trees' final scores averaged, the
# shipped network): both 150-tree seeds 0.949; 75 trees at 0.2, seed 0 0.945, seed 1 0.950, both 0.950.
# Per-node feature sampling (feature_fraction_bynode 0.5 instead of 0.5 per tree), seed 0: trees
# 0.8754, blended 0.8790. Schema.org microdata as tokens (itemprop names and the itemtype's last
# segment, "md_"-prefixed, of the two nearest elements on a block's path that carry some; on 479
# of the 1,497 pages) for the trees and the network: blended 0.8804 with seed 0 and 0.8781 with
# seed 1 (documentation 0.936 and 0.932, below its 0.938 floor), against 0.8792 and 0.8798
# without: no gain. L2 regularisation of the leaves (lambda_l2 5), seed 0: trees 0.8759, blended
# 0.8781. Temperature on the final scores before the expected-F1 cut: 1 is best on both seeds
# (0.85: 0.8792 and 0.8781; 1.2: 0.8789 and 0.8795), the scores are calibrated as they are.
# Soft targets (each block's alignment coverage, the share of its 3-grams found in the gold text,
# with LightGBM's cross-entropy objective, for both stages), seed 0: trees 0.8763, blended 0.8784,
# against 0.8773 and 0.8792: 2.3% of the blocks lie strictly between 0 and 1, and no gain. The
# words of each block's section heading (the nearest heading block at or before it; the 150 heading
# words found on most domains, counted without labels, as 0/1 columns for both stages), seed 0:
# trees 0.8773, blended 0.8799 against 0.8793 with stage 2 on the uncertain blocks only (collection
# 0.699 from 0.687, forum 0.840 from 0.846, documentation 0.937, below its floor): within the seeds'
# spread. Randomised split thresholds (LightGBM's extra_trees), seed 0: trees 0.8714, blended 0.8752.
# Decoding: dropping each kept block of one word whose neighbours in reading order are both dropped
# reads 0.8813 and 0.8818 (seeds 0 and 1, from 0.8793 and 0.8799; product 0.706 from 0.680), but 3.0
# of its 3.06 summed page gains are three aliexpress.com script shells whose gold text is empty and
# whose only kept block was one word (F1 0 -> 1); over the other 319 pages it changes, +0.06 in all.
# Not a rule to ship on one domain's pages. Limits of 3 to 8 words, or neighbours 2 blocks away,
# read 0.8802 to 0.8812 on seed 0, carried by the same shells: at 5 and 8 words the other pages
# they change lose 0.87 and 1.60 in summed F1.
# Later trials, same folds, each variant's trees retrained and blended with the stored network's
# out-of-fold scores (seed 0: trees alone 0.8773, blended 0.8793 as shipped): DART boosting (drop
# rate 0.1) 0.8707 and 0.8749; 63 leaves (the depth-6 trees' full width, free at inference) 0.8750
# and 0.8778; 31 leaves 0.8749 and 0.8791; min_child_samples 60 0.8736 and 0.8775; learning rate
# 0.08 0.8762 and 0.8785, 0.12 0.8766 and 0.8800 (documentation 0.937, below its floor; with seed
# 1, 0.8730 and 0.8764 against 0.8787); feature and bagging fractions 0.7 0.8749 and 0.8774; block
# weights as the square root of the word share 0.8775 and 0.8795; a page-type guess as 7 columns
# for both stages (out-of-fold probabilities of a 7-class tree model over each page's mean,
# largest and word-weighted mean base features, right on 79% of the pages) 0.8764 and 0.8795. The
# network also reading Readability's candidate columns (retrained, seed 0): 0.8559 alone against
# 0.8584, blended 0.8787. On the stored scores alone: a logistic regression over the trees', stage
# 1's and the network's logits, fitted out of fold, 0.8744 (it shrinks the scores, and the
# expected-F1 cut wants them as calibrated as they are); the cut with the second-order term of the
# expected F1 (the variance of the kept and of the left content words, blocks taken as
# independent) 0.8793, and 0.8796 at half that term (seed 1's trees and network: 0.8790 and
# 0.8789, from 0.8787). None ships: every gain lies within the seeds' spread. Keeping nothing on a
# page whose best block scores below a bar would empty 4 of the 17 pages whose gold text is empty
# (+0.0027 with seed 0), but the bar has almost no room: out of fold, the best block of every page
# with content scores at least 0.253 (seed 0) and 0.264 (seed 1), and of those empty pages up to
# 0.094 and 0.224, so a bar for both seeds must lie between 0.224 and 0.253, and three of the four
# pages are one domain's script shells.
# Also not shipped, same folds: the network's weights averaged over training steps (an EMA, decay
# 0.995): 0.8593 alone, 0.8794 blended; a logistic regression over stage 1's columns (log-scaled)
# as a third model, 0.8433 alone, 0.8791 to 0.8784 blended in at 0.05 to 0.2; each page's
# boilerplate weight capped at 3 times its content weight, trees 0.8769, blended 0.8792.
# Where the trees of two seeds gain (0.8802, above): taking the stored out-of-fold scores apart,
# averaging stage 1 of both seeds adds nothing (0.8793), averaging stage 2 all of it (0.8801).
# Hence stage2_models=2: a second stage 2 with its own inner folds and seed, averaged in logit
# space and stored as one 300-tree ensemble, evaluated on the uncertain blocks only (about 1.4% of
# a page's time, in one interleaved run). Paired with the single stage 2 on the same folds: trees alone 0.8774 -> 0.8783
# and blended 0.8793 -> 0.8802 (seed 0), 0.8743 -> 0.8762 and 0.8787 -> 0.8791 (seed 1). A twin on
# the same out-of-fold rows with only the trees' seed changed gives less (0.8797 and 0.8785).
# Counted over all 1,497 pages (the 9 without blocks scored as empty extractions, as the referee
# does), the shipped recipe's out-of-fold scores give 0.8776 with seed 0 and 0.8734 with seed 1
# (which also draws other folds; documentation 0.932 there); with seed 0 the best of 40 cuts per page
# in hindsight 0.9159, the alignment labels themselves 0.9799. On those stored scores, none of these
# helped: keeping blocks outside the main run of the final (blended) scores only above the cut plus
# 0.05 to 1.0 (0.8769 to 0.8429, runs at 0.3 or 0.5), the network's weight 0.25 or 0.35 (0.8778,
# 0.8771), its weight shrunk on pages where it disagrees with the trees (0.8778), logit averaging
# (0.8772). Stage 1 alone (its trees, the same cut and pages), seeds 0 and 1: 0.8671 and 0.8674.
# There, the 17 pages whose gold text is empty, which weigh 6.6% of all training weight (each
# block up to the cap of 100, for want of content words), weighted as one page of 100 in all:
# 0.8697 and 0.8670; with every page's total also capped at 1,000, 0.8696 (seed 0); ten base
# columns as z-scores against the page's word-weighted mean and spread: 0.8677 and 0.8677. All
# within the seeds' spread, none taken further. The small network with attention within chunks of
# 512 blocks instead of 64 (seeing an article and the menu after it at once), retrained on the
# same folds and blended at 0.3 with the stored trees' scores: 0.8783 against 0.8776 (network seed
# 0) and 0.8779 against 0.8777 (seed 1): within the seeds' spread, for more time on long pages.
# Four stage-2 models instead of two (stage2_models=4: trees seeds 0 to 3, inner folds drawn with
# seeds 1 to 4), seed 0, trained and cross-validated by train_prepared's steps: 0.8767 against
# 0.8776 (706 pages change, 354 up and 352 down; product 0.683, documentation 0.939): two
# stage-2 models already take what averaging gives. Its final fit took 11 min, against 8.
# Regularising the small network's training (seed 0, same folds, blended at 0.3 with the stored
# trees' scores; 0.8776 as shipped, the network alone 0.8555 retrained the same way): each id/class
# token left out of a block's bag with probability 0.25 or 0.4, 0.8780 and 0.8781 (alone 0.8576 and
# 0.8574); each standardised input set to its mean with probability 0.1 or 0.2, 0.8781 and 0.8782
# (alone 0.8603 and 0.8626); both at 0.25 and 0.1, 0.8779. The network alone gains up to 0.007, the
# blend 0.0006, and those four networks averaged blend to 0.8779: the network is not what limits it.
# Decoding rules on the shipped recipe's out-of-fold scores (seed 0, 0.8776): dropping a kept block
# whose text repeats an earlier kept block's, from 1, 3 or 8 words, 0.8771, 0.8774 and 0.8779;
# keeping runs of up to 1, 2 or 4 dropped blocks between kept ones when each scores at least 0.3,
# 0.6 or 0.8 of the cut, 0.8760 to 0.8776. Neither kept.
# Learning curve, the same folds and recipe, each fold's training domains thinned to a fixed half
# or three quarters (by a hash of the domain, so the half lies inside the three quarters): 0.8698
# with 40% of the pages to learn from, 0.8740 with 60%, 0.8776 with 80% (the full folds). About
# +0.008 per doubling of the labelled pages, so 5-fold CV at 0.88 would want roughly a quarter more
# pages than wcxb-dev's 1,497, if the curve holds (one seed; each point moves by ±0.002-0.004).
# Product pages gain the most from more pages (0.662, 0.670, 0.685), forum pages next (0.786,
# 0.806, 0.812); collection pages stay level (0.690, 0.691, 0.691).
_DRAGNET = TrainParams(threshold=0.25, vocabulary_size=1000, decoding="threshold")
# The default: the trees averaged with a small network (width 32, one layer, attention within
# chunks of 64 blocks, a 16-wide token embedding) at weight 0.3.
SMALL_NETWORK = SequenceParams(width=32, layers=1, chunk=64, embedding=16)
FLAGSHIP = TrainParams(network=True, network_weight=0.3, sequence=SMALL_NETWORK, stage2_models=2)
ALGORITHM_PARAMS = {"dragnet": _DRAGNET, "dragnet-comments": _DRAGNET, "thresher": FLAGSHIP,
                    "thresher-accurate": TrainParams(network=True)}

REPORTED_THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.5)  # the CV report also scores these

TRAINERS = {"dragnet": "train_dragnet_models", "dragnet-comments": "train_dragnet_comments_models",
            "thresher": "train_flagship_models", "thresher-accurate": "train_flagship_models"}


def train_prepared(algorithm: str, pages: Sequence[Page], out, *, cv: int | None, p: TrainParams,
                   datasets: Sequence[str | Path] = (), log=print, textless: Sequence[TextlessPage] = ()) -> dict:
    """Fit on every page and save; then, with ``cv``, cross-validate (``textless`` pages scored
    as empty extractions) and save again with the report.

    The final model is written first so that a long cross-validation never
    leaves the user without a model.
    """
    trainer = globals()[TRAINERS[algorithm]]
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
    log(f"preparing pages from {', '.join(map(str, dataset_dirs))}")
    prepared = prepare_dataset(dataset_dirs, log)
    p = replace(ALGORITHM_PARAMS.get(algorithm, TrainParams()), seed=seed)
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
