"""CETR: tag ratios, smoothing, derivative, k-means around the origin, and the mapping to blocks."""
from __future__ import annotations

import math

import numpy as np
import pytest

from thresher import algorithms
from thresher.algorithms import cetr as C
from thresher.algorithms.base import Context
from thresher.document.blocks import build_document

PARA = "A long paragraph of article text that runs on for a good while without any markup at all in it. "


def test_tag_ratio_counts_a_tagless_line_as_one_tag():
    assert C.tag_ratios(np.array([10, 10, 0]), np.array([0, 4, 3])).tolist() == [10.0, 2.5, 0.0]


def test_gaussian_kernel_radius_three_sigmas():
    kernel = C.gaussian_kernel(1.0, 3.0)
    assert len(kernel) == 7 and math.isclose(kernel.sum(), 1.0)
    assert kernel.argmax() == 3 and math.isclose(kernel[0], kernel[-1])


def test_smoothing_keeps_constants_and_spreads_a_spike():
    assert np.allclose(C.smooth(np.full(5, 4.0), 1.0, 3.0), 4.0)
    spike = C.smooth(np.array([0, 0, 0, 0, 10.0, 0, 0, 0, 0]), 1.0, 3.0)
    assert spike.argmax() == 4 and spike[3] == pytest.approx(spike[5]) and 0 < spike[3] < spike[4] < 10
    assert C.smooth(np.array([]), 1.0, 3.0).size == 0


def test_derivative_looks_at_the_following_lines():
    values = np.array([0.0, 3.0, 6.0, 9.0, 12.0])
    # G[k] = |mean(T[k+1..k+3]) - T[k]|, fewer lines near the end, 0 for the last
    assert C.derivative(values, 3).tolist() == [6.0, 6.0, 4.5, 3.0, 0.0]


def _points() -> np.ndarray:
    rng = np.random.default_rng(7)
    near = rng.uniform(0, 2, size=(30, 2))
    middle = rng.uniform(40, 45, size=(10, 2))
    far = rng.uniform(200, 210, size=(5, 2))
    return np.vstack((near, middle, far))


def test_kmeans_is_deterministic_and_pins_the_origin():
    points = _points()
    first = C.kmeans_origin(points, (0.5, 0.95))
    second = C.kmeans_origin(points.copy(), (0.5, 0.95))
    assert np.array_equal(first.assignment, second.assignment)
    assert np.array_equal(first.centroids, second.centroids)
    assert first.centroids[0].tolist() == [0.0, 0.0]
    # the points near the origin are the origin's cluster: boilerplate
    content = C.is_content(first)
    assert not content[:30].any() and content[30:].all()


def test_kmeans_partition_does_not_depend_on_point_order():
    points = _points()
    order = np.random.default_rng(3).permutation(len(points))
    shuffled = C.kmeans_origin(points[order], (0.5, 0.95))
    plain = C.kmeans_origin(points, (0.5, 0.95))
    assert np.array_equal(C.is_content(shuffled), C.is_content(plain)[order])


def test_all_points_at_the_origin_are_boilerplate():
    clustering = C.kmeans_origin(np.zeros((4, 2)), (0.5, 0.95))
    assert not C.is_content(clustering).any()
    assert C.kmeans_origin(np.zeros((0, 2)), (0.5, 0.95)).assignment.size == 0


def test_ties_go_to_the_origin():
    assert C.assign(np.array([[1.0, 0.0]]), np.array([[0.0, 0.0], [2.0, 0.0]])).tolist() == [0]


def _page() -> str:
    nav = "\n".join(f'<li class="menu-item"><a href="/s/{i}" class="link">Item {i}</a></li>' for i in range(12))
    body = "\n".join(f"<p>{PARA * 3}</p>" for _ in range(4))
    foot = "\n".join(f'<div class="footer"><span><a href="/f/{i}">Foot {i}</a></span></div>' for i in range(8))
    return f"<html>\n<head>\n<title>T</title>\n</head>\n<body>\n<ul>\n{nav}\n</ul>\n{body}\n{foot}\n</body>\n</html>"


@pytest.mark.parametrize("unit", ["line", "block"])
def test_cetr_keeps_the_article_lines(unit):
    page = _page()
    doc = build_document(page)
    result = C.decide(doc, C.Params(unit=unit), source=page)
    article = [i for i, b in enumerate(doc.blocks) if b.text.startswith("A long")]
    assert len(article) == 4 and all(result.labels[i] for i in article)
    # smoothing (radius 3) and the derivative may pull in a few neighbours; nothing farther
    far = [i for i in range(len(doc.blocks)) if i < article[0] - 3 or i > article[-1] + 3]
    assert len(far) == 14 and not any(result.labels[i] for i in far)


def test_line_unit_without_source_falls_back_to_blocks():
    doc = build_document(_page())
    result = algorithms.get("cetr").run(doc, C.Params(), Context())
    assert result.labels == C.decide(doc, C.Params(unit="block")).labels
    assert all("no page source" in r for r in result.reasons)


def test_params_check_their_values():
    with pytest.raises(ValueError):
        C.Params(unit="page")
    with pytest.raises(ValueError):
        C.Params(k=4)


DEEP = "<html><body>" + "<div>" * 100_000 + "<p>" + PARA * 3 + "</p>" + "</div>" * 100_000 + "</body></html>"


@pytest.mark.parametrize("unit", ["line", "block"])
def test_deep_page_runs_without_recursion(unit):
    doc = build_document(DEEP)
    result = C.decide(doc, C.Params(unit=unit), source=DEEP)
    assert len(result.labels) == len(doc.blocks) >= 1
    assert len(algorithms.get("cetr").run(doc).labels) == len(doc.blocks)


def test_source_is_taken_from_the_context_when_the_caller_passes_it():
    from types import SimpleNamespace

    page = _page()
    doc = build_document(page)
    with_source = C.run(doc, C.Params(), SimpleNamespace(source=page, model=None, language=""))
    assert with_source.labels == C.decide(doc, C.Params(), source=page).labels
    assert not any("no page source" in r for r in with_source.reasons)
