"""Renderers: text, markdown, html (purified) and json, over hand-made results."""
from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

import thresher
from thresher.algorithms.base import Classification
from thresher.api import Result
from thresher.document.blocks import build_document
from thresher.metadata import Metadata
from thresher.render import render
from thresher.render.common import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, safe_url
from thresher.render.markdown import escape

URL = "https://example.com/news/story.html"


def result_for(body: str, labels=None, url: str | None = URL, title: str = "A page") -> Result:
    """A result of ``body`` with every block kept (or ``labels``)."""
    doc = build_document(f"<html><head><title>{title}</title></head><body>{body}</body></html>", url)
    chosen = [True] * len(doc.blocks) if labels is None else labels
    classification = Classification.from_labels(chosen, [f"r{i}" for i in range(len(chosen))],
                                                [float(i) for i in range(len(chosen))])
    return Result(doc, classification, "test", "en", Metadata(title=doc.title, url=url or ""))


# ------------------------------------------------------------------ text

def test_text_paragraphs_and_headings():
    result = result_for("<h1>Title</h1><p>First   paragraph\nhere.</p><div>Second</div>")
    assert render(result, "text") == "Title\n\nFirst paragraph here.\n\nSecond"


def test_text_keeps_pre_newlines():
    result = result_for("<p>Intro</p><pre>line one\n  line two</pre>")
    assert render(result, "text") == "Intro\n\nline one\n  line two"


# a highlighter's code block: one element per line, each line a block of its own
LINE_PER_ELEMENT = ('<p>Intro</p><pre class="language-js"><div>if (a) {</div><div>  b();</div><div>}</div></pre>'
                    '<pre><span style="display:block">x</span></pre>')


def test_text_joins_the_lines_of_one_pre_and_keeps_two_pres_apart():
    assert render(result_for(LINE_PER_ELEMENT), "text") == "Intro\n\nif (a) {\n  b();\n}\n\nx"


def test_text_skips_dropped_blocks_and_ignores_options():
    result = result_for("<p>keep</p><p>drop</p><p>keep too</p>", labels=[True, False, True])
    assert render(result, "text", links=True) == "keep\n\nkeep too"


def test_empty_result_renders_empty_text_and_markdown():
    result = result_for("<p>x</p>", labels=[False])
    assert render(result, "text") == "" and render(result, "markdown") == ""


# ------------------------------------------------------------------ markdown

def md(body: str, **options) -> str:
    """Markdown of ``body``, without the title heading unless ``title=True``."""
    return render(result_for(body), "markdown", **{"title": False, **options})


def test_markdown_headings():
    assert md("<h1>One</h1><h3>Three</h3><h6>Six</h6><p>Text.</p>") == "# One\n\n### Three\n\n###### Six\n\nText."


def test_markdown_inline_styles():
    out = md("<p>Some <b>bold</b>, <em>italic</em>, <strong><i>both</i></strong> and <code>a*b</code>.</p>")
    assert out == "Some **bold**, *italic*, ***both*** and `a*b`."


def test_markdown_inline_style_spaces_stay_outside_markers():
    assert md("<p>a<b> bold </b>b</p>") == "a **bold** b"


def test_markdown_lists_nest_by_enclosing_lists():
    out = md("<ul><li>one</li><li>two<ul><li>two a</li></ul></li></ul><ol><li>first</li><li>second</li></ol>")
    assert out == "- one\n- two\n  - two a\n\n1. first\n2. second"


def test_markdown_table_has_header_separator_after_first_row():
    out = md("<table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>1</td></tr></table>")
    assert out == "| Name | Value |\n|---|---|\n| a\\|b | 1 |"


def test_markdown_two_tables_stay_apart():
    out = md("<table><tr><td>a</td><td>1</td></tr></table><p>between</p><table><tr><td>b</td><td>2</td></tr></table>")
    assert out == "| a | 1 |\n|---|---|\n\nbetween\n\n| b | 2 |\n|---|---|"


def test_markdown_fenced_code_keeps_newlines_and_language():
    out = md('<pre class="language-python">def f():\n    return "```"</pre>')
    assert out == '````python\ndef f():\n    return "```"\n````'


