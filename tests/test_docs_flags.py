"""docs/trafilatura-flags.md maps every trafilatura flag and keyword argument, and the thresher
flags and keywords it names exist (with the defaults it gives)."""
from __future__ import annotations

import argparse
import inspect
import re
from pathlib import Path

import pytest

import thresher
from thresher.cli import main as cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "trafilatura-flags.md"


PYTHON_SECTION = "## Python: the keyword arguments of `extract`"


def _table_rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and line.startswith("|") and not set(cells[0]) <= {"-"} and cells[0] != "trafilatura":
            rows.append(cells)
    return rows


def _doc_rows() -> list[tuple[str, str]]:
    """The command-line tables' (trafilatura, thresher) cells."""
    flags = DOC.read_text(encoding="utf-8").split(PYTHON_SECTION)[0]
    return [(cells[0], cells[1]) for cells in _table_rows(flags)]


def _keyword_rows() -> list[list[str]]:
    """The Python table's (trafilatura, thresher, default, notes) cells."""
    return _table_rows(DOC.read_text(encoding="utf-8").split(PYTHON_SECTION)[1])


def _names(cell: str) -> list[str]:
    return re.findall(r"`(\w+)`", cell)


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


def test_every_trafilatura_keyword_is_in_the_one_table():
    trafilatura = pytest.importorskip("trafilatura", reason="trafilatura is in the test extra")
    theirs = set(inspect.signature(trafilatura.extract).parameters)
    documented = {name for cells in _keyword_rows() for name in _names(cells[0])}
    assert theirs - documented == set()
    assert documented - theirs == set()


def test_every_thresher_keyword_is_in_the_table_with_its_default():
    ours = inspect.signature(thresher.extract).parameters
    rows = {cells[1].strip("`"): cells for cells in _keyword_rows() if cells[1].startswith("`")}
    assert sorted(rows) == sorted(ours)
    for name, cells in rows.items():
        default = ours[name].default
        assert cells[2] == ("" if default is inspect.Parameter.empty else f"`{default!r}`"), name


def test_a_trafilatura_name_thresher_takes_is_on_a_row_of_its_own_name():
    trafilatura = pytest.importorskip("trafilatura", reason="trafilatura is in the test extra")
    theirs, ours = inspect.signature(trafilatura.extract), inspect.signature(thresher.extract)
    shared = set(theirs.parameters) & set(ours.parameters)
    same_name = {cells[1].strip("`") for cells in _keyword_rows() if _names(cells[0]) == [cells[1].strip("`")]}
    assert shared == same_name
    assert {"output_format", "include_comments", "include_tables", "include_links", "include_images",
            "include_formatting", "favor_precision", "favor_recall", "with_metadata", "target_language",
            "deduplicate", "url"} <= shared
