"""The flagship's base feature matrix on small hand-built pages, against stored values.

``tests/golden/base/<page>.html`` are written to exercise every group of columns (repeated
texts and their copies in other case, a main heading, JSON-LD and OpenGraph types, nested
context tags, hidden elements, template paths, neighbours at the page's edges, a page of one
block and one of none); ``<page>.npz`` holds the column names and the float32 matrix the
Python implementation computed before the core took it over. The models were trained on
those values: a difference is a change of the features' meaning, never a detail. Regenerate
(``python tests/test_base_golden.py``) only for a deliberate change of a feature, with the
models retrained on it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from thresher import features as F
from thresher.document.blocks import build_document
from thresher.inference import learned

GOLDEN = Path(__file__).resolve().parent / "golden" / "base"
PAGES = sorted(path.stem for path in GOLDEN.glob("*.html"))


def base_of(name: str) -> F.Columns:
    doc = build_document((GOLDEN / f"{name}.html").read_text(encoding="utf-8"))
    return learned.page_features(doc, "en").base


def test_the_golden_pages_are_there():
    assert len(PAGES) >= 5
    assert all((GOLDEN / f"{name}.npz").exists() for name in PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_base_columns_equal_the_stored_ones(name):
    expected = np.load(GOLDEN / f"{name}.npz", allow_pickle=False)
    base = base_of(name)
    assert base.names == tuple(expected["names"].tolist())
    assert base.values.dtype == np.float32 and base.values.flags.c_contiguous
    assert base.values.shape == expected["values"].shape
    wrong = [name for j, name in enumerate(base.names)
             if not np.array_equal(base.values[:, j], expected["values"][:, j])]
    assert not wrong, f"columns that changed: {wrong}"


def test_the_golden_pages_exercise_the_columns():
    """Every column but the tags no block element can have (``span``, ``a``: not block-level;
    ``tr``, ``table``: the parser moves their loose text out) is non-zero somewhere."""
    seen: set[str] = set()
    for name in PAGES:
        base = base_of(name)
        seen.update(n for n, any_value in zip(base.names, (base.values != 0).any(axis=0)) if any_value)
    unreachable = {"tag_span", "tag_a", "tag_tr", "tag_table"} | {f"tag_a@{o:+d}" for o in (-2, -1, 1, 2)}
    assert set(base.names) - seen == unreachable


if __name__ == "__main__":  # regenerate, deliberately (see the module's docstring)
    for page in PAGES:
        columns = base_of(page)
        np.savez_compressed(GOLDEN / f"{page}.npz", names=np.array(columns.names), values=columns.values)
        print(f"{page}: {columns.values.shape}")
