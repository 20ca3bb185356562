"""benchmarks/render_table.py: the README's quality-and-speed table comes from a results file."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "render_table.py"


@pytest.fixture(scope="module")
def render_table():
    spec = importlib.util.spec_from_file_location("render_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def summary(f1: float, rate: float, pages: int, errors: int = 0) -> dict:
    return {"f1": f1, "pages_per_s": rate, "pages": pages, "errors": errors}


RESULTS = {
    "settings": {"every": 5, "chunk": 25},
    "environment": {"peers": {"trafilatura": "2.3.1"}},
    "datasets": {"wcxb-dev": "x", "readability": "y"},
    "results": [
        {"extractor": "thresher:thresher", "dataset": "wcxb-dev", "summary": summary(0.9216, 21.11, 300)},
        {"extractor": "thresher:thresher", "dataset": "readability", "summary": summary(0.976, 17.3, 26)},
        {"extractor": "peer:trafilatura", "dataset": "wcxb-dev", "summary": summary(0.817, 15.0, 300, 2)},
        {"extractor": "peer:trafilatura", "dataset": "readability", "summary": summary(0.936, 31.5, 26)},
    ],
}


def test_table_rows_come_from_the_results(render_table):
    lines = render_table.table(RESULTS).splitlines()
    assert lines[0] == "| extractor | wcxb-dev F1 | pages/s | readability F1 | pages/s |"
    assert lines[2] == "| thresher (default) | 0.922 *in-sample* | 21.1 | 0.976 | 17.3 |"
    assert lines[3] == "| trafilatura 2.3.1 | 0.817 (2 errors) | 15.0 | 0.936 | 31.5 |"


def test_caption_says_how_many_pages(render_table):
    assert "every 5th page" in render_table.caption(RESULTS, "r.json")
    assert "300 wcxb-dev" in render_table.caption(RESULTS, "r.json")


def test_rewrite_replaces_only_the_marked_section(render_table, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# t\nbefore\n{render_table.START}\nold\n{render_table.END}\nafter\n", encoding="utf-8")
    results = tmp_path / "r.json"
    results.write_text(__import__("json").dumps(RESULTS), encoding="utf-8")
    assert render_table.main([str(results), "--readme", str(readme), "--note", "A busy day."]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# t\nbefore\n") and text.endswith("\nafter\n") and "old" not in text
    assert "| thresher (default) |" in text and "A busy day." in text
    with pytest.raises(ValueError):
        render_table.rewrite("no markers", "x")
