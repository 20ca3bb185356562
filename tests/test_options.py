"""trafilatura's content switches through thresher.extract: each one does what it says."""
from __future__ import annotations

import dataclasses
import json

import pytest

import thresher
from thresher.algorithms import flagship
from thresher.options import Options, SeenTexts, options_from

KEEP_ALL = flagship.Params(threshold=0.0)  # the flagship keeps every block: the switches alone decide

ARTICLE = ("<p>The river rose slowly through the night, and by morning the lower fields of the valley "
           "were under a sheet of brown water that reached the hedges.</p>"
           "<p>Farmers moved their cattle to the high pasture before dawn, working by torchlight along "
           "the old drove road above the flooded meadows.</p>")


def page(body: str = "", head: str = "<title>Flood in the valley</title>", lang: str = "en") -> bytes:
    return (f"<html lang={lang}><head>{head}</head><body><article><h1>Flood in the valley</h1>{ARTICLE}"
            f"{body}</article></body></html>").encode()


def extract(html: bytes, **options) -> str:
    return thresher.extract(html, "https://news.example.org/flood", params=KEEP_ALL, **options)


COMMENTS = ('<div id="comments" class="comment-list"><p>What a terrible night for everyone living down '
            'by the river, stay safe.</p></div>')
TABLE = "<table><tr><td>Rainfall in millimetres</td><td>Forty two</td></tr></table>"


def test_unknown_keyword_raises_type_error_listing_the_valid_ones():
    with pytest.raises(TypeError) as info:
        thresher.extract(page(), foo=1)  # type: ignore[call-arg]
    assert "'foo'" in str(info.value)
    with pytest.raises(TypeError):
        thresher.extract_result(page(), tables=False)  # type: ignore[call-arg]
    with pytest.raises(TypeError) as info:
        options_from({"foo": 1})
    assert "'foo'" in str(info.value) and "include_comments" in str(info.value)


def test_the_api_is_keyword_only():
    with pytest.raises(TypeError):
        thresher.extract(page(), None, "thresher")  # type: ignore[misc]


