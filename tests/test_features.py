"""Per-block feature matrices (thresher.features, thresher.inference.learned.page_features) on hand-built pages."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from thresher import _core, features as F
from thresher.document.blocks import build_document
from thresher.inference import learned

STOP = frozenset({"the", "on", "a", "of"})


def page(body: str, head: str = "") -> object:
    return build_document(f"<html><head>{head}</head><body>{body}</body></html>")


def block_index(doc, text: str) -> int:
    """Index of the block whose text is exactly ``text`` (fails loudly when absent or ambiguous)."""
    found = [b.index for b in doc.blocks if b.text == text]
    assert len(found) == 1, (text, [b.text for b in doc.blocks])
    return found[0]


def shallow(doc, stoplist=STOP):
    return F.shallow_text(doc, stoplist)


def context(doc):
    """The base matrix, which holds the tree-context columns (and every other group)."""
    return F.base_columns(doc, STOP)


base = context
# The page-level group's columns, in order.
PAGE_LEVEL = ("page_link_share", "page_type_article", "page_type_product", "page_type_forum", "page_type_list",
              "page_has_structured_text", "title_overlap", "structured_overlap", "relative_length")
STRUCTURE = ("text_repeats", "main_heading_side", "has_main_heading", "copies_before", "copies_after")


def part(cols, names):
    """The columns ``names`` of ``cols``, as their own group."""
    return F.Columns(names, cols.select(names))


def main_heading(doc) -> int:
    """The main heading's block as the base columns tell it (the block on no side of it), or -1."""
    cols = base(doc)
    if not len(doc.blocks) or cols.column("has_main_heading")[0] == 0.0:
        return -1
    return int(np.flatnonzero(cols.column("main_heading_side") == 0.0)[0])


def word_set(text: str) -> set[str]:
    """The distinct lower-cased words (runs of ``\\w``) of ``text``: what the overlaps compare."""
    return set(re.findall(r"\w+", text.lower()))


# ------------------------------------------------------------------ text density

def test_text_density_of_one_line_is_its_word_count():
    assert F.text_density("one two three four") == 4.0
    assert F.text_density("x" * 80) == 1.0  # exactly the width: still one line


def test_text_density_of_wrapped_block_excludes_the_last_line():
    word = "abcdefghi"  # 9 chars: 8 words fill 79 columns, a 9th would need 89
    assert F.text_density(" ".join([word] * 20)) == 8.0  # lines of 8, 8, (4 excluded)
    assert F.text_density(" ".join([word] * 17)) == 8.0  # 8, 8, (1 excluded)
    # a long block made of a long line plus a short last one: only the full line counts
    text = " ".join(["ab"] * 26) + " " + "z" * 60  # 26 words fill 77 columns; the long word wraps
    assert F.text_density(text) == 26.0


def wrapped_density(text: str, width: int = 80) -> float:
    """Text density the long way: wrap word after word, as Kohlschütter describes it."""
    if len(text) <= width:
        return float(len(text.split()))
    lines, line_len, words_in_lines, current = 0, 0, 0, 0
    for word in text.split():
        if line_len and line_len + 1 + len(word) > width:
            lines, words_in_lines, line_len, current = lines + 1, words_in_lines + current, 0, 0
        line_len += (1 if line_len else 0) + len(word)
        current += 1
    return float(current) if lines == 0 else words_in_lines / lines


@given(st.lists(st.tuples(st.integers(1, 130), st.sampled_from([" ", "  ", "\n", " \xa0"])), min_size=1, max_size=40))
def test_text_density_wraps_as_word_after_word(words):
    """The line-at-a-time wrap gives what wrapping one word at a time gives, long words,
    exact fits and any white space included."""
    text = "".join("w" * size + space for size, space in words)
    assert F.text_density(text) == wrapped_density(text)


def test_text_density_puts_a_word_longer_than_the_width_on_its_own_line():
    assert F.text_density("a " + "x" * 100 + " b c") == 1.0  # lines: "a", "x...x", ("b c" excluded)
    assert F.text_density("x" * 100) == 1.0


def test_text_density_column_matches_function():
    long_text = " ".join(["abcdefghi"] * 20)
    doc = page(f"<p>short words here</p><p>{long_text}</p>")
    col = shallow(doc).column("text_density")
    assert col.tolist() == [3.0, 8.0]


# ------------------------------------------------------------------ shallow text

def test_link_density_of_all_link_block_is_one_and_of_plain_block_zero():
    doc = page("<p><a href='/x'>all of this is a link</a></p><p>no links in here at all</p>"
               "<p>half <a href='/y'>link</a></p>")
    col = shallow(doc).column("link_density")
    assert col[0] == pytest.approx(1.0)
    assert col[1] == 0.0
    assert 0.0 < col[2] < 1.0


