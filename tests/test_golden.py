"""Golden pages: exact outputs per algorithm, and hand-written facts about what must (not) be kept.

``tests/golden/<case>/page.html`` is a small page written for the purpose;
``expected.<algorithm>.txt`` is that algorithm's text output, regenerated on
purpose with ``tests/regen_golden.py``; ``facts.json`` lists sentences that
must and must not be in the output, for the algorithms it names (only those
for which every fact holds today: a fact that fails is a known weakness,
recorded in the issue notes, not a test to loosen).
"""
from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from conftest import extract_or_skip
from thresher import algorithms

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(path.parent.name for path in GOLDEN.glob("*/page.html"))
EXPECTED = sorted(GOLDEN.glob("*/expected.*.txt"))


def algorithm_of(path: Path) -> str:
    return path.name[len("expected."):-len(".txt")]


def extract_case(case: str, algorithm: str) -> str:
    if algorithm not in algorithms.names():
        pytest.skip(f"algorithm {algorithm!r} is not registered")
    return extract_or_skip((GOLDEN / case / "page.html").read_bytes(), algorithm)


def test_golden_pages_are_present_and_small():
    assert len(CASES) >= 6
    for case in CASES:
        size = (GOLDEN / case / "page.html").stat().st_size
        assert 3_000 <= size <= 15_000, f"{case}: {size} bytes"
        assert (GOLDEN / case / "facts.json").exists(), f"{case} has no facts.json"


@pytest.mark.parametrize("path", EXPECTED, ids=lambda p: f"{p.parent.name}-{algorithm_of(p)}")
def test_exact_output(path):
    expected = path.read_text(encoding="utf-8")
    actual = extract_case(path.parent.name, algorithm_of(path)) + "\n"
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            "expected", "actual", n=1))
        pytest.fail(f"{path.relative_to(GOLDEN)} differs (if the change is intended, run "
                    f"tests/regen_golden.py {algorithm_of(path)} and review the diff):\n{diff[:4000]}")


def fact_params() -> list:
    params = []
    for case in CASES:
        facts = json.loads((GOLDEN / case / "facts.json").read_text(encoding="utf-8"))
        names = list(dict.fromkeys(facts.get("algorithms", [])))
        params.extend(pytest.param(case, name, facts, id=f"{case}-{name}") for name in names)
    return params


@pytest.mark.parametrize("case,algorithm,facts", fact_params())
def test_facts(case, algorithm, facts):
    out = extract_case(case, algorithm)
    missing = [text for text in facts["must_contain"] if text not in out]
    present = [text for text in facts["must_not_contain"] if text in out]
    assert not missing and not present, f"{case} / {algorithm}: missing {missing}, should be absent {present}"
