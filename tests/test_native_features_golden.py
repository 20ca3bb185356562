"""Golden arrays of the flagship's per-page features that moved into the core: Readability's
candidate columns, the id/class token columns, bags and sets, and stage 2's context features.

``tests/golden/native-features.npz`` holds, for each page of ``PAGES``, what the Python
implementations computed before they were ported to the core (``crates/core/src/features/
candidates.rs``, ``tokens.rs``, ``stage2.rs``), with the vocabulary ``VOCABULARY`` and the
stage-1 scores ``scores(n)``. The native code must reproduce them (float32, exactly: the
same operations in the same order). Regenerate only after a deliberate change of a definition.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from thresher import features as F
from thresher.document.blocks import build_document
from thresher.features.candidates import candidate_columns
from thresher.inference import learned as L

GOLDEN = Path(__file__).resolve().parent / "golden" / "native-features.npz"

PROSE = ("The river rose, as it does, over the old wall, and the town, which had seen it before, "
         "moved its carts uphill; nobody, in the end, was hurt, and the market opened late.")
SHORT = "A closing line of plain prose that carries no links and ends a sentence here."

PAGES = {
    "article": (f"<div id=main class='article-body post'><p>{PROSE}</p><p>{PROSE}</p><p>{PROSE}</p></div>"
                f"<div class=sidebar><p>Sidebar: {PROSE}</p></div>"
                "<ul class=menu><li><a href=/a>Home</a></li><li><a href=/b>World news and more</a></li></ul>"),
    "siblings": (f"<section><div class=story>{''.join(f'<p>{PROSE}</p>' for _ in range(4))}</div>"
                 f"<p>{SHORT}</p><p><a href=/x>Related story one</a> <a href=/y>Related story two</a></p>"
                 f"<div class=story><p>{PROSE[:60]}</p></div><pre>code line one.\n</pre>"
                 "<p>Short. </p></section>"),
    "hidden-roles": (f"<div role=navigation><p>{PROSE}</p></div><div style='display:none'><p>{PROSE}</p></div>"
                     f"<div aria-hidden=true><p>{PROSE}</p></div><div class='box hid'><p>Kept: {PROSE}</p></div>"
                     f"<div class='comment-list'><p>{PROSE}</p></div><a class=sidebar><p>{PROSE}</p></a>"),
    "unicode-classes": (f"<div class='S\u212aYSCRAPER \u0130tem'><p>{PROSE}</p></div>"
                        f"<div id='Main\u00a0Content' class='Post_Body'><p>{PROSE}</p><p>{PROSE}</p></div>"
                        f"<td class=hentry><p>{PROSE}, more, commas\uff0c here</p></td>"
                        "<div class='pagination pager'><a href=/2>2</a></div>"),
    "runs": ("<div class=content>First run of text in the div<br><br>second run of text after breaks<br><br>"
             f"third run, with a comma, and more words to pass</div><h2 class=title>{PROSE}</h2>"
             f"<blockquote><p>{PROSE}</p></blockquote>" + "<p>x</p>" * 12),
    "deep": "<div class='a b'>" * 40 + f"<p class=c>{PROSE}</p>" + "</div>" * 40 + "<p>after</p>",
    "no-paragraphs": "<ul><li>Home</li><li>About</li></ul>",
    "empty": "<p></p>",
}
VOCABULARY = ("main", "content", "post", "body", "story", "sidebar", "menu", "x", "hid", "item", "a",
              "c", "kelvin", "post", "pagination")  # "post" twice: its last column counts


def scores(n: int) -> np.ndarray:
    """Stage-1 scores for a page of ``n`` blocks: varied, with ties, zeros and ones."""
    p = np.random.default_rng(n).random(n)
    p[::3] = np.round(p[::3] * 4) / 4
    return p


def page(name: str):
    return build_document(f"<html><body>{PAGES[name]}</body></html>")


@pytest.fixture(scope="module")
def golden():
    with np.load(GOLDEN) as data:
        return dict(data)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_native_features_match_the_python_definitions(name, golden):
    doc = page(name)
    n = len(doc.blocks)
    candidates = candidate_columns(doc)
    assert candidates.values.dtype == np.float32
    np.testing.assert_array_equal(candidates.values, golden[f"{name}/candidates"])
    vocabulary = F.vocabulary(VOCABULARY)
    columns = F.token_columns(doc, vocabulary)
    assert columns.names == tuple(f"tok_{t}" for t in VOCABULARY)
    np.testing.assert_array_equal(columns.values, golden[f"{name}/token_columns"])
    bags = F.token_bags(doc, vocabulary)
    np.testing.assert_array_equal(bags.indices, golden[f"{name}/bag_indices"])
    np.testing.assert_array_equal(bags.offsets, golden[f"{name}/bag_offsets"])
    assert bags.indices.dtype == bags.offsets.dtype == np.int64
    sets = [" ".join(sorted(held)) for held in F.token_sets(doc)]
    assert sets == golden[f"{name}/token_sets"].tolist()
    p = scores(n)
    context = L.context_features(doc, p)
    np.testing.assert_array_equal(context.values, golden[f"{name}/context"])
    assert context.names == tuple(golden["context_names"].tolist())
    assert candidates.values.shape == (n, 6) and context.values.shape == (n, 25)


def test_the_golden_file_covers_every_page(golden):
    assert {key.split("/")[0] for key in golden if "/" in key} == set(PAGES)