def test_stopword_density_uses_the_given_stoplist():
    doc = page("<p>The cat sat on the mat</p><p>Cat sat mat</p>")
    assert shallow(doc).column("stopword_density").tolist() == pytest.approx([3 / 6, 0.0])
    # an empty stoplist gives zero everywhere
    assert shallow(doc, frozenset()).column("stopword_density").tolist() == [0.0, 0.0]


@given(st.lists(st.lists(st.sampled_from(["The", "the", "ON", "x", "ÉΣ", "ς", " ", "\n", "\xa0"]), min_size=1,
                        max_size=12).map("".join).filter(str.split), min_size=1, max_size=20))
def test_stopword_density_counts_each_block_s_own_lower_cased_stop_words(texts):
    doc = page("".join(f"<p>{t}</p>" for t in texts))
    expected = [sum(w in STOP for w in t.lower().split()) / len(t.split()) for t in texts]
    assert shallow(doc).column("stopword_density").tolist() == pytest.approx(expected)


def test_digit_and_upper_ratios_on_known_strings():
    doc = page("<p>abc123</p><p>ABcd</p><p>no digits</p>")
    cols = shallow(doc)
    assert cols.column("digit_ratio").tolist() == pytest.approx([0.5, 0.0, 0.0])
    assert cols.column("upper_ratio").tolist() == pytest.approx([0.0, 0.5, 0.0])


def test_sentence_ends_counts_terminal_punctuation_per_block():
    doc = page("<p>One. Two! Three?</p><p>Version 3.5 is out</p><p>Ends here.</p>")
    col = shallow(doc).column("sentence_ends")
    assert col.tolist() == pytest.approx([math.log1p(3), 0.0, math.log1p(1)])


def test_date_like_marks_years_and_numeric_dates_only():
    doc = page("<p>Published in 2021 by us</p><p>Posted 12/05/2020 at noon</p>"
               "<p>Call 555 1234 today</p><p>Founded 1850 here</p>")
    assert shallow(doc).column("date_like").tolist() == [1.0, 1.0, 0.0, 0.0]


def test_heading_copyright_and_case_columns():
    doc = page("<h2>A heading</h2><p>\xa9 2024 Example</p><p>lower start</p>")
    cols = shallow(doc)
    assert cols.column("is_heading").tolist() == [1.0, 0.0, 0.0]
    assert cols.column("has_copyright").tolist() == [0.0, 1.0, 0.0]
    assert cols.column("starts_upper").tolist() == [1.0, 0.0, 0.0]


# ------------------------------------------------------------------ tree context

def test_block_inside_nav_has_in_nav():
    doc = page("<nav><ul><li><a href='/'>Home</a></li></ul></nav><p>Body text outside</p>")
    col = context(doc).column("in_nav")
    assert col[block_index(doc, "Home")] == 1.0
    assert col[block_index(doc, "Body text outside")] == 0.0


def test_negative_cue_on_sidebar_ancestor():
    doc = page("<div class='sidebar'>Direct sidebar text<p>Nested sidebar text</p></div>"
               "<div class='x'><div><div><div><div><p>Far from any cue</p></div></div></div></div></div>")
    ctx = context(doc)
    direct, nested, far = (block_index(doc, t) for t in ("Direct sidebar text", "Nested sidebar text",
                                                         "Far from any cue"))
    assert ctx.column("neg_cue_dist")[direct] == 0.0
    assert ctx.column("neg_cue_dist")[nested] == 1.0
    assert ctx.column("neg_cue_near")[direct] == 1.0
    assert ctx.column("neg_cue_near")[nested] == 1.0
    assert ctx.column("neg_cue_near")[far] == 0.0
    assert ctx.column("neg_cue_dist")[far] == F.MAX_CUE_DISTANCE


def test_positive_cue_on_article_post_content():
    doc = page("<article class='post-content'><div><p>Article paragraph</p></div></article>"
               "<div class='box'><p>Plain box</p></div>")
    ctx = context(doc)
    inside, outside = block_index(doc, "Article paragraph"), block_index(doc, "Plain box")
    assert ctx.column("pos_cue_near")[inside] == 1.0
    assert ctx.column("pos_cue_dist")[inside] == 2.0
    assert ctx.column("pos_cue_near")[outside] == 0.0
    assert ctx.column("in_article")[inside] == 1.0
    assert ctx.column("in_article")[outside] == 0.0


