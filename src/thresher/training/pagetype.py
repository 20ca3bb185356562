"""Training the page-type classifier (:mod:`thresher.inference.pagetype`) on WCXB labels.

Each page's signals come from :func:`thresher.features.pagetype.page_signals`, the function
inference calls. The words stage is a multinomial logistic regression (scikit-learn) over the
binary bag of prefixed words seen on at least :attr:`PageTypeParams.min_pages` training pages,
scaled to unit length. The tree stage is a multiclass LightGBM over the page features plus
the words stage's log-probabilities; on the training pages those are out-of-fold (inner
domain-grouped folds), so the trees learn how far to trust the words on unseen pages.
Cross-validation is domain-grouped (the domain of the page's URL), as for the extractors.
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..document.blocks import document_of
from ..document.decode import decode
from ..errors import InputError
from ..features.pagetype import PAGE_FEATURES, PageSignals, page_signals
from ..inference.pagetype import TASK, PageTypeModel, page_type_model, word_columns
from ..inference.treemodel import LinearModel, Model, from_lightgbm_dump, save
from .learned import SEED, domain_of, group_folds, iter_labelled


@dataclass(frozen=True)
class PageTypeParams:
    """The classifier's training settings (chosen by domain-grouped CV on wcxb-dev)."""

    min_pages: int = 3  # a word enters the vocabulary when this many training pages have it
    c: float = 4.0  # inverse regularisation of the words stage
    inner_folds: int = 5  # folds of the words stage's out-of-fold scores for the trees
    trees: int = 300  # boosting rounds (one tree per type each)
    learning_rate: float = 0.05
    leaves: int = 7
    min_child_samples: int = 10
    feature_fraction: float = 0.5
    bagging: float = 0.8
    seed: int = SEED


class LabelledPage(NamedTuple):
    id: str
    domain: str
    type: str
    signals: PageSignals


def labelled_pages(dataset_dirs: Sequence[str | Path], log: Callable[[str], None] = print) -> list[LabelledPage]:
    """Every page of the WCXB-layout ``dataset_dirs`` with its type and signals (pages that
    are not readable pages are skipped and counted)."""
    pages, skipped = [], 0
    for page_id, html, url, _, kind in iter_labelled(dataset_dirs):
        try:
            decoded = decode(html)
            doc = document_of(decoded, url or None)
        except InputError:
            skipped += 1
            continue
        pages.append(LabelledPage(page_id, domain_of(url) or page_id, str(kind), page_signals(doc)))
    log(f"{len(pages)} pages ({skipped} unreadable skipped), types: "
        + ", ".join(f"{t}={n}" for t, n in sorted(Counter(p.type for p in pages).items())))
    return pages


def _vocabulary(pages: Sequence[LabelledPage], min_pages: int) -> tuple[str, ...]:
    counts = Counter(w for p in pages for w in p.signals.words)
    return tuple(sorted(w for w, n in counts.items() if n >= min_pages))


def fit_words(pages: Sequence[LabelledPage], types: tuple[str, ...], p: PageTypeParams) -> tuple[LinearModel, ...]:
    """The words stage: one linear model per type (the rows of a multinomial regression)."""
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    vocabulary = _vocabulary(pages, p.min_pages)
    position = {w: i for i, w in enumerate(vocabulary)}
    # The rows PageTypeModel.word_scores reads: the known words set to one, scaled to unit length.
    hits = [[position[w] for w in page.signals.words if w in position] for page in pages]
    values = np.concatenate([np.full(len(h), 1.0 / np.sqrt(len(h))) for h in hits if h] or [np.zeros(0)])
    x = csr_matrix((values, np.concatenate([np.asarray(h, np.int64) for h in hits] or [np.zeros(0, np.int64)]),
                    np.cumsum([0] + [len(h) for h in hits])), shape=(len(pages), len(vocabulary)))
    y = np.array([types.index(page.type) for page in pages])
    clf = LogisticRegression(C=p.c, max_iter=3000, random_state=p.seed)
    clf.fit(x, y)
    coef = np.zeros((len(types), len(vocabulary)))
    base = np.full(len(types), -1e3)  # a type no training page has is never predicted
    coef[clf.classes_] = clf.coef_ if len(clf.classes_) > 2 else np.vstack([-clf.coef_[0], clf.coef_[0]]) / 2
    base[clf.classes_] = clf.intercept_ if len(clf.classes_) > 2 else np.array([-1, 1]) * clf.intercept_[0] / 2
    zeros, ones = np.zeros(len(vocabulary)), np.ones(len(vocabulary))
    return tuple(LinearModel(vocabulary, zeros, ones, coef[k], float(base[k])) for k in range(len(types)))


def _word_scores(words: tuple[LinearModel, ...], types: tuple[str, ...], pages: Sequence[LabelledPage]) -> np.ndarray:
    return page_type_model(types, words, ()).word_scores([page.signals.words for page in pages])


