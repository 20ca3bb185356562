"""The xml, xmltei and csv outputs."""
from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET

import pytest

import thresher
from thresher.algorithms import flagship
from thresher.render.csv_out import COLUMNS

KEEP_ALL = flagship.Params(threshold=0.0)
URL = "https://www.example.org/harvest"
HEAD = ('<title>Harvest notes</title><meta name="author" content="Pat Lee">'
        '<meta property="article:published_time" content="2023-09-14"><meta property="og:image" content="/a.jpg">')
BODY = ("<article><h1>Harvest notes</h1><p>The <b>apples</b> came in early this year, and the pears were "
        "late by <a href='/pears'>two weeks</a> at least.</p><h2>Stores</h2><ul><li>Bramley apples, two crates"
        "</li><li>Conference pears, one crate</li></ul><table><tr><th>Crop</th><td>Yield</td></tr></table>"
        "<blockquote>Pick when the pips turn brown.</blockquote><pre>weight = 12\ntotal = 30</pre>"
        "<img src='/crates.jpg' alt='Crates'></article>"
        "<div id='comments'><p>Lovely crop, well done with the pears this year!</p></div>")
PAGE = f"<html lang=en><head>{HEAD}</head><body>{BODY}</body></html>".encode()


def extract(**options) -> str:
    return thresher.extract(PAGE, URL, params=KEEP_ALL, **options)


def test_xml_follows_the_documented_schema():
    root = ET.fromstring(extract(output="xml", include_comments=True, include_links=True, include_images=True))
    assert root.tag == "doc"
    assert root.get("title") == "Harvest notes" and root.get("author") == "Pat Lee"
    assert root.get("date") == "2023-09-14" and root.get("url") == URL
    assert root.get("hostname") == "example.org"
    main = root.find("main")
    assert main is not None
    assert [head.get("rend") for head in main.iter("head")] == ["h1", "h2"]
    assert [item.text for item in main.iter("item")] == ["Bramley apples, two crates", "Conference pears, one crate"]
    assert [[cell.text for cell in row] for row in main.iter("row")] == [["Crop", "Yield"]]
    assert main.find("quote") is not None and "pips" in main.find("quote").text
    assert main.find("code").text == "weight = 12\ntotal = 30"
    assert main.find(".//ref").get("target") == "https://www.example.org/pears"
    assert main.find(".//graphic").get("src") == "https://www.example.org/crates.jpg"
    comments = root.find("comments")
    assert comments is not None and "Lovely crop" in "".join(comments.itertext())
    assert "Lovely crop" not in "".join(main.itertext())


def test_xml_without_comments_has_no_comments_element():
    root = ET.fromstring(extract(output="xml"))
    assert root.find("comments") is None and "Lovely" not in "".join(root.itertext())


def test_xml_escapes_and_strips_what_xml_cannot_hold():
    html = (b"<html><body><p>Fish &amp; chips &lt;b&gt; and a bell \x07 rang in the quiet market square.</p>"
            b"</body></html>")
    root = ET.fromstring(thresher.extract(html, params=KEEP_ALL, output="xml"))
    assert "Fish & chips <b> and a bell" in "".join(root.itertext())


@pytest.mark.parametrize("options", [{}, {"include_comments": True, "include_images": True, "include_links": True,
                                          "include_formatting": True}])
def test_xmltei_is_valid_tei(options):
    lxml_etree = pytest.importorskip("lxml.etree", reason="lxml is needed to validate TEI")
    trafilatura_xml = pytest.importorskip(
        "trafilatura.xml", reason="TEI validation uses trafilatura's DTD: pip install 'thresher[test]'")
    out = extract(output="xmltei", **options)
    assert trafilatura_xml.validate_tei(lxml_etree.fromstring(out.encode("utf-8")))
    root = ET.fromstring(out)
    assert root.tag == "{http://www.tei-c.org/ns/1.0}TEI"
    assert "The apples came in early" in "".join(root.itertext())


def test_xmltei_of_an_empty_result_is_valid():
    lxml_etree = pytest.importorskip("lxml.etree", reason="lxml is needed to validate TEI")
    trafilatura_xml = pytest.importorskip("trafilatura.xml", reason="TEI validation uses trafilatura's DTD")
    html = b"<html><body><nav><a href=/>Home</a></nav></body></html>"
    out = thresher.extract(html, params=flagship.Params(threshold=1.01, never_empty=False), output="xmltei")
    assert trafilatura_xml.validate_tei(lxml_etree.fromstring(out.encode("utf-8")))


def test_csv_has_trafilaturas_columns():
    assert COLUMNS == ("url", "id", "fingerprint", "hostname", "title", "image", "date", "text", "comments",
                       "license", "pagetype")
    rows = list(csv.reader(io.StringIO(extract(output="csv", include_comments=True)), delimiter="\t"))
    assert len(rows) == 1
    row = dict(zip(COLUMNS, rows[0]))
    assert row["url"] == URL and row["hostname"] == "example.org" and row["title"] == "Harvest notes"
    assert row["date"] == "2023-09-14" and row["id"] == "null" and row["license"] == "null"
    assert "apples came in early" in row["text"] and "Lovely crop" not in row["text"]
    assert "Lovely crop" in row["comments"]
    assert len(row["fingerprint"]) == 16
    no_comments = dict(zip(COLUMNS, next(csv.reader(io.StringIO(extract(output="csv")), delimiter="\t"))))
    assert no_comments["comments"] == "null"


def test_csv_header_row():
    from thresher.render.csv_out import render

    result = thresher.extract_result(PAGE, URL, params=KEEP_ALL)
    lines = render(result, header=True).split("\n")
    assert lines[0].split("\t") == list(COLUMNS)
