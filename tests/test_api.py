"""thresher.extract and extract_result catch a caller's mistakes: explicit typed keywords,
trafilatura's names, a str without markup, unknown language codes, a url of the wrong type."""
from __future__ import annotations

import inspect
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import thresher
from thresher.errors import InputError, OptionError
from thresher.options import DEFAULTS, FORMAT_ALIASES, FORMATS, VALID_NAMES, Options, OutputFormat

TESTS = Path(__file__).resolve().parent
PAGE = ("<html><head><title>Flood in the valley</title></head><body><article><h1>Flood in the valley</h1>"
        "<p>The river rose slowly through the night, and by morning the lower fields of the valley were "
        "under a sheet of brown water that reached the <a href='/hedges'>hedges</a>.</p>"
        "<p>Farmers moved their cattle to the high pasture before dawn, working by torchlight along the "
        "old drove road above the flooded meadows.</p></article></body></html>")
# The keywords of extract_result that say what to compute, not how to extract.
COMPUTE = ("options", "metadata", "explain", "attributes")


def keywords(function) -> dict[str, inspect.Parameter]:
    return {name: p for name, p in inspect.signature(function).parameters.items() if p.kind is p.KEYWORD_ONLY}


# ---------------------------------------------------------------- signatures

@pytest.mark.parametrize("function", [thresher.extract, thresher.extract_result])
def test_every_switch_is_an_explicit_keyword_with_options_default(function):
    params = keywords(function)
    switches = {name: p for name, p in params.items() if name not in COMPUTE}
    assert sorted(switches) == sorted(VALID_NAMES)
    assert not any(p.kind is p.VAR_KEYWORD for p in inspect.signature(function).parameters.values())
    assert {name: p.default for name, p in switches.items()} == dict(DEFAULTS)


def test_the_output_type_lists_every_format_and_alias():
    assert set(typing.get_args(OutputFormat)) == set(FORMATS) | set(FORMAT_ALIASES)


def test_the_docstring_names_every_switch_and_stands_alone():
    doc = inspect.getdoc(thresher.extract) or ""
    assert "as before" not in doc
    assert [name for name in VALID_NAMES if f"``{name}``" not in doc] == []
    result_doc = inspect.getdoc(thresher.extract_result) or ""
    assert [name for name in ("metadata", "explain", "attributes") if f"``{name}``" not in result_doc] == []