def test_markdown_one_fence_per_pre_whose_lines_are_elements():
    assert md(LINE_PER_ELEMENT) == "Intro\n\n```js\nif (a) {\n  b();\n}\n```\n\n```\nx\n```"


def test_markdown_code_lines_around_a_dropped_line_stay_in_one_fence():
    result = result_for("<pre><div>a = 1</div><div>b = 2</div><div>c = 3</div></pre>", labels=[True, False, True])
    assert render(result, "markdown", title=False) == "```\na = 1\nc = 3\n```"


def test_markdown_blockquote():
    assert md("<blockquote><p>Wise words.</p></blockquote><p>After.</p>") == "> Wise words.\n\nAfter."


def test_markdown_links_only_on_request():
    body = '<p>See <a href="../other.html">the other page</a> now.</p>'
    assert md(body) == "See the other page now."
    assert md(body, links=True) == "See [the other page](https://example.com/other.html) now."


def test_markdown_unsafe_links_lose_their_url():
    body = '<p><a href="javascript:alert(1)">click</a> <a href="data:text/html,x">data</a> here</p>'
    assert md(body, links=True) == "click data here"


# (href as written in the page, destination the markdown link must have)
HOSTILE_HREFS = [
    ("https://a.example/x\ny", "https://a.example/xy"),
    ("https://a.example/x&#10;&#13;y\tz", "https://a.example/xyz"),
    ("https://a.example/a b", "https://a.example/a%20b"),
    ("https://a.example/&lt;x&gt;&quot;y&quot;", "https://a.example/%3Cx%3E%22y%22"),
    ("https://a.example/f(x))(", "https://a.example/f%28x%29%29%28"),
    ("https://a.example/%41%zz%", "https://a.example/%41%25zz%25"),
    ("https://a.example/back\\slash`tick`", "https://a.example/back%5Cslash%60tick%60"),
    ("https://a.example/{a}|^", "https://a.example/%7Ba%7D%7C%5E"),
    ("https://a.example/caf\u00e9\u202e\u00a0\u2028x", "https://a.example/caf\u00e9%E2%80%AE%C2%A0%E2%80%A8x"),
    ("https://[::1]/a?b=c&amp;d=e*f#g_h", "https://[::1]/a?b=c&d=e*f#g_h"),
    ("other page.html", "https://example.com/news/other%20page.html"),
]


@pytest.mark.parametrize("href,destination", HOSTILE_HREFS)
def test_markdown_link_destinations_are_percent_encoded(href, destination):
    assert md(f'<p>A <a href="{href}">link</a> here.</p>', links=True) == f"A [link]({destination}) here."


def test_markdown_link_of_control_characters_only_is_no_link():
    result = result_for('<p>A <a href="&#1;&#2;&#10;">link</a> here.</p>', url=None)
    assert render(result, "markdown", links=True, title=False) == "A link here."


def test_markdown_escapes_markup_characters():
    assert md("<p>2 * 3 = 6 and [x] and _y_ but snake_case</p>") == \
        "2 \\* 3 = 6 and \\[x\\] and \\_y\\_ but snake_case"
    assert md("<p># not a heading</p><p>1. not a list</p><p>- nor this</p>") == \
        "\\# not a heading\n\n1\\. not a list\n\n\\- nor this"


def test_markdown_escape_helper_leaves_plain_text_alone():
    assert escape("Plain words, 2020 numbers and a-b dashes.") == "Plain words, 2020 numbers and a-b dashes."


def test_markdown_code_is_not_escaped():
    assert md("<p><code>a_b * [c]</code></p>") == "`a_b * [c]`"


# ------------------------------------------------------------------ html

class TagCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def html_out(body: str, **options) -> str:
    """HTML of ``body``, without the title heading unless ``title=True``."""
    return render(result_for(body), "html", **{"title": False, **options})


def html_out_of(result: Result, **options) -> str:
    return render(result, "html", **{"title": False, **options})


def article_of(out: str) -> str:
    return out.split("<article>\n", 1)[1].split("\n</article>", 1)[0]


