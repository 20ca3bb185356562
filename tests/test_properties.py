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
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from conftest import algorithm_names, require_model  # noqa: E402
from thresher import extract_result  # noqa: E402
from thresher.blocks import build_document  # noqa: E402
from thresher.errors import InputError  # noqa: E402

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
        assert not out_words - block_words(first.document), "output words that are not page words"
        second = extract_result(html, algorithm=algorithm)
        assert second.labels == first.labels
        assert second.text == first.text
        quiet = extract_result(html, algorithm=algorithm, explain=False)  # reasons skipped, nothing else
        assert quiet.labels == first.labels and quiet.classification.scores == scores

    check()
