"""Train and cross-validate the ``density+classifier`` n-gram model.

Training follows the write-up: every page goes through the density filter
(stage 1, block units, published defaults); the chunks it keeps are labelled
content or boilerplate by aligning them to the page's gold main text
(:func:`thresher.training.align.align_document`), and one character n-gram
language model is fitted per label (:mod:`thresher.training.ngram`).

Datasets use the WCXB layout: ``ground-truth/NNNN.json`` (``url``,
``ground_truth.main_content``) beside ``html/NNNN.html.gz``.

Cross-validation groups pages by domain (``urlparse(url).netloc`` without a
leading ``www.``) so no site is both trained and tested on; groups go, largest
first (ties by name), to the fold with the fewest pages so far (ties to the
lower fold). Scores are the referee's word-level precision, recall and F1
(bag of lower-cased ``\\w+`` tokens, mean over pages), from
:func:`thresher.evaluation.metrics.word_prf`.
"""
from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..algorithms import density
from ..document.blocks import build_document
from ..document.decode import decode
from ..errors import InputError
from ..evaluation.datasets import load
from ..evaluation.metrics import WordScore, word_prf
from ..inference import ngram as ngram_model
from . import ngram
from .align import align_document
from .learned import domain_of, group_folds


class GoldPage(NamedTuple):
    page_id: str
    html: bytes
    url: str | None
    gold: str


class PageChunks(NamedTuple):
    """What training and evaluation need of one page."""

    page_id: str
    domain: str
    gold: str
    block_texts: tuple[str, ...]
    stage1: tuple[bool, ...]  # density filter's decision per block
    labels: tuple[bool, ...]  # aligned gold label per block


# ------------------------------------------------------------------ data

def read_dataset(dataset_dir: str | Path) -> Iterator[GoldPage]:
    """Pages of a WCXB-layout dataset, in file-name order (through the evaluation loader)."""
    for page in load(dataset_dir):
        yield GoldPage(page.id, page.html, page.url, page.gold.get("text") or "")


def page_chunks(page: GoldPage, params: density.Params = density.Params()) -> PageChunks:
    """Stage 1 and gold labels for one page (no blocks when it does not parse: an empty extraction)."""
    try:
        doc = build_document(decode(page.html).text, page.url)
    except InputError:
        doc = None
    if doc is None or not doc.blocks:
        return PageChunks(page.page_id, domain_of(page.url), page.gold, (), (), ())
    stage1 = density.decide(doc, params).labels
    labels = align_document(doc, page.gold).labels
    return PageChunks(page.page_id, domain_of(page.url), page.gold,
                      tuple(b.text for b in doc.blocks), stage1, labels)


def _select(pages: list[GoldPage], wanted, seed: int) -> list[GoldPage]:
    """All pages (None), a seeded sample of ``wanted`` pages (int), or the listed page ids."""
    if wanted is None:
        return pages
    if isinstance(wanted, int):
        return sorted(random.Random(seed).sample(pages, min(wanted, len(pages))), key=lambda p: p.page_id)
    ids = set(wanted)
    return [p for p in pages if p.page_id in ids]


def load_chunks(dataset_dirs: Iterable[str | Path], pages=None, seed: int = 0) -> list[PageChunks]:
    out: list[PageChunks] = []
    for directory in dataset_dirs:
        out.extend(page_chunks(page) for page in _select(list(read_dataset(directory)), pages, seed))
    return out


def training_texts(pages: Iterable[PageChunks]) -> tuple[list[str], list[str]]:
    """(content, boilerplate) texts: the chunks stage 1 keeps, split by their gold label."""
    content: list[str] = []
    boilerplate: list[str] = []
    for page in pages:
        for text, kept, label in zip(page.block_texts, page.stage1, page.labels):
            if kept:
                (content if label else boilerplate).append(text)
    return content, boilerplate


def kept_text(texts: Sequence[str], keep: Sequence[bool]) -> str:
    """The text renderer's output for these decisions."""
    return "\n\n".join(t for t, k in zip(texts, keep) if k)


# ------------------------------------------------------------------ training

def fit_pages(pages: Sequence[PageChunks], fit_params: ngram.FitParams, training: dict | None = None) -> dict:
    content, boilerplate = training_texts(pages)
    return ngram.fit(content, boilerplate, fit_params, training)