def test_options_are_frozen_and_validated_once():
    options = Options(prune="div.ad")
    assert options.prune == ("div.ad",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.output = "xml"  # type: ignore[misc]
    with pytest.raises(ValueError):
        Options(output="pdf")
    with pytest.raises(ValueError):
        Options(favor_precision=True, favor_recall=True)
    with pytest.raises(ValueError):
        Options(prune=("p >",))
    assert options_from({"links": True}).include_links


def test_comment_sections_are_dropped_unless_include_comments():
    html = page(COMMENTS)
    assert "stay safe" not in extract(html)
    assert "stay safe" in extract(html, include_comments=True)
    assert "lower fields" in extract(html)


def test_comment_detector_reads_id_and_class_words():
    for wrapper in ('<div class="disqus_thread">', '<section id="respond">', '<ol class="post-replies">'):
        html = page(f"{wrapper}<p>Reader words that belong to the discussion below.</p></div>")
        assert "Reader words" not in extract(html), wrapper
    html = page('<div class="commentary-box"><p>Not a comment section at all, just prose.</p></div>')
    assert "Not a comment section" in extract(html)


def test_include_comments_runs_dragnets_comment_model():
    result = thresher.extract_result(page(COMMENTS), algorithm="dragnet", include_comments=True)
    assert result.algorithm == "dragnet-comments"
    assert thresher.extract_result(page(COMMENTS), algorithm="dragnet").algorithm == "dragnet"


def test_include_tables_false_drops_table_text():
    html = page(TABLE)
    assert "Rainfall" in extract(html)
    assert "Rainfall" not in extract(html, include_tables=False)
    assert "lower fields" in extract(html, include_tables=False)


def test_include_links_writes_markdown_links():
    html = page('<p>Read the <a href="/report">full flood report</a> from the council office today.</p>')
    assert "](https://news.example.org/report)" in extract(html, output="markdown", include_links=True)
    assert "](" not in extract(html, output="markdown")


def test_include_formatting_controls_bold_and_italic():
    html = page("<p>The water was <b>very cold</b> and <i>fast</i> all through the morning hours.</p>")
    assert "**very cold**" in extract(html, output="markdown")
    plain = extract(html, output="markdown", include_formatting=False)
    assert "very cold" in plain and "**" not in plain and "*fast*" not in plain
    assert '<hi rend="#b">very cold</hi>' in extract(html, output="xml", include_formatting=True)
    assert "<hi" not in extract(html, output="xml")


def test_include_images_writes_graphics():
    html = page('<figure><img src="/flood.jpg" alt="The flooded meadow"><figcaption>The meadow at dawn, '
                'under water.</figcaption></figure>')
    xml = extract(html, output="xml", include_images=True)
    assert 'src="https://news.example.org/flood.jpg"' in xml and 'alt="The flooded meadow"' in xml
    assert "<graphic" not in extract(html, output="xml")


def test_with_metadata_adds_yaml_front_matter():
    head = ('<title>Flood in the valley</title><meta name="author" content="Ann Reed">'
            '<meta property="article:published_time" content="2024-03-02">')
    text = extract(page(head=head), with_metadata=True)
    front, _, body = text.partition("\n---\n")
    assert front.startswith("---\n")
    assert 'title: "Flood in the valley"' in front and 'author: "Ann Reed"' in front
    assert 'date: "2024-03-02"' in front and 'hostname: "news.example.org"' in front
    assert body.startswith("Flood in the valley")
    assert not extract(page(head=head)).startswith("---")
    assert extract(page(head=head), output="markdown", with_metadata=True).startswith("---\n")


def test_only_with_metadata_empties_pages_without_date():
    dated = page(head='<title>Flood</title><meta property="article:published_time" content="2024-03-02">')
    assert extract(page(), only_with_metadata=True) == ""
    assert "lower fields" in extract(dated, only_with_metadata=True)
    result = thresher.extract_result(page(), only_with_metadata=True)
    assert "date" in result.rejected and result.kept == []


def test_target_language_empties_pages_in_another_language():
    assert "lower fields" in extract(page(), target_language="en")
    assert extract(page(), target_language="de") == ""


def test_deduplicate_drops_text_already_kept():
    repeated = page("<p>Subscribe to our newsletter for the latest valley news every week.</p>" * 2)
    assert extract(repeated).count("Subscribe") == 2
    assert extract(repeated, deduplicate=True).count("Subscribe") == 1
    seen = SeenTexts(maxsize=100)
    first = extract(page(), deduplicate=seen)
    second = extract(page(), deduplicate=seen)
    assert "lower fields" in first and "lower fields" not in second


def test_seen_texts_is_a_bounded_lru():
    seen = SeenTexts(maxsize=2, min_chars=1)
    assert not seen.seen_enough("a") and not seen.seen_enough("b")
    assert seen.seen_enough("a")  # a is now the most recent
    assert not seen.seen_enough("c")  # evicts b
    assert len(seen) == 2 and not seen.seen_enough("b")


def test_prune_removes_matching_elements_before_classification():
    html = page('<div class="promo"><p>Buy our flood insurance today with a discount for readers.</p></div>')
    assert "insurance" in extract(html)
    assert "insurance" not in extract(html, prune="div.promo")
    assert "insurance" not in extract(html, prune=["aside", "article > .promo"])
    result = thresher.extract_result(html, params=KEEP_ALL, prune="div.promo")
    assert all("insurance" not in block.text for block in result.blocks)
    assert [b.index for b in result.blocks] == list(range(len(result.blocks)))


def test_favor_precision_and_recall_reach_the_flagship():
    html = page()
    for switch in ("favor_precision", "favor_recall"):
        assert "lower fields" in thresher.extract(html, **{switch: True})
    assert thresher.api.tuned_params(thresher.algorithms.get("thresher"),
                                     Options(favor_precision=True)).beta < 1
    assert thresher.api.tuned_params(thresher.algorithms.get("thresher"), Options(favor_recall=True)).beta > 1


def test_json_output_keeps_its_options():
    data = json.loads(extract(page(), output="json", blocks=True, indent=2))
    assert data["blocks"] and "lower fields" in data["text"]


def test_comment_detector_ignores_page_state_classes_and_whole_page_wrappers():
    html = page(COMMENTS).replace(b"<body>", b'<body class="single comments-open">')
    html = html.replace(b"<article>", b'<article class="post has-comments">')
    text = extract(html)
    assert "lower fields" in text and "stay safe" not in text


def test_a_forum_threads_posts_are_kept_however_they_are_named():
    thread = "".join(f'<div class="comment"><p>Reply number {i}: the pump at the mill failed again during the '
                     f'storm, so the lane flooded up to the gate.</p></div>' for i in range(6))
    html = f"<html><body><h1>Pump trouble</h1>{thread}</body></html>".encode()
    result = thresher.extract_result(html, "https://news.example.org/flood", params=KEEP_ALL)
    assert result.page_type == "forum" and result.comments == ""
    assert extract(html).count("Reply number") == 6


def test_comments_that_outweigh_a_short_article_are_not_its_text():
    thread = "".join(f'<li class="comment"><p>Reader {i}: the pump at the mill failed again during the storm, so '
                     f'the lane flooded up to the gate and the ducks moved in.</p></li>' for i in range(8))
    html = (b'<html><head><meta property="og:type" content="article"></head><body><article><h1>Mill pump</h1>'
            b"<p>The council says the mill pump will be replaced in the spring.</p></article>"
            + f'<ol class="comment-list">{thread}</ol></body></html>'.encode())
    result = thresher.extract_result(html, "https://news.example.org/flood", params=KEEP_ALL)
    assert result.page_type != "forum"
    assert "Reader" not in result.text and "replaced in the spring" in result.text
    assert result.comments.count("Reader") == 8


def test_comment_params_are_frozen():
    from thresher.filters import CommentParams

    with pytest.raises(dataclasses.FrozenInstanceError):
        CommentParams().max_share = 1.0  # type: ignore[misc]


def test_include_images_puts_the_content_s_images_in_markdown_and_html():
    text = b"A paragraph about the picture in it, long enough to be the content of the page. " * 4
    page = (b"<html><head><title>Pictures</title></head><body><article><h1>Pictures</h1><p>" + text
            + b"<img src='/img/a.png' alt='A picture'>" + text + b"</p></article></body></html>")
    url = "https://example.com/post/"
    assert "![" not in thresher.extract(page, url, output="markdown")
    assert "![A picture](https://example.com/img/a.png)" in thresher.extract(page, url, output="markdown",
                                                                            include_images=True)
    assert "<img" in thresher.extract(page, url, output="html", include_images=True)
    assert "a.png" not in thresher.extract(page, url, include_images=True)  # never in text
