"""Properties over generated HTML: the document keeps exactly the page's text, and every algorithm
labels every block, extracts only page text, and is deterministic.

Pages are generated as a flat list of events (open a tag, close the innermost
one, a run of words, a run of ``<br>``, an entity, a script or style) and
rendered with an explicit stack: no recursion, arbitrary (mis)nesting.
"""
from __future__ import annotations

import html as htmllib
from collections import Counter

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import (  # noqa: E402
    given,
    settings,
    strategies as st,
)

from conftest import algorithm_names, require_model  # noqa: E402
from thresher import extract_result  # noqa: E402
from thresher.document.blocks import build_document  # noqa: E402
from thresher.errors import InputError  # noqa: E402
from thresher.render.common import clean_text  # noqa: E402

BLOCK_TAGS = ("div", "p", "section", "article", "aside", "nav", "header", "footer", "main", "ul", "ol", "li",
              "h1", "h2", "h3", "h6", "blockquote", "pre", "table", "tr", "td", "dl", "dt", "dd", "form", "figure")
INLINE_TAGS = ("span", "a", "b", "i", "em", "strong", "code", "small", "label", "font", "abbr", "sup")
VOID_TAGS = ("img", "hr", "input", "wbr")
SKIPPED = ("script", "style")
ENTITIES = ("&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&nbsp;", "&eacute;", "&#x263A;", "&#8212;", "&copy;")

words = st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd")), min_size=1, max_size=9)
attribute_values = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
attributes = st.lists(st.tuples(st.sampled_from(("class", "id", "href", "style", "title", "data-x", "role", "lang")),
                                attribute_values), max_size=3)
open_tags = st.tuples(st.just("open"), st.sampled_from(BLOCK_TAGS + INLINE_TAGS), attributes)
extras = st.one_of(
    st.tuples(st.just("void"), st.sampled_from(VOID_TAGS), attributes),
    st.tuples(st.just("br"), st.integers(1, 3), st.sampled_from(("", " ", "\n"))),
    st.tuples(st.just("entity"), st.sampled_from(ENTITIES)),
    st.tuples(st.just("skip"), st.sampled_from(SKIPPED), st.lists(words, max_size=5)),
)


@st.composite
def segment(draw) -> list:
    """Open a few tags, write some words with extras among them, close a few tags."""
    out = draw(st.lists(open_tags, max_size=3))
    text = [("text", draw(st.lists(words, min_size=1, max_size=12)))]
    for extra in draw(st.lists(extras, max_size=2)):
        text.insert(draw(st.integers(0, len(text))), extra)
    out.extend(text)
    out.extend([("close",)] * draw(st.integers(0, 3)))
    return out


events = st.lists(segment(), min_size=1, max_size=25).map(lambda parts: [e for part in parts for e in part])


def render_attributes(attrs) -> str:
    return "".join(f' {name}="{htmllib.escape(value)}"' for name, value in attrs)


def render(page_events) -> tuple[str, list[str]]:
    """HTML of the events, and the words a reader sees in it (script and style excluded)."""
    out: list[str] = []
    stack: list[str] = []
    seen: list[str] = []
    for event in page_events:
        kind = event[0]
        if kind == "open":
            out.append(f"<{event[1]}{render_attributes(event[2])}>")
            stack.append(event[1])
        elif kind == "void":
            out.append(f"<{event[1]}{render_attributes(event[2])}>")
        elif kind == "close" and stack:
            out.append(f"</{stack.pop()}>")
        elif kind == "text":
            out.append(" " + " ".join(event[1]) + " ")
            seen.extend(event[1])
        elif kind == "br":
            out.append(event[2].join(["<br>"] * event[1]))
        elif kind == "entity":
            out.append(f" {event[1]} ")
            seen.extend(htmllib.unescape(event[1]).split())
        elif kind == "skip":
            out.append(f"<{event[1]}> {' '.join(event[2])} </{event[1]}>")
    out.extend(f"</{tag}>" for tag in reversed(stack))
    return "<!DOCTYPE html><html><head><title>generated</title></head><body>" + "".join(out) + "</body></html>", seen


pages = events.map(render)


def block_words(doc) -> Counter:
    return Counter(word for block in doc.blocks for word in block.text.split())


def clean_words(doc) -> Counter:
    """The page's words as the renderers write them (invisible characters dropped, NFC)."""
    return Counter(word for block in doc.blocks for word in clean_text(block.text).split())


# ------------------------------------------------------------------ the document

@given(pages)
def test_blocks_hold_exactly_the_page_s_visible_words(page):
    html, seen = page
    doc = build_document(html)
    assert block_words(doc) == Counter(seen)


