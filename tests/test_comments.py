"""Comment sections as their own output (golden pages in tests/golden/comments).

Each page has ``NAME.expected.txt`` (the default text: no comment in it) and
``NAME.expected-comments.txt`` (``Result.comments``; empty on the forum thread, whose posts
are its content).
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import thresher
from thresher.document.blocks import build_document
from thresher.filters import (
    ENTRY,
    NAMED,
    SECTION,
    CommentParams,
    blocks_with,
    comment_headings,
    comment_sections,
    is_comment_heading,
    is_forum,
)

GOLDEN = Path(__file__).parent / "golden" / "comments"
PAGES = ("wordpress", "disqus", "commentlist", "forum", "bare-heading")
WITH_COMMENTS = ("wordpress", "disqus", "commentlist")


def page(name: str) -> bytes:
    return (GOLDEN / f"{name}.html").read_bytes()


def expected(name: str, kind: str) -> str:
    return (GOLDEN / f"{name}.{kind}.txt").read_text(encoding="utf-8").rstrip("\n")


@pytest.mark.parametrize("name", PAGES)
def test_golden_text_and_comments(name: str) -> None:
    result = thresher.extract_result(page(name))
    assert result.text == expected(name, "expected")
    assert result.comments == expected(name, "expected-comments")


@pytest.mark.parametrize("name", WITH_COMMENTS)
def test_three_or_more_comments_are_found_and_kept_out_of_the_text(name: str) -> None:
    comments = expected(name, "expected-comments")
    paragraphs = comments.split("\n\n")
    assert len(paragraphs) >= 3
    text = thresher.extract(page(name))
    assert not any(p in text for p in paragraphs)


@pytest.mark.parametrize("name", WITH_COMMENTS)
def test_include_comments_appends_them_to_text_and_markdown_once(name: str) -> None:
    main, comments = expected(name, "expected"), expected(name, "expected-comments")
    assert thresher.extract(page(name), include_comments=True) == f"{main}\n\n{comments}"
    markdown = thresher.extract(page(name), output="markdown", include_comments=True)
    plain = thresher.extract(page(name), output="markdown")
    assert markdown.startswith(plain) and len(markdown) > len(plain)
    last = comments.split("\n\n")[-1]
    assert markdown.count(last.split()[0] + " " + last.split()[1]) >= 1
    assert markdown.rstrip().endswith(last.rstrip(".")[-20:] + ".") or last[-20:] in markdown


def test_wordpress_comments_are_entries_in_order_without_replies_or_the_form() -> None:
    comments = expected("wordpress", "expected-comments")
    assert comments.index("Tom Hale") < comments.index("Ruth says") < comments.index("Meg")
    for chrome in ("Reply", "Leave a Reply", "Post Comment", "3 thoughts", "email address"):
        assert chrome not in comments


def test_forum_posts_stay_content_and_are_not_comments() -> None:
    result = thresher.extract_result(page("forum"))
    assert result.page_type == "forum"
    assert any(result.comment_sections)  # the posts look like comments ...
    assert result.comments == ""  # ... but on a forum they are the content
    for post in ("pressure gauge", "relief valve", "registered engineer"):
        assert post in result.text
    assert thresher.extract(page("forum"), include_comments=True) == result.text


def test_a_bare_comments_heading_after_the_article_is_not_text() -> None:
    assert not expected("bare-heading", "expected").endswith("Comments")
    assert "Comments" not in thresher.extract(page("commentlist"))
    assert is_comment_heading("3 thoughts on “Pruning an old pear tree”")
    assert is_comment_heading("Leave a Reply") and is_comment_heading("Kommentare (12)")
    assert not is_comment_heading("How the tree was pruned") and not is_comment_heading("Parting Thoughts")
    assert is_comment_heading("12 Responses to “Swifts”")


def test_json_xml_and_tei_carry_the_comments() -> None:
    html, comments = page("wordpress"), expected("wordpress", "expected-comments")
    data = json.loads(thresher.extract(html, output="json", include_comments=True))
    assert data["comments"] == comments and "Tom Hale" not in data["text"]
    assert json.loads(thresher.extract(html, output="json"))["comments"] == ""
    root = ET.fromstring(thresher.extract(html, output="xml", include_comments=True))
    section = root.find("comments")
    assert section is not None
    assert [" ".join("".join(e.itertext()).split()) for e in section.iter() if e.tag in ("p", "item")] \
        == comments.split("\n\n")
    assert "Tom Hale" not in "".join(root.find("main").itertext())  # type: ignore[union-attr]
    assert ET.fromstring(thresher.extract(html, output="xml")).find("comments") is None
    tei = ET.fromstring(thresher.extract(html, output="xmltei", include_comments=True))
    ns = {"tei": "http://www.tei-c.org/ns/1.0"}
    division = tei.find(".//tei:div[@type='comments']", ns)
    assert division is not None
    paragraphs = [" ".join("".join(e.itertext()).split()) for e in division.iter()
                  if e.tag.endswith(("}p", "}item"))]
    assert paragraphs == comments.split("\n\n")


def test_section_bits_of_the_commentlist_page() -> None:
    result = thresher.extract_result(page("commentlist"))
    bits = comment_sections(result.document)
    texts = [(b.text, int(bits[b.index])) for b in result.document.blocks if bits[b.index]]
    entry = NAMED | SECTION | ENTRY
    assert texts == [
                     ("Rye makes the dough sticky, so wet your hands rather than flouring them.", entry),
                     ("A night in the fridge is exactly what gives the blisters.", entry),
                     ("Lovely write-up, I am going to try the lidded pot.", entry)]


def test_trafilatura_finds_the_same_wordpress_comments() -> None:
    trafilatura = pytest.importorskip("trafilatura")
    theirs = trafilatura.extract(page("wordpress").decode(), include_comments=True, output_format="json")
    ours = expected("wordpress", "expected-comments").split("\n\n")
    found = json.loads(theirs)["comments"]
    for comment in ours[2::3]:  # the comments' own paragraphs
        assert comment in found


WORDS = ("river", "bridge", "garden", "winter", "market", "lantern", "harbour", "orchard", "meadow", "station")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(comments=st.lists(st.lists(st.sampled_from(WORDS), min_size=4, max_size=14), min_size=3, max_size=7),
       names=st.lists(st.sampled_from(("Ann", "Bob", "Cy", "Dee", "Eli")), min_size=7, max_size=7))
def test_comments_are_never_main_text_and_appended_once(comments: list[list[str]], names: list[str]) -> None:
    entries = "".join(
        f'<li class="comment"><div class="comment-author vcard"><b class="fn">{names[i]}</b></div>'
        f'<div class="comment-metadata"><time datetime="2024-01-0{i + 1}">{i + 1} January 2024</time></div>'
        f'<div class="comment-content"><p>{" ".join(words).capitalize()}.</p></div>'
        f'<div class="reply"><a href="?replytocom={i}#respond">Reply</a></div></li>'
        for i, words in enumerate(comments))
    html = page("wordpress").decode().replace(
        page("wordpress").decode().split('<ol class="comment-list">')[1].split("</ol>\n<div id=\"respond\"")[0],
        entries).encode()
    result = thresher.extract_result(html)
    texts = [" ".join(words).capitalize() + "." for words in comments]
    assert result.comments.split("\n\n")[2::3] == texts
    main = thresher.extract(html)
    assert not any(text in main for text in texts)
    assert thresher.extract(html, include_comments=True) == f"{main}\n\n{result.comments}"


# A page whose blocks are comment titles and other text, in turn.
_TITLES_PAGE = "".join(
    f"<h2>Comments</h2><p>Paragraph {i} of the article, long enough to be text.</p><p>Leave a reply</p>"
    for i in range(4))


def _headings_one_by_one(doc, keep, sections):
    """comment_headings read as its rule says: every kept block from the end."""
    drop, trailing = [False] * len(keep), True
    for index in reversed([i for i, k in enumerate(keep) if k]):
        before = index + 1 < len(sections) and bool(sections[index + 1])
        block = doc.blocks[index]
        short = block.word_count <= CommentParams().short_title_words
        title = (block.is_heading or short) and is_comment_heading(block.text)
        trailing = trailing and title
        drop[index] = title and (trailing or before)
    return drop


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=12, max_size=12))
def test_comment_headings_are_the_titles_at_the_end_or_before_a_section(bits):
    doc = build_document(_TITLES_PAGE)
    assert len(doc.blocks) == 12
    keep, sections = [k for k, _ in bits], [s for _, s in bits]
    assert comment_headings(doc, keep, sections) == _headings_one_by_one(doc, keep, sections)
    assert is_forum(keep, sections, "forum") == any(k and s for k, s in bits)
    assert not is_forum(keep, sections, "article")


def test_blocks_with_reads_one_bit_of_each_block():
    sections = bytes([0, NAMED, SECTION, ENTRY | SECTION, 255])
    assert blocks_with(sections, SECTION) == [False, False, True, True, True]
    assert blocks_with(sections, ENTRY) == [False, False, False, True, True]
    assert blocks_with(b"", NAMED) == []
