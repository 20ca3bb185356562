"""Metadata extraction: sources, priorities, cleaning and a match-rate floor on wcxb-dev."""
from __future__ import annotations

import dataclasses
import gzip
import json
import re
import unicodedata

import pytest

from thresher.document.blocks import build_document
from thresher.inference.pagetype import PAGE_TYPES
from thresher.metadata import (
    Metadata,
    clean_author,
    extract_metadata,
    find_date_in_text,
    normalize_date,
    site_keys,
    strip_site_name,
)

URL = "https://www.example.com/news/2024/story.html"


def page(head: str = "", body: str = "", url: str | None = URL, lang: str = "") -> Metadata:
    lang_attr = f' lang="{lang}"' if lang else ""
    html = f"<html{lang_attr}><head>{head}</head><body>{body}</body></html>"
    return extract_metadata(build_document(html, url))


def ld(obj) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


def meta(key: str, content: str, attr: str = "name") -> str:
    return f'<meta {attr}="{key}" content="{content}">'


ARTICLE = {"@context": "https://schema.org", "@type": "NewsArticle",
           "headline": "Ld headline", "author": {"@type": "Person", "name": "Ld Author"},
           "datePublished": "2021-02-03T10:00:00+01:00"}


# ------------------------------------------------------------------ record

def test_metadata_is_frozen_with_string_fields_and_tuple_tags():
    result = page()
    assert isinstance(result, Metadata)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.title = "x"  # type: ignore[misc]
    for field in dataclasses.fields(Metadata):
        value = getattr(result, field.name)
        assert isinstance(value, tuple if field.name == "tags" else str), field.name


def test_empty_page_gives_empty_fields_and_host_as_site_name():
    result = page()
    assert (result.title, result.author, result.date) == ("", "", "")
    assert result.site_name == "example.com"
    assert result.url == URL


# ------------------------------------------------------------------ title

def test_title_og_beats_twitter_beats_json_ld_beats_title_element():
    og = meta("og:title", "Og headline", "property")
    tw = meta("twitter:title", "Twitter headline")
    title = "<title>Element headline</title>"
    assert page(title + og + tw + ld(ARTICLE)).title == "Og headline"
    assert page(title + tw + ld(ARTICLE)).title == "Twitter headline"
    assert page(title + ld(ARTICLE)).title == "Ld headline"
    assert page(title).title == "Element headline"


def test_h1_wins_when_it_agrees_with_a_declared_title():
    head = "<title>Ten ways to bake bread at home | Example</title>"
    body = "<h1>Ten ways to bake bread at home, tested</h1><p>Text.</p>"
    assert page(head, body).title == "Ten ways to bake bread at home, tested"


def test_h1_that_disagrees_with_the_declared_title_is_ignored():
    head = meta("og:title", "Ten ways to bake bread at home", "property")
    body = "<h1>Example News</h1><p>Text.</p>"
    assert page(head, body).title == "Ten ways to bake bread at home"


def test_h1_equal_to_the_first_title_segment_wins():
    head = "<title>News | National Student Support Accelerator</title>"
    assert page(head, "<h1>News</h1>").title == "News"


def test_title_site_suffix_removed_when_it_is_the_site_name():
    head = meta("og:site_name", "The Daily Planet", "property") + \
        "<title>A rather long story about nothing at all - The Daily Planet</title>"
    assert page(head).title == "A rather long story about nothing at all"


def test_strip_site_name_variants():
    keys = site_keys(["Example Times"], "www.example.com")
    assert strip_site_name("Story of the year | Example Times", keys) == "Story of the year"
    assert strip_site_name("Story of the year — Example", keys) == "Story of the year"
    assert strip_site_name("Example Times: Story of the year here", keys) == \
        "Example Times: Story of the year here"  # ":" needs spaces around to separate
    assert strip_site_name("Example Times | Story of the year", keys) == "Story of the year"
    # repeated site segments all go
    assert strip_site_name("Story of the year - Example - Example Times", keys) == "Story of the year"
    # a short unknown suffix goes; a long one stays
    assert strip_site_name("Story of the year | Some Blog") == "Story of the year"
    assert strip_site_name("Part one | a long second part that is really the title") == \
        "Part one | a long second part that is really the title"
    # acronym of a host label
    nssa = site_keys([], "nssa.stanford.edu")
    assert strip_site_name("News | National Student Support Accelerator", nssa) == "News"


def test_title_entities_are_unescaped():
    head = meta("og:title", "Fish &amp;#038; Chips: a &#8220;history&#8221;", "property")
    assert page(head).title == "Fish & Chips: a \u201chistory\u201d"


# ----------------------------------------------------------------- author

def test_author_json_ld_beats_meta_beats_page():
    body = '<h1>Story</h1><p class="byline">By Page Author</p><p>Text.</p>'
    head_meta = meta("author", "Meta Author")
    assert page(ld(ARTICLE) + head_meta, body).author == "Ld Author"
    assert page(head_meta, body).author == "Meta Author"
    assert page("", body).author == "Page Author"


