"""thresher.document.blocks: segmentation, block statistics, the element table and page-level facts."""
from __future__ import annotations

import dataclasses

import pytest

from thresher.document.blocks import Block, Document, ElementTable, build_document, document_of, normalize_space
from thresher.document.decode import decode
from thresher.errors import InputError


def texts(html: str) -> list[str]:
    return [block.text for block in build_document(html).blocks]


def only_block(html: str) -> Block:
    (block,) = build_document(html).blocks
    return block


# -------------------------------------------------------------- segmentation

def test_block_tags_split_and_inline_tags_do_not():
    html = "<body><p>one <b>bold</b> <i>it</i> <span>span</span></p><div>two</div><li>three</li><h3>four</h3></body>"
    assert texts(html) == ["one bold it span", "two", "three", "four"]


def test_text_around_a_nested_block_becomes_separate_blocks():
    assert texts("<div>before<p>inside</p>after</div>") == ["before", "inside", "after"]


def test_a_single_br_does_not_split():
    assert texts("<div>one<br>two</div>") == ["one two"]


def test_two_brs_split_even_with_whitespace_between():
    assert texts("<div>one<br><br>two<br> \n <br>three</div>") == ["one", "two", "three"]


def test_a_single_br_is_a_newline_span_of_the_br_element():
    doc = build_document("<div>one<br>two</div>")
    (block,) = doc.blocks
    br = doc.elements.tags.index("br")
    assert ("\n", br) in block.spans
    assert [text for text, _ in block.spans] == ["one", "\n", "two"]


def test_spans_name_the_element_directly_containing_the_text():
    doc = build_document("<p>plain <b>bold <i>both</i></b> end</p>")
    (block,) = doc.blocks
    tags = doc.elements.tags
    assert [(text, tags[element]) for text, element in block.spans] == [
        ("plain ", "p"), ("bold ", "b"), ("both", "i"), (" end", "p")]


def test_table_cells_are_blocks():
    assert texts("<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>") == ["a", "b", "c"]


def test_whitespace_only_content_makes_no_block():
    assert texts("<div>   </div><p>\n\t</p><p>x</p>") == ["x"]


def test_text_outside_any_block_tag_belongs_to_body():
    doc = build_document("just some text")
    (block,) = doc.blocks
    assert block.text == "just some text"
    assert block.tag == "body"


# ----------------------------------------------------------- normalisation

def test_whitespace_is_collapsed_and_entities_decoded():
    block = only_block("<p>  many \n\n spaces\t&amp; tabs&nbsp;and&#160;nbsp  </p>")
    assert block.text == "many spaces & tabs and nbsp"
    assert block.char_count == len(block.text)
    assert block.word_count == 6


def test_pre_keeps_newlines_and_indentation_but_not_blank_edges():
    block = only_block("<pre>\n\n  def f():\n      return 1   \n\n</pre>")
    assert block.text == "  def f():\n      return 1"
    assert block.tag == "pre"


def test_text_inside_pre_descendants_keeps_newlines():
    block = only_block("<pre><code>a = 1\nb = 2</code></pre>")
    assert block.text == "a = 1\nb = 2"


def test_normalize_space():
    assert normalize_space("  a \n b\t\tc ") == "a b c"


# ----------------------------------------------------------- block statistics

def test_link_char_and_word_counts():
    block = only_block('<p>Read <a href="/x">the   full story</a> or <a href="/y">more</a>.</p>')
    assert block.text == "Read the full story or more."
    assert block.link_char_count == len("the full story") + len("more")
    assert block.link_word_count == 4
    assert block.link_density == pytest.approx(18 / len(block.text))


def test_link_density_of_an_all_link_block_is_one():
    assert only_block('<li><a href="/">Home page</a></li>').link_density == 1.0


def test_heading_flag_for_heading_tags_and_text_inside_them():
    doc = build_document("<h1>Title</h1><h2>Sub <span>title</span></h2><p>body</p>")
    assert [(b.text, b.is_heading) for b in doc.blocks] == [
        ("Title", True), ("Sub title", True), ("body", False)]


def test_tag_count_counts_start_tags_opened_in_the_block():
    doc = build_document("<div><p>a <b>b</b> <i>c <u>d</u></i></p><p>plain</p></div>")
    assert [(b.text, b.tag_count) for b in doc.blocks] == [("a b c d", 4), ("plain", 1)]


def test_offsets_accumulate_block_text_lengths():
    doc = build_document("<p>one</p><p>three</p><p>x</p>")
    assert [b.offset for b in doc.blocks] == [0, 3, 8]


