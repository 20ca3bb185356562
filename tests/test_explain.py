"""The explain views: Saabas contributions, the JSON document, the text table, the HTML report."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import thresher
from thresher.cli import main as cli
from thresher.explain import build_report, render_html, render_text, to_json
from thresher.explain.contributions import node_means, path_contributions
from thresher.explain.sanitize import sanitised_page
from thresher.inference import learned as L
from thresher.inference.treemodel import TreeEnsemble

PARAGRAPH = ("The river leaves sand on the inside of every bend and takes it from the outside, so the loops "
             "of a lowland river grow a little wider with each flood, year after year.")
HOSTILE = ("<html><head><title>Bends</title><script>steal()</script><link rel=stylesheet href='http://x/a.css'>"
           "<style>body{background:url(http://x/b.png)}</style></head><body onload='steal()'>"
           "<nav><a href='/a'>Home</a> <a href='/b'>About</a></nav><iframe src='http://x/f'></iframe>"
           "<h1>Why rivers bend</h1>" + "".join(f"<p onclick='steal()'>{PARAGRAPH} {i}</p>" for i in range(4)) +
           "<img src='http://x/t.gif'><footer>Footer &amp; links</footer></body></html>").encode()


def tiny_ensemble() -> TreeEnsemble:
    """One tree: x0 <= 0.5 ? (x1 <= 0.5 ? 1 : 3) : -2 (node values: root 0.0, left 2.0)."""
    return TreeEnsemble(("a", "b"), np.array([0, 1, -1, -1, -1]), np.array([0.5, 0.5, 0, 0, 0]),
                        np.array([1, 2, 2, 3, 4]), np.array([4, 3, 2, 3, 4]), np.array([0, 0, 1.0, 3.0, -2.0]),
                        np.array([0]), 2, 0.25)


def test_node_means_average_the_leaves_below():
    assert node_means(tiny_ensemble()).tolist() == [pytest.approx(2 / 3), 2.0, 1.0, 3.0, -2.0]


def test_contributions_follow_the_path():
    rows = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    c = path_contributions(tiny_ensemble(), rows)
    assert c.bias.tolist() == pytest.approx([0.25 + 2 / 3] * 3)
    assert c.values[0].tolist() == pytest.approx([2 - 2 / 3, -1.0])
    assert c.values[1].tolist() == pytest.approx([2 - 2 / 3, 1.0])
    assert c.values[2].tolist() == pytest.approx([-2 - 2 / 3, 0.0])
    assert (c.bias + c.values.sum(1)).tolist() == pytest.approx(tiny_ensemble().margin(rows).tolist())


def test_contributions_add_up_to_the_shipped_margin():
    result = thresher.extract_result(HOSTILE)
    model = L.load_learned(L.shipped_model_path("thresher.npz"))
    stage1 = model.stage("stage1")
    page = L.page_features(result.document, result.language)
    x = L.checked(stage1, L.stage1_features(page, model.token_vocabulary, L.reads_candidates(stage1)))
    c = path_contributions(stage1, x)
    assert np.allclose(c.bias + c.values.sum(1), stage1.margin(x))
    assert c.top(0, 3) and len(c.top(0, 3)) <= 3


def test_json_has_every_block_with_its_decision():
    report = build_report(HOSTILE, algorithm="thresher", compare="justext")
    data = json.loads(json.dumps(to_json(report)))
    result = thresher.extract_result(HOSTILE)
    assert data["schema"] == "thresher.explain" and data["title"] == "Bends"
    assert [a["algorithm"] for a in data["algorithms"]] == ["thresher", "justext"]
    assert len(data["blocks"]) == len(result.blocks)
    for block, label in zip(data["blocks"], result.labels):
        assert block["label"] == label and 0.0 <= block["score"] <= 1.0 and block["reason"]
        assert block["stage"] in ("stage1", "stage2") and block["contributions"]
        assert block["compare"]["algorithm"] == "justext" and "words" in block["compare"]["features"]
    summary = data["algorithms"][0]
    assert summary["words_kept"] + summary["words_dropped"] == sum(b.word_count for b in result.blocks)


def test_text_wraps_full_reasons_to_the_width():
    result = thresher.extract_result(HOSTILE, algorithm="thresher")
    lines = render_text(result, width=60).splitlines()
    assert max(len(line) for line in lines[1:]) <= 60
    joined = " ".join(" ".join(line.split()) for line in lines)
    assert all(reason in joined for reason in result.classification.reasons)


def test_sanitised_page_is_inert_and_marks_kept_text():
    page = sanitised_page(HOSTILE.decode(), ["Home About", "Why rivers bend", PARAGRAPH], [False, True, True])
    for banned in ("<script", "steal(", "<iframe", "<link", "http://x", "onload", "onclick", "<img src"):
        assert banned not in page
    assert "default-src 'none'" in page
    assert re.search(r'<mark class="thresher-keep" data-b="1">Why rivers bend</mark>', page)
    assert '<span class="thresher-drop" data-b="0">Home</span>' in page


def test_html_report_is_self_contained(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert cli.main(["explain", str(_write(tmp_path, HOSTILE)), "--format", "html", "-o", str(out),
                     "--compare", "justext"]) == 0
    html = out.read_text(encoding="utf-8")
    outer = html.split("const D = ", 1)[0]
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", outer)
    assert "<script src" not in html and "<link" not in html.split("const D = ", 1)[0]
    data = json.loads(html.split("const D = ", 1)[1].split(";\nconst A", 1)[0])
    assert len(data["text"]) == len(thresher.extract_result(HOSTILE).blocks)
    assert "</script" not in html.split("const D = ", 1)[1].split("</script>", 1)[0]


def _write(tmp_path, data: bytes):
    path = tmp_path / "page.html"
    path.write_bytes(data)
    return path


def test_explain_rejects_an_unknown_comparison(tmp_path, capsys):
    assert cli.main(["explain", str(_write(tmp_path, HOSTILE)), "--compare", "nope"]) == 2
    assert "unknown algorithm" in capsys.readouterr().err


def test_render_html_embeds_the_data_once():
    html = render_html(build_report(HOSTILE, algorithm="justext"))
    assert html.count(PARAGRAPH + " 0") == 2  # the block's text and the sanitised page's
    assert "/*THRESHER_DATA*/" not in html