def test_author_list_and_string_forms():
    obj = dict(ARTICLE, author=[{"@type": "Person", "name": "Ann One"}, "Bob Two",
                                {"@type": "Person", "name": "Ann One"}])
    assert page(ld(obj)).author == "Ann One, Bob Two"
    assert page(ld(dict(ARTICLE, author="Solo Writer"))).author == "Solo Writer"


def test_long_author_lists_survive_and_are_capped():
    people = [{"@type": "Person", "name": f"Contributor Number{i:02d} Longname"} for i in range(30)]
    names = page(ld(dict(ARTICLE, author=people))).author.split(", ")
    assert len(names) == 20 and names[0] == "Contributor Number00 Longname"


def test_space_separated_meta_keys_and_twitter_labels():
    head = '<meta property="dc:creator og:site_name" content="Shared Value">'
    assert (page(head).author, page(head).site_name) == ("Shared Value", "Shared Value")
    head = meta("twitter:label1", "Written by") + meta("twitter:data1", "Card Author")
    assert page(head).author == "Card Author"


def test_author_url_values_are_skipped():
    head = meta("article:author", "https://www.facebook.com/someone", "property") + \
        meta("parsely-author", "Real Name")
    assert page(head).author == "Real Name"


def test_graph_with_id_references():
    graph = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebSite", "@id": "https://x/#site", "name": "Graph Site"},
        {"@type": "Article", "headline": "Graph headline", "author": {"@id": "https://x/#p"},
         "publisher": {"@id": "https://x/#org"}, "datePublished": "2019-12-31"},
        {"@type": "Person", "@id": "https://x/#p", "name": "Graph Person"},
        {"@type": "Organization", "@id": "https://x/#org", "name": "Graph Org"}]}
    result = page(ld(graph))
    assert (result.title, result.author, result.date) == ("Graph headline", "Graph Person", "2019-12-31")
    assert result.site_name == "Graph Org"
    assert result.declared_type == "Article"


def test_malformed_json_ld_is_ignored():
    broken = '<script type="application/ld+json">{"@type": "Article", "headline": </script>'
    result = page(broken + ld(ARTICLE))
    assert result.title == "Ld headline"
    assert page(broken + meta("author", "Meta Author")).author == "Meta Author"


def test_in_page_bylines():
    assert page("", '<h1>T</h1><a rel="author" href="/u/x">Rel Author</a>').author == "Rel Author"
    assert page("", '<h1>T</h1><span itemprop="author" itemscope><span itemprop="name">'
                    'Prop Author</span> Staff</span>').author == "Prop Author"
    body = ('<h1>T</h1><div class="post-author"><span>By</span> <a href="/a">Ann Lee</a>'
            '<span>Senior editor</span></div>')
    assert page("", body).author == "Ann Lee"
    assert page("", "<h1>T</h1><p>By Jane Roe | March 3, 2020</p>").author == "Jane Roe"


def test_in_page_byline_rejects_ui_words_and_prose():
    assert page("", '<h1>T</h1><div class="author">Comment</div>').author == ""
    assert page("", "<h1>T</h1><p>By the end of this course you will know.</p>").author == ""
    assert page("", '<h1>T</h1><div class="author-avatar">Ann Lee</div>').author == ""


def test_byline_far_from_the_headline_is_ignored():
    filler = "".join(f"<p>Paragraph {i}.</p>" for i in range(60))
    body = f"<h1>Story</h1>{filler}<p class=\"byline\">By Far Away</p>"
    assert page("", body).author == ""


def test_clean_author():
    assert clean_author("By John Smith") == "John Smith"
    assert clean_author("Written by: Jane Doe") == "Jane Doe"
    assert clean_author("Dr. Vahid Osman - Mar 27, 2024") == "Dr. Vahid Osman"
    assert clean_author("Luke Kim December 17, 2025") == "Luke Kim"
    assert clean_author("Byron Bay") == "Byron Bay"
    assert clean_author("x" * 120) == ""
    assert clean_author("https://twitter.com/someone") == ""


def test_hostile_nested_author_elements_stay_cheap_and_sane():
    body = "<h1>T</h1>" + '<div class="author">' * 3000 + "Deep Name" + "</div>" * 3000
    result = page("", body)
    assert result.author in ("", "Deep Name")


# ------------------------------------------------------------------- date

def test_date_json_ld_beats_meta_beats_time_element():
    time_el = '<h1>T</h1><time datetime="2001-01-01">Jan 1</time>'
    head_meta = meta("article:published_time", "2010-05-06T07:08:09Z", "property")
    assert page(ld(ARTICLE) + head_meta, time_el).date == "2021-02-03"
    assert page(head_meta, time_el).date == "2010-05-06"
    assert page("", time_el).date == "2001-01-01"


def test_date_written_near_the_headline():
    assert page("", "<h1>T</h1><p>Published September 1st, 2023</p>").date == "2023-09-01"
    assert page("", "<h1>T</h1><p>" + "Long prose. " * 30 + "on May 5, 2020.</p>").date == ""