def test_hidden_marks_blocks_under_hidden_elements():
    doc = page("<div hidden><p>Hidden by attribute</p></div>"
               "<div style='color:red; DISPLAY: none'><span><p>Hidden by style</p></span></div>"
               "<p aria-hidden='true'>Aria hidden</p><p aria-hidden='false'>Aria shown</p>"
               "<div style='visibility:visible'><p>Visible one</p></div>")
    col = context(doc).column("hidden")
    assert [col[block_index(doc, t)] for t in ("Hidden by attribute", "Hidden by style", "Aria hidden",
                                                 "Aria shown", "Visible one")] == [1.0, 1.0, 1.0, 0.0, 0.0]


def test_cue_tokens_are_split_on_non_alphanumerics():
    doc = page("<div id='Main-Nav' class='post_content  big'><p>Text</p></div><p>Bare</p>")
    facts = F.tree_facts(doc)
    # an element's id tokens, then its class's
    tokens = {tag: facts.tokens(i) for i, tag in enumerate(doc.elements.tags)}
    assert tokens["div"] == ["main", "nav", "post", "content", "big"]
    assert tokens["p"] == []  # the last <p>, without attributes


def test_anc1_text_share_is_parent_subtree_share_of_page_text():
    doc = page("<div><p>aaaa</p></div><div><p>bbbbbbbbbbbb</p></div>")
    share = context(doc).column("anc1_text_share")
    assert share.tolist() == pytest.approx([4 / 16, 12 / 16])
    doc = page("<div><p>aaaa</p><p>bbbb</p></div>")
    assert context(doc).column("anc1_text_share").tolist() == pytest.approx([1.0, 1.0])


def test_siblings_same_counts_repeated_post_siblings():
    doc = page("<div class='posts'>" + "".join(f"<div class='post'>Post number {i}</div>" for i in range(3)) +
               "<div class='other'>Not a post</div></div>"
               "<div class='thread'>" + "".join(f"<div class='post'><p>Para {i}</p></div>" for i in range(4)) +
               "</div>")
    ctx = context(doc)
    same = ctx.column("siblings_same")
    for i in range(3):
        assert same[block_index(doc, f"Post number {i}")] == pytest.approx(math.log1p(2))
    assert same[block_index(doc, "Not a post")] == 0.0
    # one level up: each <p> is alone in its post, but the posts repeat 4 times under another parent
    for i in range(4):
        b = block_index(doc, f"Para {i}")
        assert same[b] == 0.0
        assert ctx.column("parent_siblings_same")[b] == pytest.approx(math.log1p(3))


# ------------------------------------------------------------------ CETR

def test_cetr_columns_shape_and_non_negative():
    doc = page("<p>plain text block with words</p><p><a>x</a><b>y</b><i>z</i></p><div>more text here</div>")
    cols = part(base(doc), ("cetr_ratio", "cetr_derivative"))
    assert cols.values.shape == (len(doc.blocks), 2)
    assert np.all(cols.values >= 0)
    assert np.all(np.isfinite(cols.values))


def smooth(values: np.ndarray) -> np.ndarray:
    """The smoothing of ``cetr_ratio``: one unit of standard deviation, the ends extended."""
    return _core.gaussian_smooth(values, 1.0, 3.0, edges="extend")


def test_gaussian_smooth_keeps_length_and_constants():
    values = np.full(7, 3.0)
    assert smooth(values).tolist() == pytest.approx(values.tolist())
    assert len(smooth(np.arange(5.0))) == 5
    assert len(smooth(np.zeros(0))) == 0


def test_cetr_ratio_is_the_log_of_the_smoothed_tag_ratio_and_its_derivative():
    doc = page("<p>plain text block with words</p><p><a>x</a><b>y</b><i>z</i></p><div>more text here</div>"
               "<p>one</p><p>two <b>bold</b> words</p>")
    ratio = np.array([b.char_count / max(1, b.tag_count) for b in doc.blocks])
    smoothed = smooth(ratio)
    cols = base(doc)
    assert np.array_equal(cols.column("cetr_ratio"), np.log1p(smoothed).astype(np.float32))
    derivative = np.abs(np.diff(smoothed, append=smoothed[-1]))
    assert np.array_equal(cols.column("cetr_derivative"), np.log1p(derivative).astype(np.float32))


def test_the_two_smoothings_differ_only_at_the_edges():
    values = np.array([9.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0])
    extended = _core.gaussian_smooth(values, 1.0, 3.0, edges="extend")
    renormalised = _core.gaussian_smooth(values, 1.0, 3.0, edges="renormalise")
    # inside, renormalising divides by the kernel's sum (1, up to rounding)
    assert extended[3:-3].tolist() == pytest.approx(renormalised[3:-3].tolist(), rel=1e-12)
    assert extended[0] > renormalised[0] > 0  # the 9 repeats before the start, or weighs more alone
    with pytest.raises(ValueError):
        _core.gaussian_smooth(values, 1.0, 3.0, edges="wrap")
    with pytest.raises(ValueError):
        _core.gaussian_smooth(values, float("inf"), 3.0, edges="extend")