def test_html_is_a_full_document():
    out = render(result_for("<p>Hi</p>", title="Tom &amp; Jerry <3"), "html")
    assert out.startswith("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
    assert "<title>Tom &amp; Jerry &lt;3</title>" in out
    assert out.rstrip().endswith("</article></body></html>")
    assert article_of(out) == "<h1>Tom &amp; Jerry &lt;3</h1>\n<p>Hi</p>"


HOSTILE = """
<p onclick="steal()" style="color:red">Hello <b onmouseover="x()">world</b>
<a href="javascript:alert(1)">js</a> <a href=" java&#9;script:alert(2)">tab</a>
<a href="vbscript:msgbox(1)">vb</a> <a href="data:text/html;base64,PHNjcmlwdD4=">data</a>
<a href="/ok" onclick="x()">ok</a><script>alert(3)</script><img src=x onerror="alert(4)">
&lt;script&gt;alert(5)&lt;/script&gt;</p>
<iframe src="https://evil.example"></iframe><style>body{}</style>
"""


def test_html_removes_scripts_handlers_and_unsafe_urls():
    out = html_out(HOSTILE)
    lowered = out.lower()
    for bad in ("<script", "onclick", "onmouseover", "onerror", "javascript:", "vbscript:", "data:",
                "<iframe", "<style", "style=", "<img", "alert(3)"):
        assert bad not in lowered, bad
    assert '<a href="https://example.com/ok">ok</a>' in out
    assert "&lt;script&gt;alert(5)&lt;/script&gt;" in out  # text stays text
    assert "<b>world</b>" in out


def test_html_uses_only_whitelisted_tags_and_attributes():
    body = HOSTILE + """<h2 id="x" class="y">Head</h2><ul><li>a</li><li>b</li></ul>
        <table border="1"><tr><td colspan="2" width="9">c</td></tr></table><pre>x &lt; y</pre>
        <blockquote cite="z"><p>q</p></blockquote><figure><figcaption>cap</figcaption></figure>
        <p><span class="s"><font color="red">flat</font></span> <u>under</u> <em>em</em></p>"""
    parser = TagCollector()
    parser.feed(article_of(html_out(body)))
    assert parser.tags
    for tag, attrs in parser.tags:
        assert tag in ALLOWED_TAGS, tag
        for name, _ in attrs:
            assert name in ALLOWED_ATTRIBUTES.get(tag, ()), (tag, name)


def test_html_text_is_escaped():
    result = result_for("<p>5 &lt; 6 &amp; \"quotes\" &gt; 4</p>")
    assert article_of(render(result, "html", title=False)) == "<p>5 &lt; 6 &amp; \"quotes\" &gt; 4</p>"


def test_html_groups_list_items_and_nests_lists():
    out = article_of(html_out("<ul><li>one</li><li>two<ol><li>two a</li></ol></li><li>three</li></ul>"))
    assert out == "<ul><li>one</li><li>two<ol><li>two a</li></ol></li><li>three</li></ul>"


def test_html_groups_cells_into_rows_and_one_table():
    out = article_of(html_out(
        '<table><tr><th>h1</th><th>h2</th></tr><tr><td colspan="2" onclick="x()">wide</td></tr></table>'))
    assert out == ('<table><tbody><tr><th>h1</th><th>h2</th></tr>'
                   '<tr><td colspan="2">wide</td></tr></tbody></table>')


def test_html_headings_code_quotes_and_inline_wrappers():
    out = article_of(html_out(
        '<h2>Head</h2><pre>a &lt; b\n  c</pre><blockquote><p>q1</p><p>q2</p></blockquote>'
        '<p><span>x <strong>y <i>z</i></strong> <code>k</code></span></p>'))
    assert out == "\n".join([
        "<h2>Head</h2>", "<pre><code>a &lt; b\n  c</code></pre>",
        "<blockquote><p>q1</p>\n<p>q2</p></blockquote>",
        "<p>x <strong>y <i>z</i></strong> <code>k</code></p>"])


def test_html_one_pre_per_pre_whose_lines_are_elements():
    assert article_of(html_out(LINE_PER_ELEMENT)) == "\n".join([
        "<p>Intro</p>", "<pre><code>if (a) {\n  b();\n}</code></pre>", "<pre><code>x</code></pre>"])


def test_html_code_lines_in_a_list_item_are_one_pre():
    out = article_of(html_out("<ol><li>Run:<pre><div>a = 1</div><div>b = 2</div></pre></li><li>Done</li></ol>"))
    assert out == "<ol><li>Run:<pre><code>a = 1\nb = 2</code></pre></li><li>Done</li></ol>"


def test_html_links_option():
    body = '<p><a href="page2.html">next</a> page</p>'
    assert article_of(html_out(body)) == '<p><a href="https://example.com/news/page2.html">next</a> page</p>'
    assert article_of(html_out(body, links=False)) == "<p>next page</p>"


def test_html_line_breaks():
    assert article_of(html_out("<p>line one<br>line two</p>")) == "<p>line one<br>line two</p>"


def test_html_attribute_values_are_escaped():
    out = article_of(html_out('<p><a href="/a?x=1&amp;y=&quot;2&quot;">q</a> text</p>'))
    assert out == '<p><a href="https://example.com/a?x=1&amp;y=&quot;2&quot;">q</a> text</p>'


@pytest.mark.parametrize("href, expected", [
    ("javascript:alert(1)", ""), ("JaVaScRiPt:alert(1)", ""), (" java\tscript:x", ""),
    ("vbscript:x", ""), ("data:text/html,x", ""), ("", ""),
    ("/a", "https://example.com/a"), ("https://b.org/x", "https://b.org/x"),
    ("mailto:me@example.com", "mailto:me@example.com"), ("#top", "https://example.com/news/story.html#top"),
])
def test_safe_url(href, expected):
    assert safe_url(href, URL) == expected


def test_safe_url_without_base_keeps_relative_links():
    assert safe_url("/a", None) == "/a"


# ------------------------------------------------------------------ json

def test_json_fields():
    result = result_for("<h1>Titre</h1><p>Café crème</p>", labels=[True, False])
    data = json.loads(render(result, "json"))
    assert data == {"title": "A page", "language": "en", "url": URL, "algorithm": "test", "page_type": "",
                    "text": "Titre", "comments": "",
                    "metadata": {"title": "A page", "author": "", "date": "", "site_name": "", "language": "",
                                 "url": URL, "description": "", "image": "", "tags": [], "page_type": "",
                                 "declared_type": ""}}
    assert "blocks" not in data


def test_json_blocks_option_and_raw_unicode():
    result = result_for("<h1>Titre</h1><p>Café crème</p>", labels=[True, False])
    out = render(result, "json", blocks=True)
    assert "Café crème" in out  # ensure_ascii=False
    blocks = json.loads(out)["blocks"]
    assert blocks == [
        {"index": 0, "text": "Titre", "tag": "h1", "label": True, "score": 0.0, "reason": "r0"},
        {"index": 1, "text": "Café crème", "tag": "p", "label": False, "score": 1.0, "reason": "r1"}]


def test_json_without_scores_or_reasons():
    doc = build_document("<p>a</p>")
    result = Result(doc, Classification((True,)), "x", "", Metadata())
    assert json.loads(render(result, "json", blocks=True))["blocks"] == [
        {"index": 0, "text": "a", "tag": "p", "label": True}]


# ------------------------------------------------------------------ through the API

@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "json"])
def test_every_format_through_extract(fmt):
    html = ("<html><body><article><h1>Heading</h1>"
            + "<p>" + "The quick brown fox jumps over the lazy dog near the river bank today. " * 8 + "</p>"
            + "</article></body></html>")
    out = thresher.extract(html, "https://example.com/", algorithm="justext", output=fmt, links=True)
    assert "quick brown fox" in out


