"""Quality gate: word-level F1 on the shared datasets must not fall below pinned floors.

Each floor is the F1 measured when it was pinned, minus 0.01: a real
regression fails, noise does not. Raise a floor when an algorithm improves.

Subsets, to keep the gate at about 20 s per algorithm on 2 cores:
* ``wcxb-dev``: every 3rd page in sorted-id order (``select(pages, every=3)``,
  499 of 1,497 pages); every wcxb-dev floor below was measured on that subset.
* ``readability``: all 130 pages.

Measured 2026-11-22 with ``evaluate_pages(select(load(dir), every), kind,
ThresherExtractor(name))`` (what this test runs); full-dataset numbers from
``python -m thresher evaluate DIR --algorithm NAME`` are in the comments.
"""
from __future__ import annotations

import pytest

from conftest import require_model, requires_shared
from thresher import algorithms
from thresher.evaluation import ThresherExtractor, detect_kind, evaluate_pages, load, select

pytestmark = [pytest.mark.slow, requires_shared]

EVERY = {"wcxb-dev": 3, "readability": 1}

FLOORS: dict[tuple[str, str], float] = {
    # measured 0.7061 / 0.5697 (0.5708 before readability's yahoo-4 was identified as Japanese: its
    # longest block, escaped markup in a <noscript>, no longer decides the language)
    ("justext", "wcxb-dev"): 0.697,
    ("justext", "readability"): 0.563,
    # measured 0.7956 (full wcxb-dev: 0.791); readability 0.9027 (0.9016 before MathML became page text)
    ("declutter", "wcxb-dev"): 0.785,
    ("declutter", "readability"): 0.892,
    # measured 0.7410 / 0.7732 (0.7678 before MathML became page text)
    ("boilerpipe-article", "wcxb-dev"): 0.731,
    ("boilerpipe-article", "readability"): 0.763,
    # measured 0.7562 / 0.8224 (0.8236 before MathML became page text)
    ("density", "wcxb-dev"): 0.746,
    ("density", "readability"): 0.813,
    # measured 0.7422 / 0.8346 (line units, the paper's; re-pinned when the page source reached algorithms)
    ("cetr", "wcxb-dev"): 0.732,
    ("cetr", "readability"): 0.824,
    # Learned models. Their shipped models were trained on all of wcxb-dev, so the wcxb-dev floors
    # are in-sample regression guards (held-out CV figures are in the model files' meta and the
    # issue notes); readability is never trained on and is a true held-out check.
    # thresher measured 0.9281 / 0.9517 since it reads template paths and copies and averages in a
    # small network (0.9225 / 0.9546 with the trees alone and Readability's candidate columns;
    # 0.9188 / 0.9393 before those)
    ("thresher", "wcxb-dev"): 0.918,
    ("thresher", "readability"): 0.941,
    # thresher-accurate (the same trees averaged with the block-sequence network) measured 0.9351 / 0.9477
    # (0.9341 / 0.9426 when the network read the trees' 400 tokens instead of its own 1,469)
    ("thresher-accurate", "wcxb-dev"): 0.925,
    ("thresher-accurate", "readability"): 0.937,
    # dragnet measured 0.8394 / 0.8401 (1,000 selected tokens; readability 0.8363 before MathML became page text)
    ("dragnet", "wcxb-dev"): 0.829,
    ("dragnet", "readability"): 0.830,
    # density+classifier measured 0.7805 / 0.5502 (its 6-gram model discards readability's lorem-ipsum fixtures)
    ("density+classifier", "wcxb-dev"): 0.770,
    ("density+classifier", "readability"): 0.540,
}


@pytest.fixture(scope="module")
def datasets(shared_dir):
    """Dataset name -> (kind, selected pages), each loaded once per module."""
    cache: dict[str, tuple] = {}

    def get(name: str):
        if name not in cache:
            root = shared_dir / "datasets" / name
            if not root.is_dir():
                pytest.skip(f"dataset {name} not found at {root}")
            cache[name] = (detect_kind(root), tuple(select(load(root), EVERY[name])))
        return cache[name]

    return get


@pytest.mark.parametrize("algorithm,dataset", sorted(FLOORS), ids=lambda x: x)
def test_f1_floor(algorithm, dataset, datasets):
    if algorithm not in algorithms.names():
        pytest.skip(f"algorithm {algorithm!r} is not registered")
    require_model(algorithm)
    kind, pages = datasets(dataset)
    result = evaluate_pages(pages, kind, ThresherExtractor(algorithm), name=dataset)
    summary = result.summary
    failed = [page.id for page in result.pages if page.error is not None]
    assert not failed, f"{algorithm} raised on {len(failed)} {dataset} pages, e.g. {failed[:5]}"
    floor = FLOORS[(algorithm, dataset)]
    assert summary.f1 >= floor, (f"{algorithm} on {dataset} (every {EVERY[dataset]}): F1 {summary.f1:.4f} "
                                 f"< floor {floor:.3f}\n{result.report()}")