@given(pages)
def test_block_and_element_invariants(page):
    html, _ = page
    doc = build_document(html)
    els = doc.elements
    offset = 0
    for i, block in enumerate(doc.blocks):
        assert block.index == i and block.offset == offset
        assert block.text.strip()
        in_pre = any(el.tag in ("pre", "textarea") for el in doc.ancestors(block.element))
        assert in_pre or block.text == " ".join(block.text.split())  # pre keeps its layout
        assert block.char_count == len(block.text) and block.word_count == len(block.text.split())
        assert 0 <= block.link_char_count <= block.char_count
        assert 0 <= block.link_word_count <= block.word_count
        assert i in doc.element_blocks(block.element)
        assert els.tags[block.element] == block.tag
        offset += block.char_count
    for i in range(1, len(els)):
        parent = els.parents[i]
        assert 0 <= parent < i and els.depths[i] == els.depths[parent] + 1
        assert els.first_blocks[parent] <= els.first_blocks[i] <= els.end_blocks[i] <= els.end_blocks[parent]


@given(st.text())
def test_build_document_never_raises_on_arbitrary_text(text):
    try:
        doc = build_document(text)
    except InputError:
        assert not text.strip(), f"InputError for non-empty input {text!r}"
        return
    assert all(block.text for block in doc.blocks)


@given(st.text())
def test_arbitrary_text_words_survive(text):
    """Text without markup characters is all kept, whitespace aside."""
    if not text.strip() or any(ch in text for ch in "<&\x00\r"):
        return
    doc = build_document(text)
    assert block_words(doc) == Counter(text.split())


# ------------------------------------------------------------------ every algorithm

@pytest.mark.parametrize("algorithm", algorithm_names())
def test_algorithm_properties(algorithm):
    """Labels match blocks one to one; the output is page text; same input, same output,
    with or without reasons."""
    require_model(algorithm)

    @given(pages)
    def check(page):
        html, _ = page
        first = extract_result(html, algorithm=algorithm)
        assert len(first.labels) == len(first.document.blocks)
        scores = first.classification.scores
        assert scores is None or len(scores) == len(first.labels)
        out_words = Counter(first.text.split())
        assert not out_words - clean_words(first.document), "output words that are not page words"
        second = extract_result(html, algorithm=algorithm)
        assert second.labels == first.labels
        assert second.text == first.text
        quiet = extract_result(html, algorithm=algorithm, explain=False)  # reasons skipped, nothing else
        assert quiet.labels == first.labels and quiet.classification.scores == scores

    check()


# ------------------------------------------------------------------ fuzzing: only InputError, or a string
#
# Random bytes, random tag soup (bad nesting, odd tags and attributes, meta charsets that are and
# are not web encodings, entities, comments, JSON-LD) in random encodings, and random deeply nested
# JSON-LD, through ``thresher.extract`` for every output format and algorithm: the only exception
# allowed is InputError. Pages are built as flat token lists and joined; nothing recurses.

FORMATS = ("text", "markdown", "html", "json")
FUZZ_EXAMPLES = 300  # each example takes milliseconds; a few seconds per property
SOUP_TAGS = ("html", "head", "body", "title", "meta", "base", "script", "style", "template", "noscript", "svg",
             "math", "table", "tr", "td", "select", "option", "textarea", "pre", "plaintext", "xmp", "iframe",
             "a", "p", "div", "li", "ul", "h1", "br", "img", "article", "main", "nav", "code", "b", "frameset")
CHARSET_LABELS = ("utf-8", "UTF8", " latin1 ", "x-sjis", "gb2312", "koi8-r", "utf-16", "utf-16be", "iso-2022-jp",
                  "x-user-defined", "replacement", "punycode", "idna", "rot13", "base64", "utf-7", "hex", "zlib",
                  "uu", "quopri", "unicode_escape", "cp037", "utf-32", "mbcs", "", "\"", "x" * 41)
PAGE_ENCODINGS = ("utf-8", "utf-8-sig", "utf-16-le", "utf-16-be", "utf-16", "utf-32", "cp1252", "shift_jis",
                  "gb18030", "koi8-r", "iso2022_jp", "cp037")
ODD_ENTITIES = ("&amp;", "&lt", "&#0;", "&#xD800;", "&#x110000;", "&#99999999999;", "&notin;", "&#x;", "&;")
HOSTILE_URLS = ("javascript:alert(1)", "java\tscript:x", "http://a/\n(b)", "<x>", "%zz", "//", "http://[::1",
                "mailto:a@b", "data:text/html,x", "http://a/" + "\u202e\u0000\u00a0")

soup_text = st.text(max_size=30)
soup_names = st.one_of(st.sampled_from(SOUP_TAGS), st.text("abcxyz-:0123_", min_size=1, max_size=6))
soup_attributes = st.lists(st.tuples(
    st.one_of(st.sampled_from(("href", "class", "id", "style", "hidden", "type", "charset", "content",
                               "http-equiv", "itemprop", "lang", "role", "src")), st.text("ab-=\"'<", max_size=4)),
    st.one_of(soup_text, st.sampled_from(HOSTILE_URLS + CHARSET_LABELS)),
    st.sampled_from(('"', "'", ""))), max_size=4)


def soup_attribute_text(attrs) -> str:
    return "".join(f" {name}={quote}{value}{quote}" for name, value, quote in attrs)