# ------------------------------------------------------------------ page level

def test_json_ld_product_sets_page_type_product():
    head = ('<title>A thing</title><script type="application/ld+json">'
            '{"@context": "https://schema.org", "@type": "Product", "name": "A thing"}</script>')
    doc = page("<p>Buy the thing now</p><p>Another block</p>", head)
    cols = base(doc)
    assert cols.column("page_type_product").tolist() == [1.0, 1.0]
    assert cols.column("page_type_article").tolist() == [0.0, 0.0]
    plain = page("<p>Buy the thing now</p>")
    assert base(plain).column("page_type_product").tolist() == [0.0]


def test_og_type_article_sets_page_type_article():
    doc = page("<p>Text</p>", '<meta property="og:type" content="article">')
    assert base(doc).column("page_type_article").tolist() == [1.0]


def test_title_overlap_is_one_for_the_title_block_and_zero_for_unrelated():
    doc = page("<h1>Hello World Story</h1><p>completely unrelated words</p><p>Hello there</p>",
               "<title>Hello World Story</title>")
    col = base(doc).column("title_overlap")
    assert col.tolist() == pytest.approx([1.0, 0.0, 0.5])


def test_relative_length_and_no_position_features():
    doc = page("<p>aaaa</p><p>bbbb</p><p>cccccccc</p>")
    cols = base(doc)
    assert cols.column("relative_length").tolist() == pytest.approx([0.5, 0.5, 1.0])
    # scale-free by design: a block's features must not depend on where it sits in a long page
    assert not {"position", "char_position", "char_share", "size_rank"} & set(cols.names)
    assert cols.names[cols.names.index("page_link_share"):][:len(PAGE_LEVEL)] == PAGE_LEVEL


def test_features_of_a_paragraph_do_not_depend_on_page_length():
    body = "<p>" + "A sentence of plain prose that goes on for a while. " * 4 + "</p>"
    short, long = page(f"<article>{body * 3}</article>"), page(f"<article>{body * 300}</article>")
    a = part(base(short), PAGE_LEVEL)
    b = part(base(long), PAGE_LEVEL)
    keep = [j for j, name in enumerate(a.names) if not name.startswith("page_")]
    assert a.values[1, keep].tolist() == pytest.approx(b.values[150, keep].tolist())


def test_main_heading_is_the_heading_matching_the_title():
    doc = page("<h2>Menu</h2><p>intro</p><h1>Site name</h1><h2>Flood in the valley</h2><p>story</p>",
               "<title>Flood in the valley | Site name</title>")
    assert main_heading(doc) == block_index(doc, "Flood in the valley")


def test_main_heading_falls_back_to_the_first_h1_then_to_none():
    untitled = page("<h2>Menu</h2><h1>First</h1><h1>Second</h1><p>text</p>")
    assert main_heading(untitled) == block_index(untitled, "First")
    assert main_heading(page("<h2>Menu</h2><p>text</p>", "<title>Nothing alike</title>")) == -1


def test_page_structure_marks_repeats_and_the_side_of_the_main_heading():
    doc = page("<p>Add to cart</p><h1>The story</h1><p>Add to cart</p><p>one</p><p>Add to cart</p>"
               + "<p>two</p>" * 4, "<title>The story</title>")
    cols = base(doc)
    repeats = cols.column("text_repeats")
    assert repeats[block_index(doc, "The story")] == 0.0
    assert repeats[block_index(doc, "one")] == 0.0
    assert repeats[0] == pytest.approx(math.log1p(2)) and repeats[-1] == pytest.approx(math.log1p(3))
    side = cols.column("main_heading_side")
    assert side.tolist() == [-1.0, 0.0] + [1.0] * 7
    assert cols.column("has_main_heading").tolist() == [1.0] * len(doc.blocks)


def test_repeated_paragraphs_are_not_counted_as_repeats():
    para = "A whole paragraph of prose, " + "long enough to be far more than a label or a button " * 2
    doc = page(f"<p>{para}</p><p>Share</p><p>{para}</p><p>Share</p>")
    assert base(doc).column("text_repeats").tolist() == pytest.approx([0, math.log1p(1)] * 2)


def test_page_structure_without_a_main_heading_is_neutral():
    doc = page("<p>alpha</p><p>beta</p>")
    cols = part(base(doc), STRUCTURE)
    assert cols.values.tolist() == [[0.0] * len(cols.names)] * 2


