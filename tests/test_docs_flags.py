"""docs/trafilatura-flags.md maps every trafilatura flag, and the thresher flags it names exist."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from thresher.cli import main as cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "trafilatura-flags.md"


def _doc_rows() -> list[tuple[str, str]]:
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and line.startswith("|") and not set(cells[0]) <= {"-"} and cells[0] != "trafilatura":
            rows.append((cells[0], cells[1]))
    return rows


def test_every_trafilatura_flag_is_mapped():
    trafilatura_cli = pytest.importorskip("trafilatura.cli", reason="trafilatura is in the test extra")
    parser = trafilatura_cli.add_args(argparse.ArgumentParser(add_help=False))
    flags = {s for action in parser._actions for s in action.option_strings}
    documented = {flag for left, _ in _doc_rows() for flag in re.findall(r"`(-[-\w]+)", left)}
    assert flags - documented == set()


def test_thresher_flags_named_in_the_doc_exist():
    parser = cli.build_parser()
    extract = next(a for a in parser._subparsers._actions if isinstance(a, argparse._SubParsersAction))
    known = {s for action in [*parser._actions, *extract.choices["extract"]._actions] for s in action.option_strings}
    named = {flag for _, right in _doc_rows() if "not supported" not in right and "not needed" not in right
             for flag in re.findall(r"`(-[-\w]+)", right)}
    assert named - known == set()