@pytest.mark.parametrize("value, expected", [
    ("2025-09-04T12:00:00+02:00", "2025-09-04"),
    ("2025/9/4", "2025-09-04"),
    ("20240105", "2024-01-05"),
    ("1693526400", "2023-09-01"),
    ("July 24, 2025", "2025-07-24"),
    ("24 July 2025", "2025-07-24"),
    ("Thu, 04 Sep 2025 10:00:00 GMT", "2025-09-04"),
    ("2025-02-30", ""),
    ("yesterday", ""),
    ("", ""),
])
def test_normalize_date(value, expected):
    assert normalize_date(value) == expected


def test_numeric_dates_follow_dayfirst_unless_unambiguous():
    assert find_date_in_text("05/06/2023") == "2023-05-06"
    assert find_date_in_text("05/06/2023", dayfirst=True) == "2023-06-05"
    assert find_date_in_text("25/06/2023") == "2023-06-25"
    assert find_date_in_text("Posted 3rd of March 2022 at noon") == "2022-03-03"


def test_htmldate_is_opt_in():
    html = "<html><head><title>T</title></head><body><p>No date here.</p></body></html>"
    url = "https://example.com/2021/03/04/story-slug"
    doc = build_document(html, url)
    assert extract_metadata(doc).date == ""
    assert extract_metadata(doc, use_htmldate=True, html=html).date == "2021-03-04"


# ----------------------------------------------------------- other fields

def test_site_name_sources():
    assert page(meta("og:site_name", "Og Site", "property") +
                meta("application-name", "App Name")).site_name == "Og Site"
    assert page(meta("application-name", "App Name")).site_name == "App Name"
    assert page(ld({"@type": "WebSite", "name": "Ld Site"})).site_name == "Ld Site"
    assert page(url=None).site_name == ""


def test_description_url_image_tags_type_language():
    head = (meta("description", "Plain description") + meta("og:description", "Og description", "property")
            + meta("og:url", "https://example.com/canonical", "property")
            + meta("og:image", "https://example.com/i.png", "property")
            + meta("article:tag", "Alpha", "property") + meta("article:tag", "Beta", "property")
            + meta("keywords", "beta, gamma ,delta") + meta("og:type", "article", "property"))
    result = page(head, lang="de-AT")
    assert result.description == "Og description"
    assert result.url == "https://example.com/canonical"
    assert result.image == "https://example.com/i.png"
    assert result.tags == ("Alpha", "Beta", "gamma", "delta")
    assert result.declared_type == "article"
    assert result.page_type in PAGE_TYPES  # predicted, whatever the page declares
    assert result.language == "de"
    assert extract_metadata(build_document("<html lang='de'><p>x</p></html>"), "fr").language == "fr"


def test_tags_are_capped():
    keywords = ", ".join(f"k{i}" for i in range(50))
    assert len(page(meta("keywords", keywords)).tags) == 20


def test_canonical_link_in_body_is_used():
    result = page("", '<link rel="canonical" href="https://example.com/c"><p>x</p>')
    assert result.url == "https://example.com/c"


# ------------------------------------------------------------ dataset floor

def _norm(text: str | None) -> str:
    text = unicodedata.normalize("NFKC", text or "").casefold()
    text = re.sub(r"[\u2018\u2019]", "'", text)
    text = re.sub(r"[\u201c\u201d]", '"', text)
    text = re.sub(r"[\u2010-\u2015]", "-", text)
    return re.sub(r"\s+", " ", text).strip().strip(".,:;!?\"'")


def _names(text: str | None) -> tuple[str, ...]:
    text = re.sub(r"^by\s+", "", _norm(text))
    return tuple(part.strip() for part in re.split(r",|&|\band\b", text) if part.strip())


# Measured 2026-11-22 on this subset (every 10th page of wcxb-dev, 150 pages; rates over the
# pages with a ground-truth value): title 117/150 = 0.780, author 67/79 = 0.848,
# date 64/76 = 0.842. The floors are 0.03 lower.
FLOORS = {"title": 0.750, "author": 0.818, "date": 0.812}


@pytest.mark.slow
def test_match_rates_on_wcxb_dev_subset(shared_dir):
    from thresher.document.decode import decode

    root = shared_dir / "datasets" / "wcxb-dev"
    hits = {field: 0 for field in FLOORS}
    totals = {field: 0 for field in FLOORS}
    for truth_file in sorted((root / "ground-truth").glob("*.json"))[::10]:
        truth = json.loads(truth_file.read_text(encoding="utf-8"))
        expected = truth.get("ground_truth", {})
        raw = gzip.decompress((root / "html" / f"{truth_file.stem}.html.gz").read_bytes())
        found = extract_metadata(build_document(decode(raw).text, truth.get("url")))
        checks = {
            "title": (expected.get("title"), lambda want, found=found: _norm(want) == _norm(found.title)),
            "author": (expected.get("author"), lambda want, found=found: _names(want) == _names(found.author)),
            "date": (expected.get("publish_date"), lambda want, found=found: want[:10] == found.date),
        }
        for field, (want, matches) in checks.items():
            if want:
                totals[field] += 1
                hits[field] += bool(matches(want))
    rates = {field: hits[field] / totals[field] for field in FLOORS}
    for field, floor in FLOORS.items():
        assert rates[field] >= floor, f"{field} match rate {rates[field]:.3f} fell below {floor}"