def test_copies_count_the_same_text_before_and_after_each_block_under_other_parents():
    para = "A whole paragraph of prose, " + "long enough to be far more than a label or a button " * 2
    doc = page(f"<div><p>{para}</p><p>Share</p></div><section><p>{para.upper()}</p><p>other</p></section>"
               f"<aside><p>{para}</p></aside>")
    cols = base(doc)
    assert cols.column("copies_before").tolist() == pytest.approx([0, 0, math.log1p(1), 0, math.log1p(2)])
    assert cols.column("copies_after").tolist() == pytest.approx([math.log1p(2), 0, math.log1p(1), 0, 0])


def test_a_paragraph_repeated_within_its_container_is_no_copy():
    """An article that repeats a paragraph (or a table its equal cells) holds each repeat as
    its own content, not as a second rendering of the page."""
    para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor."
    doc = page(f"<article><p>{para}</p><p>{para}</p><p>{para}</p></article><aside><p>{para}</p></aside>")
    cols = base(doc)
    assert cols.column("copies_before").tolist() == pytest.approx([0, 0, 0, math.log1p(3)])
    assert cols.column("copies_after").tolist() == pytest.approx([math.log1p(1)] * 3 + [0])


def test_text_copies_ignore_case():
    texts = ["Add to cart", "add to cart", "Buy", "ADD TO CART", "Add to  cart"]
    before, after = _core.text_copies(texts, [1, 2, 3, 4, 5])
    assert before.tolist() == [0, 1, 0, 2, 0] and after.tolist() == [2, 1, 0, 0, 0]
    assert [a.tolist() for a in _core.text_copies([], [])] == [[], []]


@given(st.lists(st.tuples(st.sampled_from(["a", "A", "b", "c d", "C D", ""]), st.integers(0, 2)), max_size=30))
def test_text_copies_count_the_equal_texts_under_other_parents_on_each_side(items):
    texts, parents = [t for t, _ in items], [p for _, p in items]
    before, after = _core.text_copies(texts, parents)
    keys = [(t.lower(), p) for t, p in items]
    others = [[k[0] == key[0] and k[1] != key[1] for k in keys] for key in keys]
    assert before.tolist() == [sum(row[:i]) for i, row in enumerate(others)]
    assert after.tolist() == [sum(row[i + 1:]) for i, row in enumerate(others)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="ΣσςΑαİiIͅ'. aꟋꟌᲉ𐵐K",
                                  max_size=6), st.integers(0, 1)), max_size=12))
def test_text_copies_compare_texts_lower_cased_as_python_does(items):
    """Final sigma, the dotted capital I, the Kelvin sign and code points Python's Unicode
    database does not assign yet: equal after ``str.lower`` exactly when the core finds them equal."""
    texts, parents = [t for t, _ in items], [p for _, p in items]
    before, _ = _core.text_copies(texts, parents)
    keys = [(t.lower(), p) for t, p in items]
    assert before.tolist() == [sum(k[0] == key[0] and k[1] != key[1] for k in keys[:i]) for i, key in enumerate(keys)]


def test_template_paths_group_blocks_by_their_whole_path():
    """Cards in separate rows share their (tag, class) path though not their parent; a block
    under another class shares only the tag path."""
    card = "<div class='card'><p>{}</p></div>"
    doc = page("<main><div class='row'>" + card.format("one two") + card.format("three") + "</div>"
               "<div class='row'>" + card.format("four five six") + "</div>"
               "<div class='row'><div class='ad'><p>buy</p></div></div></main>")
    cols = base(doc)
    assert cols.column("path_blocks").tolist() == pytest.approx([math.log1p(2)] * 3 + [0.0])
    assert cols.column("tag_path_blocks").tolist() == pytest.approx([math.log1p(3)] * 4)
    total = sum(b.char_count for b in doc.blocks)
    cards = sum(b.char_count for b in doc.blocks[:3])
    assert cols.column("path_share").tolist() == pytest.approx([cards / total] * 3 + [3 / total])
    assert cols.column("tag_path_share").tolist() == pytest.approx([1.0] * 4)


def test_template_paths_link_density_is_the_group_s():
    doc = page("<ul><li><a href='/a'>first link</a></li><li>plain item text</li></ul><p>prose</p>")
    cols = base(doc)
    links = len("first link")
    items = links + len("plain item text")
    assert cols.column("path_link_density").tolist() == pytest.approx([links / items, links / items, 0.0])


