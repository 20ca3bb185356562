"""thresher.evaluation: dataset layouts, the referee's metrics, and agreement with the referee."""
from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from thresher.evaluation import DatasetError, detect_kind, evaluate, load, metrics as M, runner, select

SHARED = Path(__file__).resolve().parents[2] / "shared"
REFEREE = SHARED / "bench" / "bench.py"
WCXB = SHARED / "datasets" / "wcxb-dev"
needs_referee = pytest.mark.skipif(not REFEREE.exists(), reason=f"referee not found at {REFEREE} "
                                   "(../shared beside the checkout is absent)")

# A deterministic extractor, written to a module so that the referee (a subprocess) can import it.
EXTRACTOR_SOURCE = '''
import re

def extract(html, url):
    text = html.decode("utf-8", "replace")
    if "CRASH" in text:
        raise RuntimeError("asked to crash")
    if "EMPTY" in text:
        return None
    text = re.sub(r"(?is)<(script|style|nav)\\b.*?</\\1>", " ", text)
    return re.sub(r"\\s+", " ", re.sub(r"<[^>]+>", " ", text)).strip()
'''

ARTICLE = "<p>The quick brown fox jumps over the lazy dog. The Dog sleeps; the fox runs on.</p>"
NAV = "<nav>Home News Sport Weather Contact</nav>"


def page(body: str, title: str = "t") -> bytes:
    return f"<html><head><title>{title}</title><style>p{{}}</style></head><body>{body}</body></html>".encode()


def _gz(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data))


def make_wcxb(root: Path) -> Path:
    pages = {
        "0001": (page(NAV + ARTICLE), {"ground_truth": {
            "main_content": "The quick brown fox jumps over the lazy dog.\n\nThe dog sleeps; the fox runs on.",
            "with": ["quick brown fox", "THE DOG SLEEPS"], "without": ["Weather Contact"]},
            "_internal": {"page_type": {"primary": "article"}}, "url": "https://a.example/1"}),
        "0002": (page("<ul><li>One item</li><li>Two item</li></ul>" + NAV), {"ground_truth": {
            "main_content": "One item Two item Three item", "with": [], "without": []},
            "_internal": {"page_type": {"primary": "category"}}, "url": "https://b.example/2"}),
        "0003": (page("<p>CRASH</p>"), {"ground_truth": {"main_content": "crash text"},
                                        "_internal": {"page_type": {"primary": "forum"}}}),
        "0004": (page("<p>EMPTY</p>"), {"ground_truth": {"main_content": ""},
                                        "_internal": {"page_type": "product"}}),
        "0005": (page("<p>nothing expected</p>"), {"ground_truth": {"main_content": "",
                                                                    "without": ["nothing"]}}),
    }
    for key, (html, truth) in pages.items():
        _gz(root / "html" / f"{key}.html.gz", html)
        (root / "ground-truth").mkdir(parents=True, exist_ok=True)
        (root / "ground-truth" / f"{key}.json").write_text(json.dumps(truth), encoding="utf-8")
    return root


def make_scrapinghub(root: Path) -> Path:
    truth = {
        "b": {"url": "https://x.example/b", "articleBody": "The quick brown fox jumps over the lazy dog."},
        "a": {"url": "https://x.example/a", "articleBody": "Short text"},
        "c": {"url": None, "articleBody": ""},
        "d": {"url": "https://x.example/d", "articleBody": "Home News Sport Weather Contact"},
        "e": {"url": "https://x.example/e", "articleBody": "a b c d e f"},
    }
    bodies = {"b": NAV + ARTICLE, "a": "<p>Short text indeed</p>", "c": "<p>EMPTY</p>",
              "d": "<p>CRASH</p>", "e": "<p>a b c d e f a b c d</p>"}
    for key, body in bodies.items():
        _gz(root / "html" / f"{key}.html.gz", page(body))
    (root / "ground-truth.json").write_text(json.dumps(truth), encoding="utf-8")
    return root


def make_snippets(root: Path) -> Path:
    evaldata = {
        "https://s.example/2": {"file": "two.html", "with": ["lazy   dog"], "without": ["Weather"]},
        "https://s.example/1": {"file": "one.html", "with": ["quick brown", "missing words"],
                                "without": ["Sport Weather", "absent"]},
        "https://s.example/3": {"file": "three.html", "with": ["x"], "without": []},
    }
    (root / "html").mkdir(parents=True)
    (root / "html" / "one.html").write_bytes(page(NAV.replace("nav", "div") + ARTICLE))
    (root / "html" / "two.html").write_bytes(page("<p>The lazy\n dog</p>"))
    (root / "html" / "three.html").write_bytes(page("<p>CRASH</p>"))
    (root / "evaldata.json").write_text(json.dumps(evaldata), encoding="utf-8")
    return root


