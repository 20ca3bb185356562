"""The density filter (stage 1), its line units, and the line-to-block mapping."""
from __future__ import annotations

import math

import numpy as np
import pytest

from thresher import algorithms
from thresher.algorithms import density as D, lines as L
from thresher.algorithms.base import Context
from thresher.document.blocks import build_document

LONG = "This paragraph of the article is long enough to count as a real chunk of running text. "
LONG2 = "Another paragraph follows here, written in plain words with no markup inside it at all. "


def test_density_formula_adds_one_to_both_sides():
    assert D.density(0, 0) == 1.0
    assert D.density(99, 0) == 1.0
    assert math.isclose(D.density(0, 9), 1 / 10)
    assert math.isclose(D.density(60, 40), 61 / 101)
    assert np.allclose(D.density(np.array([1, 3]), np.array([2, 0])), [2 / 4, 1.0])


def test_threshold_is_half_minus_sample_stddev():
    values = np.array([0.2, 0.6, 1.0])
    assert math.isclose(D.density_threshold(values, 0.5), 0.5 - float(np.std(values, ddof=1)))
    assert D.density_threshold(np.array([0.9]), 0.5) == 0.5
    assert D.density_threshold(np.array([]), 0.5) == 0.5


def test_filter_drops_short_chunks_before_the_statistics():
    text = np.array([59, 60, 200, 200, 200, 200, 200])
    markup = np.array([0, 0, 0, 0, 0, 0, 2000])
    f = D.filter_chunks(text, markup, D.Params())
    assert f.long_enough.tolist() == [False] + [True] * 6
    long_densities = D.density(text[1:], markup[1:])
    assert math.isclose(f.threshold, 0.5 - float(np.std(long_densities, ddof=1)))
    # the 59-char chunk is perfectly dense yet dropped; the markup-heavy one falls under the threshold
    assert f.keep.tolist() == [False] + [True] * 5 + [False]
    # had the short chunk counted, the spread (and so the threshold) would differ
    assert not math.isclose(f.threshold, D.density_threshold(D.density(text, markup), 0.5))


def test_keep_is_strictly_above_threshold():
    # a single long chunk: threshold 0.5 exactly; density exactly 0.5 is not kept
    f = D.filter_chunks(np.array([99]), np.array([100]), D.Params())
    assert f.threshold == 0.5 and f.densities[0] == 0.5
    assert not f.keep[0]


def test_element_markup_estimate():
    assert D.element_markup_chars("a", {"href": "x"}) == len('<a href="x">') + len("</a>")
    assert D.element_markup_chars("br", {}) == len("<br>")
    assert D.element_markup_chars("input", {"disabled": None}) == len("<input disabled>")
    assert D.element_markup_chars("div", {"class": "nav", "id": "m"}) == len('<div class="nav" id="m">') + len("</div>")


def test_block_markup_charged_to_the_block_read_when_the_element_opened():
    doc = build_document(f'<html><body><p>{LONG}</p><div class="menu"><a href="/a">A</a></div></body></html>')
    markup = D.block_markup_chars(doc)
    assert len(markup) == len(doc.blocks) == 2
    expected_second = len('<div class="menu"></div>') + len('<a href="/a"></a>')
    assert markup[1] == expected_second
    # html, head, body and p all opened while block 0 was being read
    assert markup[0] == len("<html></html><head></head><body></body><p></p>")


def _page() -> str:
    nav = "".join(f'<li><a href="/section/{i}/a-long-url-for-the-link" class="nav-link item">'
                  f'Section number {i} of the menu with a longer label</a></li>' for i in range(6))
    return (f"<html><head><title>T</title></head><body><ul class='menu'>{nav}</ul>"
            f"<p>{LONG * 2}</p><p>{LONG2 * 2}</p><p>Short one.</p></body></html>")


def test_density_keeps_paragraphs_and_drops_link_lists_and_short_blocks():
    doc = build_document(_page())
    result = algorithms.get("density").run(doc)
    kept = [b.text for b, k in zip(doc.blocks, result.labels) if k]
    assert kept == [" ".join((LONG * 2).split()), " ".join((LONG2 * 2).split())]
    short = [r for b, r in zip(doc.blocks, result.reasons) if b.text == "Short one."]
    assert short == ["under 60 text chars"]


def test_source_lines_remove_scripts_styles_comments_and_blank_lines():
    html = ("<html>\n<head><style>p{}\n</style></head>\n\n<body><!-- a\ncomment -->\n"
            "<p class='x'>Tom &amp; Jerry</p><script>var a = '<p>no</p>';\n</script>\n"
            "<div\n id='y'>text</div>\n")
    lines = L.source_lines(html)
    assert [line.text for line in lines] == ["", "", "", "Tom & Jerry", "", "text"]
    tom = lines[3]
    assert tom.tag_count == 2 and tom.markup_chars == len("<p class='x'></p>")
    # a tag broken over two lines is charged to the line it starts on
    assert lines[4].tag_count == 1 and lines[4].markup_chars == len("<div\n id='y'>")
    assert lines[5].tag_count == 1


def test_unclosed_comment_and_script_run_to_the_end():
    assert L.strip_scripts("a<!-- b") == "a"
    assert L.strip_scripts("a<script>b<p>c") == "a"
    assert L.strip_scripts("a<scripted>b") == "a<scripted>b"
    assert L.strip_scripts("x<STYLE media=all>y</style >z") == "xz"


def test_align_blocks_skips_source_text_the_document_does_not_walk():
    doc = build_document("<p>Hello <iframe>enable scripts please</iframe> world of text</p><p>Bye now</p>")
    source_texts = ["Hello enable scripts please world", "of text", "Bye now"]
    alignment = L.align_blocks([b.text for b in doc.blocks], source_texts)
    assert alignment[0] == ((0, len("Hello") + len("world")), (1, len("oftext")))
    assert alignment[1] == ((2, len("Byenow")),)
    labels, shares = L.block_labels(alignment, [True, False, False])
    assert labels == (True, False)
    assert math.isclose(shares[0], 10 / 16)


def test_unmatched_block_is_discarded():
    labels, shares = L.block_labels([(), ((0, 5),)], [True])
    assert labels == (False, True) and shares == (0.0, 1.0)


def test_line_units_map_back_to_blocks():
    page = _page().replace("<p>", "\n<p>").replace("<li>", "\n<li>")
    doc = build_document(page)
    result = D.decide(doc, D.Params(unit="line"), source=page)
    kept = [b.text for b, k in zip(doc.blocks, result.labels) if k]
    assert kept == [" ".join((LONG * 2).split()), " ".join((LONG2 * 2).split())]


def test_line_unit_without_source_falls_back_to_blocks():
    doc = build_document(_page())
    result = algorithms.get("density").run(doc, D.Params(unit="line"), Context())
    assert result.labels == algorithms.get("density").run(doc).labels
    assert all(r.endswith("(no page source: block units)") for r in result.reasons)


def test_params_reject_unknown_unit():
    with pytest.raises(ValueError):
        D.Params(unit="page")


DEEP = "<html><body>" + "<div>" * 100_000 + "<p>" + LONG * 3 + "</p>" + "</div>" * 100_000 + "</body></html>"


@pytest.mark.parametrize("unit", ["block", "line"])
def test_deep_page_runs_without_recursion(unit):
    doc = build_document(DEEP)
    result = D.decide(doc, D.Params(unit=unit), source=DEEP)
    assert len(result.labels) == len(doc.blocks) >= 1
    source_lines = L.source_lines(DEEP)
    assert sum(line.tag_count for line in source_lines) == 200_000 + 6