# ------------------------------------------------------------------ text normalisation

INVISIBLE_PAGE = ("<h2>Mit\u00adtel\u00adal\u00adter</h2><p>zero\u200bwidth \u200b space, join\u2060er, "
                  "\ufeffbom, non\u200cjoiner, joi\u200dner</p><p>\u09dc and \u09df and e\u0301</p>")
CLEAN_TEXT = ("Mittelalter", "zerowidth space, joiner, bom, nonjoiner, joiner",
              "\u09a1\u09bc and \u09af\u09bc and \u00e9")  # U+09DC, U+09DF: composition exclusions


@pytest.mark.parametrize("output", ["text", "markdown", "html", "json"])
def test_every_format_drops_invisible_characters_and_normalises_to_nfc(output):
    out = render(result_for(INVISIBLE_PAGE, title="Mit\u00adtel\u00adal\u00adter"), output)
    for ch in "\u00ad\u200b\u200c\u200d\u2060\ufeff\u09dc\u09df\u0301":
        assert ch not in out
    if output == "json":
        out = json.loads(out)["text"] + json.loads(out)["title"]
    for expected in CLEAN_TEXT:
        assert expected in out


def test_a_block_of_invisible_characters_alone_leaves_no_empty_paragraph():
    assert render(result_for("<p>one</p><p>\u200b\u00ad</p><p>two</p>"), "text") == "one\n\ntwo"