def train_density_classifier(dataset_dirs: Sequence[str | Path], out_path: str | Path, *, n: int = 6,
                             seed: int = 0, pages=None, cv: int | None = None,
                             fit_params: ngram.FitParams | None = None) -> dict:
    """Fit the two-class n-gram model on ``dataset_dirs`` and save it to ``out_path``.

    pages: None for every page, an int for a sample of that many (drawn with
    ``seed``), or an iterable of page ids. cv: when 2 or more, first run
    :func:`cross_validate_density_classifier` with that many folds on the same
    pages and add its result to the report. Returns a report (the training
    part is also stored in the model under ``training``).
    """
    start = time.perf_counter()
    fit_params = fit_params or ngram.FitParams(n=n)
    chunk_pages = load_chunks(dataset_dirs, pages, seed)
    content, boilerplate = training_texts(chunk_pages)
    names = [str(Path(d).name) for d in dataset_dirs]
    report = {
        "datasets": names, "pages": len(chunk_pages),
        "pages_without_blocks": sum(1 for p in chunk_pages if not p.block_texts),
        "content_chunks": len(content), "boilerplate_chunks": len(boilerplate),
        "content_chars": sum(map(len, content)), "boilerplate_chars": sum(map(len, boilerplate)),
        "n": fit_params.n, "seed": seed, "stage1": "density, block units, published defaults",
    }
    cv_result = None
    if cv:
        cv_result = cross_validate_density_classifier(
            " + ".join(names), cv, fit_params=fit_params, chunk_pages=chunk_pages)
    model = ngram.fit(content, boilerplate, fit_params, report)
    path = ngram.save_model(model, out_path)
    report = dict(report, min_count=model["min_count"], bytes=path.stat().st_size,
                  grams={name: len(model["classes"][name]["grams"]) for name in ngram_model.CLASSES},
                  seconds=round(time.perf_counter() - start, 1), path=str(path))
    if cv_result is not None:
        report["cv"] = cv_result
    return report


# ------------------------------------------------------------------ cross-validation

@dataclass(frozen=True)
class FoldScore:
    fold: int
    pages: int
    density: tuple[float, float, float]  # mean P, R, F1
    classifier: tuple[float, float, float]


def _mean_prf(rows: Sequence[tuple[float, float, float]]) -> tuple[float, float, float]:
    if not rows:
        return 0.0, 0.0, 0.0
    return (statistics.mean(r[0] for r in rows), statistics.mean(r[1] for r in rows),
            statistics.mean(r[2] for r in rows))


def evaluate_fold(model: ngram_model.NGramModel, test: Sequence[PageChunks], margin: float | None = None
                  ) -> tuple[list[WordScore], list[WordScore]]:
    """Per-page referee scores of stage 1 alone and of both stages."""
    stage1_scores, both_scores = [], []
    for page in test:
        _, keep = density.classifier_keep(model, page.block_texts, np.array(page.stage1, dtype=bool), margin)
        stage1_scores.append(word_prf(kept_text(page.block_texts, page.stage1), page.gold))
        both_scores.append(word_prf(kept_text(page.block_texts, keep.tolist()), page.gold))
    return stage1_scores, both_scores


def cross_validate_density_classifier(dataset_dir: str | Path, folds: int = 5, *, n: int = 6,
                                      pages=None, seed: int = 0,
                                      fit_params: ngram.FitParams | None = None,
                                      chunk_pages: Sequence[PageChunks] | None = None) -> dict:
    """Domain-grouped k-fold comparison of ``density`` and ``density+classifier``.

    Each fold's model is fitted (and pruned) exactly as the shipped one, on the
    other folds. Returns per-fold and fold-averaged mean P/R/F1 of both.
    """
    fit_params = fit_params or ngram.FitParams(n=n)
    chunk_pages = list(chunk_pages) if chunk_pages is not None else load_chunks([dataset_dir], pages, seed)
    results = []
    for fold, members in enumerate(group_folds(chunk_pages, folds, seed)):
        held = set(members)
        train = [p for i, p in enumerate(chunk_pages) if i not in held]
        test = [chunk_pages[i] for i in members]
        model = ngram_model.compile_model(fit_pages(train, fit_params))
        stage1, both = evaluate_fold(model, test)
        results.append(FoldScore(fold, len(test), _mean_prf(stage1), _mean_prf(both)))
    return {
        "dataset": str(dataset_dir), "folds": folds, "pages": len(chunk_pages), "n": fit_params.n,
        "per_fold": [r.__dict__ for r in results],
        "density_f1": statistics.mean(r.density[2] for r in results),
        "classifier_f1": statistics.mean(r.classifier[2] for r in results),
        "density_prf": _mean_prf([r.density for r in results]),
        "classifier_prf": _mean_prf([r.classifier for r in results]),
    }


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m thresher.training.density_classifier {cv,train} DATASET... [-o MODEL]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m thresher.training.density_classifier")
    ap.add_argument("command", choices=("cv", "train"))
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("-o", "--out", help="model path (train)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--pages", type=int)
    args = ap.parse_args(argv)
    if args.command == "cv":
        result = cross_validate_density_classifier(args.datasets[0], args.folds, n=args.n, pages=args.pages)
    else:
        if not args.out:
            ap.error("train needs -o MODEL")
        result = train_density_classifier(args.datasets, args.out, n=args.n, pages=args.pages)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
