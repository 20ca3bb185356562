"""benchmarks/structure.py: structure counted in gold HTML and in Markdown, scored and tabled."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("markdown_it")
pytest.importorskip("mdit_py_plugins")

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "structure.py"


@pytest.fixture(scope="module")
def structure():
    spec = importlib.util.spec_from_file_location("structure", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["structure"] = module
    spec.loader.exec_module(module)
    return module


GOLD = """
<h1>Title</h1><h2><a href="#x"></a></h2>
<p>Some <b>bold</b> and <em>it</em> and <a href="/a">a link</a> and <a name="x">no href</a>.</p>
<pre><code>x = <b>1</b> <a href="/b">link in code</a></code></pre>
<ul><li>one</li><li>two<ol><li>inner</li></ol></li></ul>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td><img src="i.png"></td></tr></table>
<blockquote><p>quoted</p></blockquote>
<p><math><semantics><mi>x</mi><annotation encoding="application/x-tex">x</annotation></semantics></math>
<script type="math/tex">y</script></p>
"""

MARKDOWN = """# Title

Some **bold** and *it* and [a link](/a) and no href.

```
x = 1 link in code
```

- one
- two
  1. inner

| a | b |
|---|---|
| 1 | ![](i.png) |

> quoted

$x$ $y$ and $5 and $10 are no math
"""

EXPECTED = {"headings": 1, "code blocks": 1, "emphasis": 2, "links": 1, "images": 1, "list items": 3,
            "table cells": 4, "blockquotes": 1, "math": 2}


def test_gold_counts(structure):
    assert structure.gold_counts(GOLD) == EXPECTED


def test_markdown_counts(structure):
    assert structure.markdown_counts(MARKDOWN) == EXPECTED


def test_empty_inputs_count_nothing(structure):
    assert set(structure.gold_counts("").values()) == {0}
    assert set(structure.markdown_counts("").values()) == {0}


def test_score_caps_each_page_at_its_gold(structure):
    gold = dict.fromkeys(structure.TYPES, 0)
    pages = [({**gold, "links": 4}, {**gold, "links": 6}), ({**gold, "links": 4}, {**gold, "links": 1})]
    links = structure.score(pages)["links"]
    assert (links["gold"], links["found"], links["matched"]) == (8, 7, 5)
    assert links["recall"] == pytest.approx(5 / 8) and links["over"] == pytest.approx(7 / 8)
    assert structure.score(pages)["math"]["recall"] is None


def test_table_and_readme_section_come_from_the_results(structure):
    results = {"date": "2026-11-27", "environment": {"versions": {"trafilatura": "2.3.1"}},
               "datasets": {"readability": {"pages": 2, "results": {
                   name: structure.score([(EXPECTED, {**EXPECTED, "links": n})])
                   for name, n in (("thresher", 1), ("trafilatura", 0))}}}}
    lines = structure.table(results, "readability").splitlines()
    assert lines[0].startswith("| structure | gold | thresher recall | trafilatura 2.3.1 recall")
    assert "| links | 1 | **1.000** | 0.000 | 1.000 | 0.000 |" in lines
    readme = f"intro\n{structure.START}\nstale\n{structure.END}\nrest\n"
    out = structure.rewrite(readme, structure.section(results, "r.json"))
    assert out.startswith("intro\n") and out.endswith("\nrest\n") and "stale" not in out
    assert "the 2 readability pages" in out
    with pytest.raises(ValueError):
        structure.rewrite("no markers", "x")


def test_the_title_given_beside_the_content_is_a_gold_heading(structure):
    assert structure.gold_counts("<p>Text</p>", "Why Rivers Meander")["headings"] == 1
    assert structure.gold_counts("<h1>Why  rivers meander</h1><p>Text</p>", "Why Rivers Meander")["headings"] == 1
    assert structure.gold_counts("<h2>Other</h2><p>Text</p>", "Why Rivers Meander")["headings"] == 2
