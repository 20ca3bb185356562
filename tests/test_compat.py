"""The same switches through the API and the CLI give the same output."""
from __future__ import annotations

import pytest

import thresher
from thresher.cli import main as cli

PAGE = ("<html lang=en><head><title>Market day</title><meta property='article:published_time' "
        "content='2022-05-01'></head><body><nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
        "<article><h1>Market day</h1>"
        + "<p>The <b>market</b> filled the square by nine, with stalls of cheese, bread and early "
          "strawberries, and the <a href='/band'>town band</a> played until the rain came at noon.</p>" * 3
        + "<table><tr><td>Stalls</td><td>Forty</td></tr></table><img src='/square.jpg' alt='Square'>"
          "<div class='promo'><p>Sign up for our weekly newsletter and never miss a market day again.</p></div>"
          "</article><div id='comments'><p>Lovely day out, the strawberries were the best I have had.</p></div>"
          "</body></html>").encode()
URL = "https://example.com/market"

CASES = [
    ([], {}),
    (["--no-tables", "--comments"], {"include_tables": False, "include_comments": True}),
    (["--output-format", "markdown", "--links", "--no-formatting"],
     {"output": "markdown", "include_links": True, "include_formatting": False}),
    (["--format", "xml", "--images", "--formatting"],
     {"output": "xml", "include_images": True, "include_formatting": True}),
    (["--format", "markdown", "--images"], {"output": "markdown", "include_images": True}),
    (["-f", "xmltei", "--with-metadata"], {"output": "xmltei", "with_metadata": True}),
    (["-f", "csv", "--precision"], {"output": "csv", "favor_precision": True}),
    (["--recall", "--with-metadata"], {"favor_recall": True, "with_metadata": True}),
    (["--prune", "div.promo", "--prune", "nav"], {"prune": ("div.promo", "nav")}),
    (["--only-with-metadata"], {"only_with_metadata": True}),
    (["--target-language", "fr"], {"target_language": "fr"}),
    (["--deduplicate", "-f", "json"], {"deduplicate": True, "output": "json"}),
]


@pytest.mark.parametrize("argv, keywords", CASES, ids=[" ".join(a) or "defaults" for a, _ in CASES])
def test_cli_and_api_agree(capsys, tmp_path, argv, keywords):
    path = tmp_path / "page.html"
    path.write_bytes(PAGE)
    code = cli.main(["extract", str(path), "--url", URL, *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    expected = thresher.extract(PAGE, URL, **keywords)
    assert out == (expected + "\n" if expected and not expected.endswith("\n") else expected)


def test_bad_prune_selector_is_a_usage_error(capsys, tmp_path):
    path = tmp_path / "page.html"
    path.write_bytes(PAGE)
    assert cli.main(["extract", str(path), "--prune", "div >"]) == 2
    assert capsys.readouterr().err.startswith("thresher: error: bad CSS selector")


def test_precision_and_recall_exclude_each_other(capsys, tmp_path):
    path = tmp_path / "page.html"
    path.write_bytes(PAGE)
    assert cli.main(["extract", str(path), "--precision", "--recall"]) == 2


def test_cli_xmltei_output_validates(capsys, tmp_path):
    lxml_etree = pytest.importorskip("lxml.etree", reason="lxml is needed to validate TEI")
    trafilatura_xml = pytest.importorskip(
        "trafilatura.xml", reason="TEI validation uses trafilatura's DTD: pip install 'thresher[test]'")
    path = tmp_path / "page.html"
    path.write_bytes(PAGE)
    assert cli.main(["extract", str(path), "--url", URL, "--output-format", "xmltei", "--comments", "--images",
                     "--links", "--formatting"]) == 0
    out = capsys.readouterr().out
    assert trafilatura_xml.validate_tei(lxml_etree.fromstring(out.encode("utf-8")))
    assert "strawberries" in out