def nested_json(kinds: list[bool], leaf: str, closed: int) -> str:
    """Arrays (False) and objects (True) nested in ``kinds`` order around ``leaf``; only the
    innermost ``closed`` levels are closed (the rest stay open: malformed on purpose)."""
    opens = "".join('{"k": ' if kind else "[" for kind in kinds)
    closes = "".join("}" if kind else "]" for kind in reversed(kinds))
    return opens + leaf + closes[:closed]


json_leaves = st.sampled_from(('"s"', "1", "null", '"\\"]]}}"', '{"@type": "Article", "headline": "H"}', "",
                               '"unterminated', "1" * 5000, "[]"))


@st.composite
def nested_json_ld(draw) -> str:
    depth = draw(st.one_of(st.integers(0, 70), st.integers(70, 5000)))
    kinds = draw(st.lists(st.booleans(), min_size=1, max_size=8))
    levels = [kinds[i % len(kinds)] for i in range(depth)]
    closed = draw(st.one_of(st.just(depth), st.integers(0, depth)))
    return nested_json(levels, draw(json_leaves), closed)


soup_tokens = st.one_of(
    st.tuples(st.just("open"), soup_names, soup_attributes, st.booleans()),
    st.tuples(st.just("close"), soup_names),
    st.tuples(st.just("text"), soup_text),
    st.tuples(st.just("entity"), st.one_of(st.sampled_from(ODD_ENTITIES), st.integers(0, 0x10FFFF))),
    st.tuples(st.just("markup"), st.sampled_from(("<!--", "-->", "<!--x-->", "<!x>", "<?x?>", "<![CDATA[x]]>",
                                                  "</", "<", ">", "<a<b>", "&", "\x00", "\r\n", "\ufeff"))),
    st.tuples(st.just("charset"), st.sampled_from(CHARSET_LABELS), st.booleans()),
    st.tuples(st.just("json-ld"), nested_json_ld()),
    st.tuples(st.just("deep"), soup_names, st.integers(1, 3000)),
    st.tuples(st.just("flood"), st.integers(1, 300)),
)


def soup_token_text(token) -> str:
    kind = token[0]
    if kind == "open":
        return f"<{token[1]}{soup_attribute_text(token[2])}{' /' if token[3] else ''}>"
    if kind == "close":
        return f"</{token[1]}>"
    if kind == "entity":
        return token[1] if isinstance(token[1], str) else f"&#{token[1]};"
    if kind == "charset":
        return f'<meta charset="{token[1]}">' if token[2] else \
            f'<meta http-equiv="Content-Type" content="text/html; charset={token[1]}">'
    if kind == "json-ld":
        return f'<script type="application/ld+json">{token[1]}</script>'
    if kind == "deep":
        return f"<{token[1]}>" * token[2]
    if kind == "flood":
        return "<div " + " ".join(f'a{i}="{i}"' for i in range(token[1])) + ">"
    return token[1]  # text, markup


@st.composite
def tag_soup(draw) -> bytes | str:
    text = "".join(soup_token_text(token) for token in draw(st.lists(soup_tokens, max_size=30)))
    encoding = draw(st.one_of(st.none(), st.sampled_from(PAGE_ENCODINGS)))
    return text if encoding is None else text.encode(encoding, errors="replace")


def installed_algorithms() -> list[str]:
    """The registered algorithms whose models are installed."""
    import thresher
    from thresher.errors import ModelError

    names = []
    for name in algorithm_names():
        try:
            thresher.extract("<p>A tiny page to load the model with.</p>", algorithm=name)
        except ModelError:
            continue
        names.append(name)
    return names


def extract_gives_text_or_input_error(page, algorithm: str, output: str, content_type: str | None = None) -> None:
    import thresher

    try:
        out = thresher.extract(page, algorithm=algorithm, output=output, content_type=content_type, links=True)
    except InputError:
        return
    assert isinstance(out, str)


fuzz_algorithms = st.sampled_from(installed_algorithms())


@settings(max_examples=FUZZ_EXAMPLES)
@given(st.binary(max_size=4096), fuzz_algorithms, st.sampled_from(FORMATS),
       st.one_of(st.none(), st.sampled_from(CHARSET_LABELS).map(lambda label: f"text/html; charset={label}")))
def test_random_bytes_give_text_or_input_error(data, algorithm, output, content_type):
    extract_gives_text_or_input_error(data, algorithm, output, content_type)


@settings(max_examples=FUZZ_EXAMPLES)
@given(tag_soup(), fuzz_algorithms, st.sampled_from(FORMATS))
def test_random_tag_soup_gives_text_or_input_error(page, algorithm, output):
    extract_gives_text_or_input_error(page, algorithm, output)


@settings(max_examples=FUZZ_EXAMPLES)
@given(st.lists(nested_json_ld(), min_size=1, max_size=3), st.sampled_from(FORMATS))
def test_random_nested_json_ld_never_stops_extraction(scripts, output):
    import thresher

    paragraph = "The article text stays whatever structured data the page carries beside it."
    page = ("<html><head><title>t</title>"
            + "".join(f'<script type="application/ld+json">{raw}</script>' for raw in scripts)
            + f"</head><body><article><p>{paragraph}</p></article></body></html>")
    out = thresher.extract(page, output=output)
    assert "The article text stays" in out