# ------------------------------------------------------------------ whole tables

SPEC_TABLE = ("<p>The phone has a fine screen and a long battery life, reviewers say.</p>"
              "<table><tr><th>Weight</th><td>180 g</td></tr><tr><th>Screen</th><td>6.1 in</td></tr>"
              "<tr><th>Battery</th><td>4000 mAh</td></tr></table>")
DATA_TABLE = ("<p>Results of the season, club by club, as published.</p>"
              "<table><tr><th>Club</th><th>Won</th><th>Lost</th></tr><tr><td>Reds</td><td>10</td><td></td></tr>"
              "<tr><td>Blues</td><td>8</td><td>4</td></tr></table>")


def some_cells(body: str, dropped: set[int]) -> Result:
    """``body`` with every block kept but those in ``dropped`` (cells an algorithm left out)."""
    n = len(build_document(f"<html><body>{body}</body></html>").blocks)
    return result_for(body, labels=[i not in dropped for i in range(n)])


def test_text_keeps_a_table_whole_one_row_per_line():
    assert render(some_cells(SPEC_TABLE, {1, 4, 5}), "text").split("\n\n")[1] == \
        "Weight | 180 g\nScreen | 6.1 in\nBattery | 4000 mAh"
    assert render(some_cells(DATA_TABLE, {4, 6}), "text").split("\n\n")[1] == \
        "Club | Won | Lost\nReds | 10 | \nBlues | 8 | 4"


def test_markdown_keeps_a_table_whole_with_a_header_row():
    assert render(some_cells(SPEC_TABLE, {2, 3}), "markdown", title=False).split("\n\n")[1] == \
        "| Weight | 180 g |\n|---|---|\n| Screen | 6.1 in |\n| Battery | 4000 mAh |"
    assert render(some_cells(DATA_TABLE, {1, 2, 3}), "markdown", title=False).split("\n\n")[1] == \
        "| Club | Won | Lost |\n|---|---|---|\n| Reds | 10 |  |\n| Blues | 8 | 4 |"


def test_html_keeps_a_table_whole_with_its_empty_cells():
    out = article_of(html_out_of(some_cells(DATA_TABLE, {5, 6, 7})))
    assert ("<table><tbody><tr><th>Club</th><th>Won</th><th>Lost</th></tr><tr><td>Reds</td><td>10</td><td></td></tr>"
            "<tr><td>Blues</td><td>8</td><td>4</td></tr></tbody></table>") in out


def test_a_layout_table_is_not_completed():
    body = ("<table><tr><td><a href='/'>Home</a> <a href='/n'>News</a> <a href='/s'>Sport</a></td>"
            "<td>" + "A long article paragraph that fills the layout cell. " * 12 + "</td></tr></table>")
    assert "Home" not in render(some_cells(body, {0}), "text")


def test_a_table_with_nothing_kept_stays_out():
    assert render(some_cells(SPEC_TABLE, {1, 2, 3, 4, 5, 6}), "text") == \
        "The phone has a fine screen and a long battery life, reviewers say."


# ------------------------------------------------------------------ headings

WIKI = ('<h2><span class="mw-headline">History</span><span class="mw-editsection">'
        '<span class="mw-editsection-bracket">[</span><a href="/edit">edit</a>'
        '<span class="mw-editsection-bracket">]</span></span></h2><p>It began long ago.</p>'
        '<h3>Early years [<a href="/e2">edit</a> | <a href="/e3">edit source</a>]</h3><p>Then more.</p>')


@pytest.mark.parametrize("output", ["text", "markdown", "html"])
def test_section_edit_links_leave_headings(output):
    out = render(result_for(WIKI), output)
    assert "edit" not in out.replace("<article>", "") and "[" not in out and "History" in out
    assert "Early years" in out