def out_of_fold_word_scores(pages: Sequence[LabelledPage], types: tuple[str, ...], p: PageTypeParams) -> np.ndarray:
    """The words stage's log-probabilities of each page from a model that never saw its domain."""
    scores = np.zeros((len(pages), len(types)))
    for fold in group_folds(pages, p.inner_folds, p.seed + 1):
        held = set(fold)
        rest = [page for i, page in enumerate(pages) if i not in held]
        scores[fold] = _word_scores(fit_words(rest, types, p), types, [pages[i] for i in fold])
    return scores


def fit_trees(x: np.ndarray, y: np.ndarray, types: tuple[str, ...], p: PageTypeParams):
    """The tree stage: a multiclass LightGBM, one ensemble of margins per type."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning OpenMP threads crawl on a busy machine
    import lightgbm as lgb

    params = {"objective": "multiclass", "num_class": len(types), "learning_rate": p.learning_rate,
              "num_leaves": p.leaves, "min_child_samples": p.min_child_samples,
              "feature_fraction": p.feature_fraction, "bagging_fraction": p.bagging, "bagging_freq": 1,
              "seed": p.seed, "deterministic": True, "force_row_wise": True, "num_threads": 1, "verbose": -1,
              "max_bin": 63}
    booster = lgb.train(params, lgb.Dataset(x, y.astype(np.float64)), num_boost_round=p.trees)
    dump = booster.dump_model()
    names = PAGE_FEATURES + word_columns(types)
    k = len(types)
    return tuple(from_lightgbm_dump({"tree_info": dump["tree_info"][i::k]}, names) for i in range(k))


def fit(pages: Sequence[LabelledPage], types: tuple[str, ...], p: PageTypeParams) -> PageTypeModel:
    """Both stages on ``pages``."""
    words = fit_words(pages, types, p)
    x = np.hstack([np.vstack([page.signals.row for page in pages]), out_of_fold_word_scores(pages, types, p)])
    y = np.array([types.index(page.type) for page in pages])
    trees = fit_trees(x, y, types, p)
    return page_type_model(types, words, trees)


def cross_validate(pages: Sequence[LabelledPage], types: tuple[str, ...], k: int, p: PageTypeParams,
                   log: Callable[[str], None] = print) -> dict[str, Any]:
    """Domain-grouped ``k``-fold CV: accuracy, per-type accuracy (the share of each labelled
    type predicted right) and the confusion matrix (rows labelled, columns predicted)."""
    predicted = np.zeros(len(pages), np.int64)
    for n, fold in enumerate(group_folds(pages, k, p.seed)):
        held = set(fold)
        model = fit([page for i, page in enumerate(pages) if i not in held], types, p)
        predicted[fold] = model.probabilities_of([pages[i].signals for i in fold]).argmax(axis=1)
        log(f"  fold {n + 1}/{k}: {len(fold)} pages")
    labelled = np.array([types.index(page.type) for page in pages])
    confusion = np.zeros((len(types), len(types)), np.int64)
    np.add.at(confusion, (labelled, predicted), 1)
    by_type = {t: float(confusion[i, i] / confusion[i].sum()) if confusion[i].sum() else 0.0
               for i, t in enumerate(types)}
    return {"folds": k, "pages": len(pages), "domains": len({page.domain for page in pages}),
            "accuracy": float((predicted == labelled).mean()), "accuracy_by_type": by_type,
            "pages_by_type": {t: int(confusion[i].sum()) for i, t in enumerate(types)},
            "types": list(types), "confusion": confusion.tolist()}


def format_report(report: dict[str, Any]) -> str:
    by_type = " ".join(f"{t}={v:.3f}" for t, v in report["accuracy_by_type"].items())
    return (f"page-type: CV accuracy={report['accuracy']:.3f} over {report['pages']} pages "
            f"({report['domains']} domains, {report['folds']} folds grouped by domain)\n  by type: {by_type}")


def save_model(model: PageTypeModel, out: str | Path, p: PageTypeParams, report: dict | None,
               datasets: Sequence[str | Path]) -> None:
    models: dict[str, Model] = {}
    for t, words, trees in zip(model.types, model.words, model.trees):
        models[f"words.{t}"] = words
        models[f"trees.{t}"] = trees
    save(models, out, {"task": TASK, "types": list(model.types), "params": asdict(p),
                       "datasets": [Path(d).name for d in datasets], "cv": report})


def train_page_type(dataset_dirs: Sequence[str | Path], out: str | Path, *, cv: int | None = 5, seed: int = SEED,
                    log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Fit the page-type classifier on every page and save it; with ``cv``, cross-validate and
    save again with the report in the file's meta."""
    log = log or _stderr
    p = replace(PageTypeParams(), seed=seed)
    pages = labelled_pages(dataset_dirs, log)
    types = tuple(sorted({page.type for page in pages}))
    if len(types) < 2:
        raise InputError("page-type training needs pages of at least two types")
    model = fit(pages, types, p)
    save_model(model, out, p, None, dataset_dirs)
    log(f"wrote {out}")
    if not cv:
        return {}
    log(f"{cv}-fold cross-validation grouped by domain")
    report = cross_validate(pages, types, cv, p, log)
    log(format_report(report))
    save_model(model, out, p, report, dataset_dirs)
    return report


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