@st.composite
def nested_page(draw) -> str:
    """Random nesting of a few tags and classes (every element holds a word, so no element is
    dropped or merged by the parser)."""
    html, open_tags = [], []
    for _ in range(draw(st.integers(1, 25))):
        if open_tags and draw(st.booleans()):
            html.append(f"</{open_tags.pop()}>")
            continue
        tag = draw(st.sampled_from(["div", "section", "span"]))
        css = draw(st.sampled_from(["", " class=a", " class=b"]))
        html.append(f"<{tag}{css}>w ")
        open_tags.append(tag)
    return "<body>" + "".join(html) + "".join(f"</{t}>" for t in reversed(open_tags)) + "</body>"


@given(nested_page())
def test_path_hashes_are_equal_exactly_for_equal_paths(html):
    """Two elements share their (tag, class) path hash exactly when the (tag, class) pairs on
    their paths from the root are the same, and their tag path hash when the tags are."""
    doc = build_document(html)
    facts = F.tree_facts(doc)
    els = doc.elements
    full, tags_only = [], []
    for i in range(len(els)):
        chain, e = [], i
        while e >= 0:
            chain.append(e)
            e = els.parents[e]
        full.append(tuple((els.tags[j], els.attrs[j].get("class")) for j in reversed(chain)))
        tags_only.append(tuple(els.tags[j] for j in reversed(chain)))
    for i in range(len(els)):
        for j in range(len(els)):
            assert (facts.paths[i, 0] == facts.paths[j, 0]) == (full[i] == full[j])
            assert (facts.paths[i, 1] == facts.paths[j, 1]) == (tags_only[i] == tags_only[j])


def test_template_paths_of_a_20000_deep_page():
    doc = page("<div>" * 20000 + "<p>deep text</p>" + "</div>" * 20000 + "<p>top text</p>")
    cols = part(base(doc), ("path_blocks", "path_share", "path_link_density", "tag_path_blocks", "tag_path_share",
                            "tag_path_link_density"))
    assert cols.values.shape == (2, 6) and np.isfinite(cols.values).all()
    assert cols.column("path_blocks").tolist() == [0.0, 0.0]


# ------------------------------------------------------------------ neighbours

def test_neighbours_shift_values_and_zero_the_edges():
    values = np.arange(1, 16, dtype=np.float32).reshape(5, 3)
    base = F.Columns(("log_words", "link_density", "unused"), values)
    nb = F.neighbours(base, ("log_words", "link_density"), (-2, -1, 1, 2))
    assert "unused@-1" not in nb.names
    words = values[:, 0]
    assert nb.column("log_words@-1").tolist() == [0.0, *words[:-1]]
    assert nb.column("log_words@+1").tolist() == [*words[1:], 0.0]
    assert nb.column("log_words@-2").tolist() == [0.0, 0.0, *words[:-2]]
    assert nb.column("link_density@+2").tolist() == [*values[2:, 1], 0.0, 0.0]


def test_neighbours_of_a_real_page_follow_reading_order():
    doc = page("<p>one</p><p>one two three</p><p><a href='/'>link only</a></p><p>last block of words here</p>")
    pf = learned.page_features(doc, "en")
    words, prev = pf.base.column("log_words"), pf.base.column("log_words@-1")
    links, nxt = pf.base.column("link_density"), pf.base.column("link_density@+1")
    for i in range(1, len(doc.blocks)):
        assert prev[i] == words[i - 1]
    for i in range(len(doc.blocks) - 1):
        assert nxt[i] == links[i + 1]
    assert prev[0] == 0.0 and nxt[-1] == 0.0
    assert nxt[1] == pytest.approx(1.0)


def test_neighbours_on_a_page_shorter_than_the_offsets():
    base = F.Columns(("log_words",), np.array([[2.0]], np.float32))
    nb = F.neighbours(base, ("log_words",))
    assert nb.values.shape == (1, 4)
    assert nb.values.tolist() == [[0.0, 0.0, 0.0, 0.0]]


# ------------------------------------------------------------------ whole matrices

PAGES = [
    "<p>Only one block here.</p>",
    "<nav><a href='/'>Home</a> <a href='/b'>Blog</a></nav><article><h1>Title</h1><p>Body. More body!</p>"
    "<pre>code\n  indented</pre></article><footer>\xa9 2024</footer>",
    "<table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td><a href='#'>4</a></td></tr></table>"
    "<ul>" + "<li><a href='/x'>item</a></li>" * 30 + "</ul>",
    "<div class='comments'><div class='comment'><p>\u00c9t\u00e9 \u4e2d\u6587 \U0001f600 text</p></div></div>"
    "<p>a<br><br>b<br><br>c</p>",
]