def test_section_edit_links_leave_headings_without_attributes():
    doc = build_document(f"<html><body>{WIKI}</body></html>", URL, attributes=False)
    result = Result(doc, Classification.from_labels([True] * len(doc.blocks), ["r"] * len(doc.blocks),
                                                    [0.0] * len(doc.blocks)), "test", "en", Metadata())
    assert render(result, "text") == "History\n\nIt began long ago.\n\nEarly years\n\nThen more."


def test_empty_headings_are_not_written():
    body = "<h2>\u200b</h2><p>Text.</p><h3><a href='/x'>[edit]</a></h3><p>More.</p>"
    assert md(body) == "Text.\n\nMore."
    assert "<h2>" not in html_out(body) and "<h3>" not in html_out(body)


def test_a_heading_that_ends_the_page_is_a_paragraph():
    body = "<h2>Story</h2><p>The story.</p><h2>Read this next</h2>"
    assert md(body) == "## Story\n\nThe story.\n\nRead this next"
    assert article_of(html_out(body)).endswith("<p>Read this next</p>")


# ------------------------------------------------------------------ the empty result

def test_a_page_of_navigation_only_renders_nothing():
    nav = "<ul><li><a href='/'>Home</a></li></ul>"
    for output in ("text", "markdown"):
        assert render(result_for(nav), output) == ""
    assert "<p>" not in html_out(nav) and "Home" not in article_of(html_out(nav))
    menu = "<p><a href='/'>Home</a> | <a href='/a'>About us</a> | <a href='/c'>Contact</a></p>"
    assert render(result_for(menu), "text") == ""


def test_a_tiny_page_keeps_its_short_text():
    assert render(result_for("<p>Closed today.</p>"), "text") == "Closed today."
    assert render(result_for("<p><a href='/'>Home</a></p><p>Back soon.</p>"), "text") == "Home\n\nBack soon."


def test_many_links_are_not_navigation_only():
    links = " ".join(f"<a href='/{i}'>Chapter {i} of the book</a>" for i in range(10))
    assert "Chapter 9" in render(result_for(f"<p>{links}</p>"), "text")


CAPTIONED = ("<p>Symptoms and their causes, as seen in production systems.</p><table><caption>Table 1. Causes</caption>"
             "<tr><th>Symptom</th><th>Cause</th></tr><tr><td>Slow</td><td>CPU</td></tr></table>")


def test_a_whole_table_keeps_its_caption():
    result = some_cells(CAPTIONED, {1, 2})
    assert render(result, "text").split("\n\n")[1] == "Table 1. Causes\nSymptom | Cause\nSlow | CPU"
    assert render(result, "markdown", title=False).split("\n\n")[1:] == [
        "Table 1. Causes", "| Symptom | Cause |\n|---|---|\n| Slow | CPU |"]
    assert "<table><caption>Table 1. Causes</caption><tbody><tr><th>Symptom</th>" in html_out_of(result)


# ------------------------------------------------------------------ the title heading

def test_markdown_and_html_open_with_the_title_once():
    result = result_for("<p>The story so far.</p>", title="Big *news* today")
    assert render(result, "markdown") == "# Big \\*news\\* today\n\nThe story so far."
    assert article_of(render(result, "html")) == "<h1>Big *news* today</h1>\n<p>The story so far.</p>"
    assert render(result, "text") == "The story so far."
    assert render(result, "markdown", title=False) == "The story so far."


def test_the_title_is_not_repeated_when_the_first_heading_says_it():
    result = result_for("<h1>Big news today</h1><p>The story so far.</p>", title="Big News Today | The Daily")
    assert render(result, "markdown") == "# Big news today\n\nThe story so far."
    assert article_of(render(result, "html")).count("<h1>") == 1


def test_an_empty_result_gets_no_title():
    assert render(result_for("<p>x</p>", labels=[False], title="T"), "markdown") == ""
    assert "<h1>" not in render(result_for("<p>x</p>", labels=[False], title="T"), "html")


# ------------------------------------------------------------------ images