def test_block_indices_are_positions():
    doc = build_document("<p>a</p><p>b</p><div>c<p>d</p>e</div>")
    assert [b.index for b in doc.blocks] == list(range(len(doc.blocks)))


# ----------------------------------------------------------- element table

PAGE = ('<html lang="en"><head><title>T</title></head><body>'
        '<div id="main" class="content wide"><p>first</p><section><p>second</p><p>third</p></section></div>'
        '<footer><p>foot</p></footer></body></html>')


def test_elements_are_in_pre_order_with_parents_and_depths():
    doc = build_document(PAGE)
    els = doc.elements
    # head is skipped: its children (title) are not in the table
    assert els.tags == ("html", "head", "body", "div", "p", "section", "p", "p", "footer", "p")
    assert els.parents[0] == -1
    for i in range(1, len(els)):
        assert els.parents[i] < i
        assert els.depths[i] == els.depths[els.parents[i]] + 1


def test_the_numeric_element_columns_come_from_the_native_page_unchanged():
    doc = build_document(PAGE)
    els = doc.elements
    given = ElementTable(els.tags, tuple(els.parents), tuple(els.depths), tuple(els.attrs),
                         tuple(els.first_blocks), tuple(els.end_blocks))
    fresh = build_document(PAGE).elements
    assert given == fresh == els and len(fresh) == len(els.tags)
    assert fresh.end_blocks[0] == len(doc.blocks) and fresh.first_blocks[0] == 0
    assert all(isinstance(c, tuple) for c in (fresh.parents, fresh.depths, fresh.first_blocks, fresh.end_blocks))
    with pytest.raises(AttributeError):
        fresh.parents = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        ElementTable(els.tags, tuple(els.parents))
    with pytest.raises(ValueError):
        doc.native.element_column("tags")


def test_element_accessors():
    doc = build_document(PAGE)
    div = doc.elements[doc.elements.tags.index("div")]
    assert div.tag == "div" and div.id == "main" and div.classes == ("content", "wide")
    assert div.attrs["id"] == "main" and "missing" not in div.attrs
    assert doc.elements[-1].tag == "p"
    assert [e.tag for e in doc.elements[0:3]] == ["html", "head", "body"]


def test_element_blocks_and_block_element_map_both_ways():
    doc = build_document(PAGE)
    tags = doc.elements.tags
    assert [b.text for b in doc.blocks] == ["first", "second", "third", "foot"]
    div, section, footer = tags.index("div"), tags.index("section"), tags.index("footer")
    assert doc.element_blocks(div) == range(0, 3)
    assert doc.element_blocks(section) == range(1, 3)
    assert doc.element_blocks(footer) == range(3, 4)
    assert doc.element_blocks(0) == range(0, 4)
    for block in doc.blocks:
        assert doc.elements[block.element].tag == block.tag == "p"
        assert block.index in doc.element_blocks(block.element)
        assert doc.block_element(block.index).index == block.element


def test_every_block_lies_in_each_ancestor_s_range():
    doc = build_document(PAGE)
    for block in doc.blocks:
        for el in doc.ancestors(block.element):
            assert block.index in doc.element_blocks(el.index)


def test_path_runs_from_root_to_the_block_element():
    doc = build_document(PAGE)
    tags = doc.elements.tags
    path = doc.path(2)  # "third"
    assert [tags[i] for i in path] == ["html", "body", "div", "section", "p"]
    assert path[-1] == doc.blocks[2].element
    assert [e.index for e in doc.ancestors(path[-1])] == list(reversed(path))


def test_elements_without_text_have_empty_block_ranges():
    doc = build_document("<p>a</p><div><img src=x></div><p>b</p>")
    div = doc.elements.tags.index("div")
    assert len(doc.element_blocks(div)) == 0


# ------------------------------------------------------ excluded content

def test_script_style_head_and_friends_are_not_page_text():
    html = ("<html><head><title>Title</title><style>.x{}</style></head><body>"
            "<script>var secret = 'script text';</script><style>p { color: red }</style>"
            "<template><p>template text</p></template><svg><text>svg text</text></svg>"
            "<p>visible</p></body></html>")
    doc = build_document(html)
    assert [b.text for b in doc.blocks] == ["visible"]
    skipped = sorted(doc.elements.tags[i] for i in doc.skipped)
    assert skipped == ["head", "script", "style", "svg", "template"]


def test_noscript_content_is_page_text():
    assert texts("<body><noscript>Please enable JavaScript</noscript><p>x</p></body>") == [
        "Please enable JavaScript", "x"]


# ------------------------------------------------------ page-level facts