@pytest.mark.parametrize("body", PAGES)
def test_every_matrix_has_one_row_per_block_and_finite_values(body):
    doc = page(body, '<title>Title here</title><meta name="description" content="Body text">')
    n = len(doc.blocks)
    assert n > 0
    facts = F.tree_facts(doc)
    sh = shallow(doc)
    assert facts.parents.shape == (len(doc.elements),)
    groups = [sh, base(doc)]
    pf = learned.page_features(doc, "en")
    groups += [pf.base, F.token_columns(doc, F.vocabulary(("nav", "comment", "post")))]
    for cols in groups:
        assert cols.values.shape == (n, len(cols.names))
        assert len(set(cols.names)) == len(cols.names)
        assert np.all(np.isfinite(cols.values))
    assert len(pf.token_sets) == n


def test_page_features_of_an_empty_page():
    pf = learned.page_features(build_document("<html><body></body></html>"), "en")
    assert pf.base.values.shape[0] == 0
    assert pf.token_sets == []


def test_token_columns_mark_the_block_and_its_ancestors_tokens():
    doc = page("<div class='comments'><div class='comment-body'><p class='text'>Hi there</p></div></div>"
               "<p>Outside</p>")
    cols = F.token_columns(doc, F.vocabulary(("comments", "comment", "text", "absent")))
    inside, outside = block_index(doc, "Hi there"), block_index(doc, "Outside")
    assert cols.names == ("tok_comments", "tok_comment", "tok_text", "tok_absent")
    assert cols.values[inside].tolist() == [1.0, 1.0, 1.0, 0.0]
    assert cols.values[outside].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_token_bags_hold_the_token_columns_sparsely():
    doc = page("<div class='comments'><div class='comment-body'><p class='text'>Hi there</p></div></div>"
               "<p>Outside</p><p class='text absent'>Last</p>")
    vocabulary = F.vocabulary(("comments", "comment", "text", "absent"))
    dense = F.token_columns(doc, vocabulary).values
    bags = F.token_bags(doc, vocabulary)
    assert len(bags.offsets) == len(doc.blocks) + 1 and bags.offsets[0] == 0
    for i, row in enumerate(dense):
        assert bags.indices[bags.offsets[i]:bags.offsets[i + 1]].tolist() == np.flatnonzero(row).tolist()
    empty = F.token_bags(build_document("<p></p>"), vocabulary)
    assert empty.indices.shape == (0,) and empty.offsets.tolist() == [0]


CLASS_WORDS = ("nav", "post", "comment", "main-body", "x1", "post nav", "")


@st.composite
def classed_pages(draw):
    """Nested divs and paragraphs with ids and classes drawn from a few words (repeats, shared
    tokens, empty values, elements with neither)."""
    parts = []
    for _ in range(draw(st.integers(1, 12))):
        cls, ident = draw(st.sampled_from(CLASS_WORDS)), draw(st.sampled_from(CLASS_WORDS))
        attrs = (f" class='{cls}'" if cls else "") + (f" id='{ident}'" if draw(st.booleans()) else "")
        tag = draw(st.sampled_from(("div", "p", "section")))
        depth = draw(st.integers(0, 3))
        parts.append("<div class='wrap'>" * depth + f"<{tag}{attrs}>text {len(parts)}</{tag}>" + "</div>" * depth)
    return page("".join(parts))


@settings(max_examples=60, deadline=None)
@given(classed_pages(), st.lists(st.sampled_from(("nav", "post", "comment", "main", "body", "x1", "wrap", "absent")),
                                 unique=True))
def test_token_sets_columns_and_bags_agree(doc, vocabulary):
    """The three views of a page's tokens say the same: a block's column is 1 exactly when its set
    holds the token, and its bag lists exactly those columns."""
    vocabulary = F.Vocabulary(tuple(vocabulary))
    sets = F.token_sets(doc)
    dense = F.token_columns(doc, vocabulary).values
    bags = F.token_bags(doc, vocabulary)
    assert len(sets) == len(doc.blocks) == dense.shape[0] == len(bags.offsets) - 1
    facts = F.tree_facts(doc)
    for i, held in enumerate(sets):
        chain = [doc.blocks[i].element]
        for _ in range(2):
            chain.append(int(facts.parents[chain[-1]]))
        assert held == {t for element in chain for t in facts.tokens(element)}
        assert dense[i].tolist() == [float(t in held) for t in vocabulary.tokens]
        assert bags.indices[bags.offsets[i]:bags.offsets[i + 1]].tolist() == np.flatnonzero(dense[i]).tolist()