def make_readability(root: Path) -> Path:
    cases = {
        "001-basic": (page(NAV + ARTICLE), "<div><p>The quick brown fox &amp; friends</p>"
                      "<script>var x = 1;</script></div>", {"url": "https://r.example/1", "title": "t"}),
        "002-other": (page("<p>Alpha beta gamma</p>"), "<p>alpha<b>beta</b> delta</p>", None),
        "003-crash": (page("<p>CRASH</p>"), "<p>something</p>", {"title": "no url"}),
    }
    for name, (source, expected, meta) in cases.items():
        (root / name).mkdir(parents=True)
        (root / name / "source.html").write_bytes(source)
        (root / name / "expected.html").write_text(expected, encoding="utf-8")
        if meta is not None:
            (root / name / "expected-metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    return root


BUILDERS = {"wcxb": make_wcxb, "scrapinghub": make_scrapinghub, "snippets": make_snippets,
            "readability": make_readability}


@pytest.fixture
def synth_extractor(tmp_path, monkeypatch):
    module_dir = tmp_path / "module"
    module_dir.mkdir()
    (module_dir / "synth_extractor.py").write_text(EXTRACTOR_SOURCE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(module_dir))
    import importlib

    module = importlib.import_module("synth_extractor")
    yield module_dir, module.extract
    sys.modules.pop("synth_extractor", None)


def run_referee(dataset: Path, module_dir: Path, spec: str, out: Path) -> list[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(module_dir), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(REFEREE), str(dataset), "--extractor", spec, "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def _without_speed(line: str) -> str:
    return line.split(" pages/s=")[0]


def assert_agrees(ours, referee_json: dict, referee_lines: list[str]) -> None:
    theirs = referee_json["summary"]
    mine = ours.summary.as_dict()
    for key in ("kind", "pages", "errors"):
        assert mine[key] == theirs[key], key
    for key in ("precision", "recall", "f1", "accuracy", "with_rate", "without_rate"):
        assert (key in mine) == (key in theirs), key
        if key in theirs:
            assert mine[key] == pytest.approx(theirs[key], abs=1e-12), key
    assert ("f1_by_type" in mine) == ("f1_by_type" in theirs)
    if "f1_by_type" in theirs:
        assert list(mine["f1_by_type"]) == list(theirs["f1_by_type"])
        assert mine["f1_by_type"] == pytest.approx(theirs["f1_by_type"], abs=1e-12)
    rows = [row.as_dict() for row in ours.pages]
    assert [r["id"] for r in rows] == [r["id"] for r in referee_json["pages"]]
    for mine_row, their_row in zip(rows, referee_json["pages"]):
        for key, value in their_row.items():
            if isinstance(value, (list, float)):
                assert mine_row[key] == pytest.approx(value, abs=1e-12), (their_row["id"], key)
            else:
                assert mine_row[key] == value, (their_row["id"], key)
    lines = ours.lines()
    assert len(lines) == len(referee_lines)
    assert _without_speed(lines[0]) == _without_speed(referee_lines[0])
    assert lines[1:] == referee_lines[1:]


# ------------------------------------------------------------------ layouts

@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_detect_kind_and_load_order(tmp_path, kind):
    root = BUILDERS[kind](tmp_path / kind)
    assert detect_kind(root) == kind
    pages = list(load(root))
    assert [p.id for p in pages] == sorted(p.id for p in pages)
    assert all(isinstance(p.html, bytes) and p.html.startswith(b"<html>") for p in pages)


def test_wcxb_records(tmp_path):
    pages = {p.id: p for p in load(make_wcxb(tmp_path / "w"))}
    first = pages["0001"]
    assert first.url == "https://a.example/1"
    assert first.gold["with"] == ("quick brown fox", "THE DOG SLEEPS")
    assert first.gold["type"] == "article"
    assert pages["0002"].gold["type"] == "collection"  # "category" is reported as collection
    assert pages["0004"].gold["type"] == "product"  # a bare string page type
    assert pages["0005"].gold["type"] == "article"  # no _internal: article
    assert pages["0003"].url is None
    with pytest.raises(TypeError):
        first.gold["text"] = "changed"  # gold is read-only


def test_readability_gold_is_expected_text(tmp_path):
    pages = {p.id: p for p in load(make_readability(tmp_path / "r"))}
    assert pages["001-basic"].url == "https://r.example/1"
    assert pages["002-other"].url is None
    gold = pages["001-basic"].gold["text"]
    assert "The quick brown fox & friends" in gold and "var x" not in gold
    assert M.tokens(pages["002-other"].gold["text"]) == ["alpha", "beta", "delta"]  # tags split words


def test_not_a_dataset(tmp_path):
    with pytest.raises(DatasetError):
        detect_kind(tmp_path)
    with pytest.raises(DatasetError, match="no such directory"):
        detect_kind(tmp_path / "missing")


def test_select_every_then_limit(tmp_path):
    pages = list(load(make_wcxb(tmp_path / "w")))
    assert [p.id for p in select(pages, every=2)] == ["0001", "0003", "0005"]
    assert [p.id for p in select(pages, every=2, limit=2)] == ["0001", "0003"]
    assert [p.id for p in select(pages, limit=0)] == []


# ------------------------------------------------------------------ metrics

def test_word_prf_by_hand():
    p, r, f = M.word_prf("the cat the", "The cat sat on the mat")
    assert (p, r) == (1.0, 0.5)
    assert f == pytest.approx(2 / 3)
    assert M.word_prf("", "") == (1.0, 1.0, 1.0)
    assert M.word_prf("words", "") == (0.0, 0.0, 0.0)
    assert M.word_prf(None, "gold words") == (0.0, 0.0, 0.0)
    assert M.word_prf("x y", "a b") == (0.0, 0.0, 0.0)
    assert M.tokens("Don't stop-me, ÉTÉ_2") == ["don", "t", "stop", "me", "été_2"]


def test_shingles_by_hand():
    assert M.shingles("a b") == {("a", "b"): 1}  # shorter than 4 tokens: one shingle
    assert M.shingles("") == {}
    assert sum(M.shingles("a b c d e").values()) == 2
    assert M.shingles("A b c d") != M.shingles("a b c d")  # case is kept
    tp, fp, fn = M.shingle_score("a b c d x", "a b c d e f")
    # pred shingles: abcd, bcdx; gold: abcd, bcde, cdef -> tp 1, fp 1, fn 2
    assert (tp, fp, fn) == pytest.approx((1 / 4, 1 / 4, 2 / 4))
    assert M.shingle_score("", "") == (0.0, 0.0, 0.0)


def test_shingle_aggregate_skips_undefined_pages():
    perfect = M.ShingleScore(1.0, 0.0, 0.0)
    nothing_predicted = M.ShingleScore(0.0, 0.0, 1.0)  # tp + fp == 0: no precision
    empty = M.ShingleScore(0.0, 0.0, 0.0)  # counts for neither
    scores = M.aggregate("scrapinghub", [perfect, nothing_predicted, empty])
    assert scores.precision == 1.0
    assert scores.recall == 0.5
    assert scores.f1 == pytest.approx(2 / 3)


def test_snippets_by_hand():
    s = M.snippet_score("The  quick\nbrown fox", ["quick brown", "lazy"], [" The quick ", "dog"])
    assert s == (1, 1, 1, 1)
    total = M.aggregate("snippets", [s, M.SnippetScore(1, 0, 0, 1)])
    assert (total.precision, total.recall, total.accuracy) == (2 / 3, 2 / 3, 4 / 6)


def test_wcxb_page_and_aggregate_by_hand():
    gold = {"text": "a b", "with": ("A B", "zzz"), "without": (), "type": "forum"}
    page = M.score_page("wcxb", "a b c d", gold)
    assert (page.precision, page.recall, page.with_rate, page.without_rate) == (0.5, 1.0, 0.5, 0.0)
    other = M.score_page("wcxb", "", {"text": "", "with": (), "without": ("x",), "type": "article"})
    assert (other.f1, other.with_rate, other.without_rate) == (1.0, 1.0, 0.0)
    scores = M.aggregate("wcxb", [page, other])
    assert list(scores.f1_by_type) == ["article", "forum"]
    assert scores.f1_by_type["forum"] == pytest.approx(2 / 3)
    assert scores.with_rate == 0.75


# ------------------------------------------------------------------ runner

class _FakeClock:
    """Stands in for the ``time`` module in the runner: every reading advances half a second."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 0.5
        return self.now


def test_speed_is_sum_of_extraction_calls(tmp_path, monkeypatch, synth_extractor):
    monkeypatch.setattr(runner, "time", _FakeClock())
    root = make_wcxb(tmp_path / "w")
    result = evaluate(root, synth_extractor[1])
    s = result.summary
    assert [p.seconds for p in result.pages] == [0.5] * 5  # one call each, nothing else timed
    assert s.seconds == 2.5 and s.pages_per_s == 2.0
    total = sum(len(p.html) for p in load(root))
    assert s.bytes == total and s.mb_per_s == pytest.approx(total / 1e6 / 2.5)


def test_errors_count_as_empty_extractions(tmp_path, synth_extractor):
    seen = []
    result = evaluate(make_wcxb(tmp_path / "w"), synth_extractor[1], keep_outputs=True,
                      on_error=lambda page_id, exc: seen.append((page_id, type(exc).__name__)))
    assert seen == [("0003", "RuntimeError")]
    crashed = {p.id: p for p in result.pages}["0003"]
    assert crashed.error == "RuntimeError: asked to crash" and crashed.output == ""
    assert crashed.score.f1 == 0.0
    assert result.summary.errors == 1
    assert result.to_json()["outputs"]["0004"] == ""  # None from the extractor counts as ""


def test_lines_format(tmp_path, synth_extractor):
    result = evaluate(make_wcxb(tmp_path / "w"), synth_extractor[1])
    head, types = result.lines()
    assert head.startswith("w [wcxb] pages=5 errors=1 P=")
    assert " pages/s=" in head and " MB/s=" in head
    assert types.startswith("  by type: article=") and "collection=" in types


def test_per_type_precision_recall_and_f1(tmp_path, synth_extractor):
    result = evaluate(make_wcxb(tmp_path / "w"), synth_extractor[1])
    by_type = result.summary.scores.by_type
    rows = list(result.pages)
    for kind, scores in by_type.items():
        mine = [r.score for r in rows if r.score.type == kind]
        assert scores.pages == len(mine)
        assert scores.precision == pytest.approx(sum(s.precision for s in mine) / len(mine))
        assert scores.recall == pytest.approx(sum(s.recall for s in mine) / len(mine))
        assert scores.f1 == pytest.approx(result.summary.scores.f1_by_type[kind])
    table = result.type_lines()
    assert table[0].split() == ["type", "pages", "P", "R", "F1"] and len(table) == 1 + len(by_type)
    assert result.summary.as_dict()["by_type"]["article"]["pages"] == by_type["article"].pages
    assert result.report().splitlines()[2:] == table


@needs_referee
@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_agrees_with_referee_on_synthetic_dataset(tmp_path, kind, synth_extractor):
    module_dir, extract = synth_extractor
    root = BUILDERS[kind](tmp_path / f"data-{kind}")
    out = tmp_path / "referee.json"
    referee_lines = run_referee(root, module_dir, "synth_extractor:extract", out)
    ours = evaluate(root, extract, keep_outputs=True)
    assert_agrees(ours, json.loads(out.read_text(encoding="utf-8")), referee_lines)


@needs_referee
@pytest.mark.skipif(not WCXB.is_dir(), reason=f"{WCXB} is absent")
def test_agrees_with_referee_on_real_wcxb_pages(tmp_path):
    """Ten real pages (every 150th) through thresher's jusText, scored by both."""
    from thresher.evaluation import ThresherExtractor

    subset = tmp_path / "wcxb-mini"
    (subset / "ground-truth").mkdir(parents=True)
    (subset / "html").mkdir()
    for gt in sorted((WCXB / "ground-truth").glob("*.json"))[::150]:
        (subset / "ground-truth" / gt.name).symlink_to(gt)
        (subset / "html" / f"{gt.stem}.html.gz").symlink_to(WCXB / "html" / f"{gt.stem}.html.gz")
    module_dir = tmp_path / "module"
    module_dir.mkdir()
    (module_dir / "jt_extractor.py").write_text(
        "import thresher\n\ndef extract(html, url):\n"
        "    return thresher.extract(html, url, algorithm='justext')\n", encoding="utf-8")
    out = tmp_path / "referee.json"
    referee_lines = run_referee(subset, module_dir, "jt_extractor:extract", out)
    ours = evaluate(subset, ThresherExtractor("justext"))
    assert ours.summary.pages == 10
    assert_agrees(ours, json.loads(out.read_text(encoding="utf-8")), referee_lines)
    assert not math.isnan(ours.summary.f1)