HEAD = """<html lang="de-AT"><head><title>  The   Title </title><title>second</title>
<meta name="Description" content="A description.">
<meta property="OG:Title" content="OG title">
<meta name="empty" content="">
<meta charset="utf-8">
<script type="application/ld+json">{"@type": "Article", "headline": "H",
  "@graph": [{"@type": "Person", "name": "P"}]}</script>
<script type="application/ld+json">not json</script>
</head><body><p>text</p>
<script type="application/ld+json; charset=utf-8">[{"@type": "WebPage"}]</script></body></html>"""


def test_title_lang_and_meta():
    doc = build_document(HEAD, url="https://example.org/a")
    assert doc.title == "The Title"
    assert doc.lang == "de"
    assert doc.url == "https://example.org/a"
    assert doc.meta == (("description", "A description."), ("og:title", "OG title"), ("empty", ""))
    assert doc.meta_content("og:title", "description") == "A description."
    assert doc.meta_content("empty", "OG:TITLE") == "OG title"
    assert doc.meta_content("nothing") == ""


def test_json_ld_is_collected_from_head_and_body_and_flattened():
    doc = build_document(HEAD)
    assert len(doc.json_ld) == 3
    types = [obj.get("@type") for obj in doc.json_ld_objects()]
    assert types == ["Article", "Person", "WebPage"]


def test_document_is_frozen_and_records_its_source():
    html = "<p>hello</p>"
    doc = build_document(html, encoding="utf-8")
    assert isinstance(doc, Document)
    assert doc.source_length == len(html) and doc.encoding == "utf-8"
    assert len(doc) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.title = "x"  # type: ignore[misc]


@pytest.mark.parametrize("html", ["", "   \n "])
def test_empty_input_is_refused(html):
    with pytest.raises(InputError):
        build_document(html)


def test_a_page_without_text_has_no_blocks():
    doc = build_document("<html><body><img src=x><div> </div></body></html>")
    assert doc.blocks == ()
    assert all(len(doc.element_blocks(i)) == 0 for i in range(len(doc.elements)))


# ------------------------------------------------------ hostile structure

def test_100000_deep_nesting_builds_and_keeps_the_deep_paragraph():
    depth = 100_000
    html = ("<html><body><p>top paragraph</p>" + "<div>" * depth + "<p>the deep paragraph text</p>"
            + "</div>" * depth + "<p>bottom paragraph</p></body></html>")
    doc = build_document(html)
    assert [b.text for b in doc.blocks] == ["top paragraph", "the deep paragraph text", "bottom paragraph"]
    deep = doc.blocks[1]
    assert len(doc.path(deep.index)) > 100  # really nested, capped by the parser limits
    assert max(doc.elements.depths) <= 401


def test_a_document_without_attributes_keeps_everything_else():
    html = ('<html lang="de"><head><title>T</title><meta name="author" content="A">'
            '<script type="application/ld+json">{"@type": "Article"}</script></head>'
            '<body><div class="x" id="y"><p>Hallo <a href="/z">Welt</a>.</p></div></body></html>')
    full, lean = build_document(html), build_document(html, attributes=False)
    assert lean.blocks == full.blocks and lean.elements.tags == full.elements.tags
    assert (lean.lang, lean.meta, lean.json_ld) == (full.lang, full.meta, full.json_ld)
    assert full.lang == "de" and full.meta and full.json_ld
    by_tag = dict(zip(lean.elements.tags, lean.elements.attrs))
    assert by_tag["div"] == {} and by_tag["a"] == {} and by_tag["html"] == {"lang": "de"}


def test_extract_text_is_the_same_with_or_without_attributes():
    import thresher

    html = ("<html><body><nav><a href='/'>Home</a> <a href='/b'>Blog</a></nav><article><p>"
            + "Plain words in a paragraph that is long enough to count as the article text. " * 8
            + "</p></article></body></html>")
    for algorithm in ("boilerpipe-article", "justext", "cetr", "justext+tree"):
        assert thresher.extract(html, algorithm=algorithm, language="en") == \
            thresher.extract_result(html, algorithm=algorithm, language="en").render("text")


# ------------------------------------------------------------ block numbers

def test_block_numbers_are_the_blocks_counts_as_read_only_columns():
    doc = build_document('<h1>Title</h1><p>Read <a href="/x">the story</a> now.</p><pre>a\n b</pre>')
    numbers = doc.numbers
    assert numbers.chars.tolist() == [b.char_count for b in doc.blocks]
    assert numbers.words.tolist() == [b.word_count for b in doc.blocks]
    assert numbers.link_chars.tolist() == [b.link_char_count for b in doc.blocks]
    assert numbers.link_words.tolist() == [b.link_word_count for b in doc.blocks]
    assert numbers.tags.tolist() == [b.tag_count for b in doc.blocks]
    assert numbers.is_heading.tolist() == [1.0, 0.0, 0.0]
    assert numbers.element.tolist() == [b.element for b in doc.blocks]
    assert numbers.link_density.tolist() == [b.link_density for b in doc.blocks]
    assert doc.numbers is numbers  # built once
    with pytest.raises(ValueError):
        numbers.chars[0] = 0.0