def test_an_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="fast"):
        thresher.extract(PAGE, fast=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        thresher.extract(PAGE, None, "thresher")  # type: ignore[misc]


# ---------------------------------------------------------------- trafilatura's names

def test_output_format_is_trafilaturas_name_of_output():
    markdown = thresher.extract(PAGE, output="markdown")
    assert markdown.startswith("# Flood")
    assert thresher.extract(PAGE, output_format="markdown") == markdown
    assert thresher.extract(PAGE, output_format="txt") == thresher.extract(PAGE)
    assert Options(output="txt").output == "text"
    with pytest.raises(TypeError, match="output_format"):
        thresher.extract(PAGE, output="json", output_format="markdown")


def test_trafilaturas_content_switches_are_accepted_with_their_meanings():
    url = "https://news.example.org/flood"
    text = thresher.extract(PAGE, url=url, output_format="markdown", include_comments=True, include_tables=False,
                            include_links=True, include_images=True, include_formatting=False,
                            favor_recall=True, with_metadata=True, target_language="en", deduplicate=True)
    assert text.startswith("---\n") and "](https://news.example.org/hedges)" in text
    assert thresher.extract(PAGE, url=url, target_language="de") == ""


def test_keywords_override_a_ready_options():
    ready = Options(output="markdown")
    assert thresher.extract(PAGE, options=ready) == thresher.extract(PAGE, output="markdown")
    linked = thresher.extract(PAGE, "https://x.example/", options=ready, include_links=True)
    assert "](https://x.example/hedges)" in linked and linked.startswith("# Flood")


# ---------------------------------------------------------------- input mistakes

def test_a_str_without_markup_says_to_read_the_file_first(tmp_path):
    path = tmp_path / "article.html"
    path.write_text(PAGE, encoding="utf-8")
    with pytest.raises(InputError, match=r"path of a file.*read the file first.*read_bytes") as info:
        thresher.extract(str(path))
    assert str(path) in str(info.value)
    with pytest.raises(InputError, match="read the file first"):
        thresher.extract("missing/article.html")
    with pytest.raises(InputError, match=r"got a URL.*-u https://example\.org/a"):
        thresher.extract("https://example.org/a")
    with pytest.raises(InputError, match="read the file first"):
        thresher.extract_result("Just some words, and no markup at all.")
    assert "lower fields" in thresher.extract(path.read_bytes())


def test_plain_text_bytes_are_a_page():
    text = ("The river rose slowly through the night, and by morning the lower fields of the valley were "
            "under a sheet of brown water.")
    assert thresher.extract(text.encode()) == text


def test_markup_is_a_tag_a_comment_or_a_doctype_not_a_less_than_sign():
    with pytest.raises(InputError):
        thresher.extract("a < b and b > c, said the mathematician")
    assert thresher.extract("<!doctype html><p>A short paragraph of text.</p>") == "A short paragraph of text."


def test_url_must_be_a_str():
    with pytest.raises(TypeError, match="url must be"):
        thresher.extract(PAGE, 123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="url must be"):
        thresher.extract_result(PAGE, url=b"https://example.org/")  # type: ignore[arg-type]


@pytest.mark.parametrize("name,value", [("include_tables", "no"), ("favor_precision", 1), ("language", 7),
                                        ("indent", "2"), ("prune", 3), ("deduplicate", "yes"),
                                        ("include_formatting", "on")])
def test_a_switch_of_the_wrong_type_is_a_type_error(name, value):
    with pytest.raises(TypeError, match=name):
        thresher.extract(PAGE, **{name: value})


# ---------------------------------------------------------------- languages

@pytest.mark.parametrize("name", ["language", "target_language"])
def test_language_codes_are_checked(name):
    with pytest.raises(OptionError, match=f"{name}='xx'.*ISO 639-1"):
        thresher.extract(PAGE, **{name: "xx"})
    with pytest.raises(ValueError):  # OptionError is a ValueError too
        Options(**{name: "english"})
    assert getattr(Options(**{name: "EN-gb"}), name) == "en"
    assert getattr(Options(**{name: " "}), name) is None


def test_a_known_language_changes_nothing_it_should_not():
    assert thresher.extract(PAGE, language="en") == thresher.extract(PAGE)
    assert thresher.extract_result(PAGE, language="pt-BR", metadata=False).language == "pt"


def test_a_bad_value_is_an_option_error_and_a_thresher_error():
    with pytest.raises(OptionError):
        thresher.extract(PAGE, output="pdf")  # type: ignore[arg-type]
    with pytest.raises(thresher.ThresherError):
        thresher.extract(PAGE, favor_precision=True, favor_recall=True)


def test_model_takes_a_path(tmp_path):
    from thresher.inference.learned import shipped_model_path

    shipped = Path(shipped_model_path("thresher.npz"))
    assert Options(model=shipped).model == str(shipped)
    assert thresher.extract(PAGE, model=shipped) == thresher.extract(PAGE)


# ---------------------------------------------------------------- a user's script under mypy --strict

def _mypy(*paths: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is in the test extra")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental",
                           "--python-version", "3.10", *map(str, paths)],
                          capture_output=True, text=True, cwd=TESTS.parent, timeout=300)


def test_a_users_script_calling_extract_with_each_option_passes_mypy_strict(tmp_path):
    good = _mypy(TESTS / "typed_user_script.py")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = tmp_path / "bad_script.py"
    bad.write_text("import thresher\n\n"
                   "thresher.extract(b'<p>x</p>', output='pdf')\n"
                   "thresher.extract(b'<p>x</p>', url=123)\n"
                   "thresher.extract(b'<p>x</p>', include_tables='no')\n"
                   "thresher.extract(b'<p>x</p>', fast=True)\n", encoding="utf-8")
    found = _mypy(bad)
    assert found.returncode == 1 and found.stdout.count("error:") == 4, found.stdout