def test_a_block_s_tokens_are_its_element_s_and_two_ancestors_ids_and_classes():
    doc = page("<div id='outer' class='a'><div class='b c'><section id='mid'><p class='d'>Deep text</p>"
               "</section></div></div>")
    sets = F.token_sets(doc)
    assert sets[block_index(doc, "Deep text")] == {"d", "mid", "b", "c"}  # p, section, div; not the outer div


def test_features_of_a_100000_deep_page_without_recursion_error():
    depth = 100_000
    html = "<div>" * depth + "deep text at the bottom" + "</div>" * depth + "<p>after the nest</p>"
    doc = build_document(html)
    pf = learned.page_features(doc, "en")
    assert pf.base.values.shape[0] == len(doc.blocks) >= 2
    assert np.all(np.isfinite(pf.base.values))
    assert any(b.text == "deep text at the bottom" for b in doc.blocks)


def test_page_features_are_deterministic():
    doc = page(PAGES[1])
    a, b = learned.page_features(doc, "en"), learned.page_features(doc, "en")
    assert a.base.names == b.base.names
    assert np.array_equal(a.base.values, b.base.values)


_PLAIN_DATE_LIKE = re.compile(r"\b(?:19|20)\d\d\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789 /.-a_\u0661\u0663\u00e9", max_size=24))
def test_date_like_is_what_the_plain_pattern_finds(text):
    if not text.split():
        return
    doc = page(f"<p>{text}</p>")
    found = bool(_PLAIN_DATE_LIKE.search(doc.blocks[0].text))
    assert shallow(doc).column("date_like").tolist() == [float(found)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40),
       st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40))
def test_title_overlap_is_the_share_of_a_block_s_words_in_the_title(text, title):
    escape = {ord("&"): "&amp;", ord("<"): "&lt;"}
    doc = build_document(f"<html><head><title>{title.translate(escape)}</title></head>"
                         f"<body><p>{text.translate(escape)}</p></body></html>")
    if not doc.blocks:
        return
    words, title_words = word_set(doc.blocks[0].text), word_set(doc.title)
    expected = len(words & title_words) / len(words) if words and title_words else 0.0
    assert doc.native.word_overlaps([doc.title])[0, 0] == expected


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=30),
                 st.text(alphabet="aZ09-_ .:é\t\u212a\u0130", max_size=30)))
def test_id_and_class_tokens_are_the_lowercased_alphanumeric_runs(raw):
    html_value = raw.replace("&", "&amp;").replace("'", "&#39;")
    doc = build_document(f"<html><body><div class='{html_value}'><p>text</p></div></body></html>")
    facts = F.tree_facts(doc)
    div = doc.elements.tags.index("div")
    assert facts.tokens(div) == re.findall(r"[a-z0-9]+", raw.lower())


def test_date_like_on_chosen_texts():
    texts = ["1999", "x2001", "2020a", "3/4/2021", "12-31-99", "1.2.3", "1850", "on 07.08.2024"]
    doc = page("".join(f"<p>{t}</p>" for t in texts))
    assert shallow(doc).column("date_like").tolist() == [1, 0, 0, 1, 1, 0, 0, 1]


def test_an_element_holds_a_cue_through_its_id_or_its_class():
    doc = page("<div id='share' class='x'><p>By id</p></div><div class='site-footer'><p>By class</p></div>"
               "<div id='a' class='b'><p>Neither</p></div><div id='main' class='sidebar'><p>Both kinds</p></div>")
    facts = F.tree_facts(doc)
    for text, neg, pos in (("By id", 1, 0), ("By class", 1, 0), ("Neither", 0, 0), ("Both kinds", 1, 1)):
        element = doc.blocks[block_index(doc, text)].element
        parent = int(facts.parents[element])
        tokens = facts.tokens(parent)
        assert (not F.NEGATIVE_CUES.isdisjoint(tokens), not F.POSITIVE_CUES.isdisjoint(tokens)) == (neg, pos)
        assert (facts.neg_distance[parent] == 0, facts.pos_distance[parent] == 0) == (neg, pos)


def test_tag_one_hot_columns_name_each_block_s_own_tag():
    doc = page("<p>Para</p><h2>Head</h2><custom-el>Custom</custom-el><ul><li>Item</li></ul>")
    cols = context(doc)
    one_hot = cols.values[:, [cols.names.index(f"tag_{t}") for t in F.BLOCK_TAG_ONE_HOT]]
    for block in doc.blocks:
        expected = [float(block.tag == t) for t in F.BLOCK_TAG_ONE_HOT]
        assert one_hot[block.index].tolist() == expected
    item = block_index(doc, "Item")
    assert cols.column("in_li")[item] == 1.0 and cols.column("in_ul")[item] == 1.0
