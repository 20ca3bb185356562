"""Quality gate: word-level F1 on the shared datasets must not fall below the floors of baseline.json.

``tests/baseline.json`` holds, per dataset, the pages scored (every K-th page in sorted-id order:
every 3rd of wcxb-dev, all of readability), the digest of the corpus the floors were measured on,
and each algorithm's floor (measured F1 less 0.01: a real regression fails, noise does not).
``python -m thresher.evaluation.baseline update`` re-measures and rewrites it; it refuses to lower
a floor without ``--allow-regression``. The learned models were trained on all of wcxb-dev, so
their wcxb-dev floors are in-sample regression guards; readability is never trained on.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import require_model, requires_shared
from thresher import algorithms
from thresher.evaluation import ThresherExtractor, detect_kind, evaluate_pages, load, select
from thresher.evaluation.baseline import corpus_digest, load_baseline

pytestmark = [pytest.mark.slow, requires_shared]

BASELINE = load_baseline(Path(__file__).with_name("baseline.json"))


@pytest.fixture(scope="module")
def datasets(shared_dir):
    """Dataset name -> (kind, selected pages), each loaded once per module; skips when the dataset
    is absent or is not the corpus the floors were measured on."""
    cache: dict[str, tuple] = {}

    def get(name: str):
        if name not in cache:
            root = shared_dir / "datasets" / name
            if not root.is_dir():
                pytest.skip(f"dataset {name} not found at {root}")
            entry = BASELINE.datasets[name]
            digest = corpus_digest(root)
            if digest != entry.digest:
                pytest.skip(f"dataset {name} at {root} is not the corpus the floors were measured on "
                            f"(digest {digest}, baseline {entry.digest}): re-measure with "
                            f"python -m thresher.evaluation.baseline update")
            cache[name] = (detect_kind(root), tuple(select(load(root), entry.every)))
        return cache[name]

    return get


@pytest.mark.parametrize("algorithm,dataset", BASELINE.pairs(), ids=lambda x: x)
def test_f1_floor(algorithm, dataset, datasets):
    if algorithm not in algorithms.names():
        pytest.skip(f"algorithm {algorithm!r} is not registered")
    require_model(algorithm)
    kind, pages = datasets(dataset)
    result = evaluate_pages(pages, kind, ThresherExtractor(algorithm), name=dataset)
    summary = result.summary
    failed = [page.id for page in result.pages if page.error is not None]
    assert not failed, f"{algorithm} raised on {len(failed)} {dataset} pages, e.g. {failed[:5]}"
    floor = BASELINE.floor(dataset, algorithm)
    every = BASELINE.datasets[dataset].every
    assert summary.f1 >= floor, (f"{algorithm} on {dataset} (every {every}): F1 {summary.f1:.4f} "
                                 f"< floor {floor:.3f}\n{result.report()}")
