"""Golden Markdown pages: ``tests/golden/markdown/<case>/source.html`` (a small page of our own:
tables with links and spans, figures and lazy images, MathML/KaTeX/MathJax, code, anchor
headings, lists and quotes) and its exact Markdown, ``expected.md``, with links and images on.
``expected.html`` (the page's main content, for ``benchmarks/structure.py``) is the gold the
structure benchmark counts.

After an intended change, regenerate with ``python tests/test_markdown_golden.py`` and review
the diff."""
from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

import pytest

import thresher

GOLDEN = Path(__file__).resolve().parent / "golden" / "markdown"
CASES = sorted(path.parent.name for path in GOLDEN.glob("*/source.html"))


def markdown(case: str) -> str:
    folder = GOLDEN / case
    url = json.loads((folder / "expected-metadata.json").read_text(encoding="utf-8"))["url"]
    return thresher.extract((folder / "source.html").read_bytes(), url, output="markdown", include_links=True,
                            include_images=True) + "\n"


def test_the_golden_markdown_pages_are_present():
    assert len(CASES) >= 6
    for case in CASES:
        assert (GOLDEN / case / "expected.html").exists() and (GOLDEN / case / "expected.md").exists()


@pytest.mark.parametrize("case", CASES)
def test_exact_markdown(case):
    expected = (GOLDEN / case / "expected.md").read_text(encoding="utf-8")
    actual = markdown(case)
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "expected", "actual"))
        pytest.fail(f"{case}/expected.md differs (if intended, run python tests/test_markdown_golden.py):\n{diff}")


if __name__ == "__main__":
    for name in CASES:
        (GOLDEN / name / "expected.md").write_text(markdown(name), encoding="utf-8")
        print(f"wrote {name}/expected.md", file=sys.stderr)