def test_block_numbers_of_a_page_without_blocks_are_empty():
    numbers = build_document("<html><body><img src=x></body></html>").numbers
    assert all(len(column) == 0 for column in numbers) and numbers.element.dtype.kind == "i"


def test_mathml_is_page_text_but_its_annotations_and_hidden_copies_are_not():
    html = ('<body><p>When <math><mi>a</mi><mo>≠</mo><mn>0</mn>'
            '<annotation encoding="application/x-tex">a \\neq 0</annotation></math> holds</p>'
            '<p>Also <span style="display: none"><math><mi>b</mi></math></span>'
            '<img alt="b"> and <math style="display:none"><mi>c</mi></math>.</p></body>')
    for attributes in (True, False):
        doc = build_document(html, attributes=attributes)
        assert [b.text for b in doc.blocks] == ["When a≠0 holds", "Also and ."]
        assert sorted(doc.elements.tags[i] for i in doc.skipped) == ["annotation", "head", "math", "math"]


def test_tag_names_survive_the_walks_tag_id_shortcut():
    doc = build_document("<DIV><SPAN>a</SPAN><math><mi>x</mi></math><clippath>y</clippath><My-Widget>z</My-Widget>"
                         "<span>b</span><math><mi>v</mi></math><P>w</P></DIV>")
    tags = doc.elements.tags
    assert tags[tags.index("div"):] == ("div", "span", "math", "mi", "clippath", "my-widget", "span", "math", "mi", "p")
    assert [b.text for b in doc.blocks] == ["axyzbv", "w"]


def test_ruby_annotations_are_not_text():
    doc = build_document("<p><ruby>子<rp>(</rp><rt>こども</rt><rp>)</rp></ruby>が来た</p>")
    assert [b.text for b in doc.blocks] == ["子が来た"]


def test_a_page_read_from_its_utf8_bytes_is_the_page_read_from_its_text():
    html = ("<html><head><title>Café</title></head><body><p class='x'>Grüße, 世界 😀</p>"
            "<ul><li>a</li></ul></body></html>")
    from_text = build_document(html)
    from_bytes = document_of(decode(html.encode("utf-8")))
    assert from_bytes.blocks == from_text.blocks and from_bytes.title == from_text.title == "Café"
    assert from_bytes.elements.tags == from_text.elements.tags
    assert [dict(a) for a in from_bytes.elements.attrs] == [dict(a) for a in from_text.elements.attrs]


# -------------------------------------------------------------- the lazy view over the native page

LAZY_PAGE = "<body>" + "".join(f"<p>paragraph {i} <b>bold</b></p>" for i in range(40)) + "</body>"


def test_blocks_are_made_when_read_and_are_the_same_whichever_way():
    doc = build_document(LAZY_PAGE)
    blocks = doc.blocks
    assert len(blocks) == 40 and not isinstance(blocks, tuple) and doc.native is not None
    one_by_one = [blocks[i] for i in range(len(blocks))]
    fresh = build_document(LAZY_PAGE).blocks
    assert tuple(fresh) == tuple(one_by_one) == fresh[0:40] == blocks[:]
    assert blocks[-1] == one_by_one[39] and blocks[-1].text == "paragraph 39 bold"
    assert blocks[3:11] == tuple(one_by_one[3:11]) and blocks[5:2] == () and blocks[::10] == tuple(one_by_one[::10])
    assert blocks[7] is blocks[7]  # a block read twice is the one object
    assert blocks == fresh and blocks == tuple(one_by_one) and blocks != one_by_one[:3]
    with pytest.raises(IndexError):
        blocks[40]


def test_a_slice_read_before_the_whole_keeps_its_blocks():
    blocks = build_document(LAZY_PAGE).blocks
    middle = blocks[10:20]
    whole = list(blocks)
    assert all(whole[10 + i] is block for i, block in enumerate(middle))
    assert [block.index for block in whole] == list(range(40))


def test_a_document_built_in_python_has_no_native_page():
    doc = build_document("<p>one</p>")
    made = dataclasses.replace(doc, blocks=tuple(doc.blocks))
    assert made.native is None and made.blocks == doc.blocks
