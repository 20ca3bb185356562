"""The output-format registry (thresher.render.formats): the one table that the options, the
renderers and the command line's file names read."""
from __future__ import annotations

import importlib
import inspect

import pytest

import thresher
from thresher.cli import main as cli
from thresher.options import Options
from thresher.render.formats import FORMATS, OUTPUT_FORMATS, output_format

PAGE = (b"<html><head><title>Rivers</title><meta name='author' content='Ada Marsh'></head><body><article>"
        b"<h1>Why rivers meander</h1><p>A river on a plain rarely runs straight: a bend sends the water "
        b"against the outer bank, which it wears away, while sand settles on the inner one.</p>"
        b"<p>Year by year the bend grows, until the river cuts through its neck in a flood.</p>"
        b"</article></body></html>")


def test_the_public_formats_are_the_registry_s():
    assert thresher.FORMATS == FORMATS == tuple(OUTPUT_FORMATS)
    assert FORMATS[0] == "text"
    assert len({fmt.extension for fmt in OUTPUT_FORMATS.values()}) == len(FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_has_its_renderer_taking_its_switches(fmt):
    entry = output_format(fmt)
    render = importlib.import_module(f"thresher.render.{entry.module}").render
    keywords = set(inspect.signature(render).parameters)
    assert set(entry.switches) <= keywords
    assert list(Options(output=fmt).render_options()) == list(entry.switches)


@pytest.mark.parametrize("fmt", FORMATS)
def test_what_a_format_needs_is_what_the_options_ask_for(fmt):
    entry = output_format(fmt)
    assert Options(output=fmt).needs_metadata == entry.metadata
    # Comment sections are found by their ids and classes, with or without include_comments.
    assert Options(output=fmt, include_comments=True).needs_attributes
    assert Options(output=fmt).needs_attributes


@pytest.mark.parametrize("fmt", FORMATS)
def test_front_matter_goes_only_where_the_registry_allows_it(fmt):
    plain = thresher.extract(PAGE, algorithm="justext", output=fmt)
    with_meta = thresher.extract(PAGE, algorithm="justext", output=fmt, with_metadata=True)
    assert with_meta.startswith("---\ntitle: ") == output_format(fmt).front_matter
    assert (with_meta == plain) != output_format(fmt).front_matter


def test_an_unknown_format_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown output format 'docx'; choose from text, markdown, html"):
        Options(output="docx")
    with pytest.raises(ValueError, match="unknown output format"):
        thresher.extract(PAGE, output="docx")


@pytest.mark.parametrize("fmt", ["markdown", "xmltei", "csv"])
def test_the_command_line_names_outputs_by_the_registry_s_extension(tmp_path, capsys, fmt):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.html").write_bytes(PAGE)
    (tmp_path / "in" / "c.htm").write_bytes(PAGE)
    code = cli.main(["extract", "--input-dir", str(tmp_path / "in"), "-o", str(tmp_path / "out"), "-a", "justext",
                     "--format", fmt, "--page-timeout", "0"])
    assert code == 0, capsys.readouterr().err
    extension = output_format(fmt).extension
    written = sorted(p.name for p in (tmp_path / "out").iterdir() if p.name != "errors.jsonl")
    assert written == [f"a{extension}", f"c{extension}"]