IMAGES = ('<header><img src="/logo.png" alt="Logo"><a href="/">Home</a></header>'
          '<p>The bridge opened <img src="img/bridge.jpg" alt="The [new] bridge"> on Monday.</p>'
          '<figure><img src="https://cdn.example/crowd.jpg" alt="Crowds"><figcaption>Crowds came.</figcaption></figure>'
          '<div><img src="javascript:alert(1)" alt="bad"></div><p>Traffic eased by noon.</p>'
          '<footer><img src="/ad.gif" alt="Ad"><p>Advertise</p></footer>')
IMAGE_LABELS = [False, True, True, True, False]


def test_markdown_writes_the_images_among_kept_blocks_with_absolute_urls():
    out = render(result_for(IMAGES, labels=IMAGE_LABELS), "markdown", images=True, title=False)
    assert out == ("The bridge opened on Monday.\n\n![The \\[new\\] bridge](https://example.com/news/img/bridge.jpg)"
                   "\n\n![Crowds](https://cdn.example/crowd.jpg)\n\nCrowds came.\n\nTraffic eased by noon.")
    assert "![" not in render(result_for(IMAGES, labels=IMAGE_LABELS), "markdown")


def test_html_writes_the_images_among_kept_blocks():
    out = article_of(html_out_of(result_for(IMAGES, labels=IMAGE_LABELS), images=True))
    assert '<figure><img src="https://example.com/news/img/bridge.jpg" alt="The [new] bridge"></figure>' in out
    assert out.index('alt="Crowds"') < out.index("Crowds came.")
    assert "logo" not in out and "ad.gif" not in out and "javascript" not in out
    assert "<img" not in article_of(html_out_of(result_for(IMAGES, labels=IMAGE_LABELS)))


def test_the_readme_states_the_empty_result_thresholds():
    from pathlib import Path

    from thresher.render.selection import SelectionParams

    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8").split())
    params = SelectionParams()
    assert (f"fewer than {params.navigation_max_words} words" in readme
            and f"at least {round(100 * params.navigation_min_link_density)}% of its characters in links" in readme)


def test_extract_of_a_navigation_only_page_is_empty():
    page = b"<html><body><nav><ul><li><a href='/'>Home</a></li></ul></nav></body></html>"
    assert thresher.extract(page) == "" and thresher.extract(page, output="markdown") == ""


def test_a_table_mostly_dropped_is_not_completed():
    out = render(some_cells(DATA_TABLE, {1, 2, 3, 4, 5, 6, 7}), "text")
    assert out == "Results of the season, club by club, as published.\n\n4"


# ------------------------------------------------------------------ made by the core, block by block only when read

WIKI_PAGE = ("<h2>History<span class='mw-editsection'>[<a href='/edit'>edit</a>]</span></h2><p>First text here.</p>"
             "<table><tr><th>Year</th><th>Count</th></tr><tr><td>1990</td><td>4</td></tr></table>"
             "<pre>line one</pre><pre>line two</pre><p>Co\u00adop  and caf\u0065\u0301.</p>")


def test_the_text_output_makes_no_python_block_but_the_last_kept_one():
    """The text is made by the core; Python reads only the last kept block, which the comment
    filter checks for a trailing "Comments" title."""
    result = thresher.extract_result(f"<html><body>{WIKI_PAGE}</body></html>".encode(), metadata=False,
                                     explain=False, attributes=False)
    text = result.render("text")
    made = result.document.blocks._made
    assert "First text here." in text and made is not None
    assert [i for i, block in enumerate(made) if block is not None] == [len(made) - 1]
    assert result.document.blocks._whole is None


def test_the_core_s_text_is_the_selection_written_out():
    out = render(result_for(WIKI_PAGE), "text")
    assert out == ("History\n\nFirst text here.\n\nYear | Count\n1990 | 4\n\nline one\n\nline two\n\n"
                   "Coop and caf\u00e9.")


def test_markdown_makes_only_the_blocks_it_writes():
    labels = [False] * 3 + [True] * 4 + [False] * 3
    result = result_for("".join(f"<p>paragraph {i}</p>" for i in range(10)), labels=labels)
    out = render(result, "markdown")
    assert "paragraph 3" in out and "paragraph 2" not in out
    made = result.document.blocks._made
    assert made is not None and [i for i, block in enumerate(made) if block is not None] == [3, 4, 5, 6]
