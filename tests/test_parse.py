"""The native parse under ParseLimits, seen through the document it builds: the depth cap,
the attribute cap, script text the caps must leave alone, and input the parser refuses."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from thresher.document.blocks import build_document
from thresher.document.parse import ParseLimits
from thresher.errors import InputError

LOW = ParseLimits(max_attributes=4, max_depth=20)


def texts(html: str, limits: ParseLimits = ParseLimits()) -> list[str]:
    return [block.text for block in build_document(html, limits=limits).blocks]


def test_the_depth_cap_keeps_every_character_of_text():
    html = "<body>" + "".join(f"<div>t{i} " for i in range(50)) + "deep" + "</div>" * 50 + "<p>after</p>"
    doc = build_document(html, limits=LOW)
    assert max(doc.elements.depths) < LOW.max_depth
    assert " ".join(b.text for b in doc.blocks) == " ".join(f"t{i}" for i in range(50)) + " deep after"
    assert doc.blocks[-1].tag == "p"  # the tree is back at its ordinary depth after the deep part


def test_a_paragraph_inside_100000_divs_keeps_its_text():
    html = "<div>" * 100_000 + "<p>the deep paragraph</p>" + "</div>" * 100_000 + "<p>after</p>"
    doc = build_document(html)
    assert max(doc.elements.depths) < ParseLimits().max_depth
    assert [b.text for b in doc.blocks] == ["the deep paragraph", "after"]


@pytest.mark.parametrize("tag", ["p", "li", "option", "dd", "dt"])
def test_implicitly_closed_elements_are_not_nesting(tag):
    # 30,000 unclosed elements the standard closes one by the next: siblings, never deep.
    html = "<body><ul><select><dl>" if tag in ("li", "option", "dd") else "<body>"
    html += f"<{tag}>item " * 30_000 + "<span></span>" * 1000
    doc = build_document(html)
    assert len(doc.blocks) == 30_000
    assert {b.text for b in doc.blocks} == {"item"}


def test_paragraphs_before_many_empty_spans_stay_apart():
    doc = build_document("<body>" + "<p>para</p>" * 3000 + "<span></span>" * 12000)
    assert [b.text for b in doc.blocks] == ["para"] * 3000


def test_void_and_self_closing_elements_at_the_cap_leave_the_depth_as_it_was():
    html = "<body>" + "<div>" * 30 + "<br><img src=x><svg><x/></svg>text" + "</div>" * 30 + "<p>after</p>"
    doc = build_document(html, limits=LOW)
    assert [(b.text, b.tag) for b in doc.blocks] == [("text", "div"), ("after", "p")]


def test_block_tags_dropped_at_the_cap_still_separate_words():
    html = "<body>" + "<div>" * 30 + "one<p>two</p><li>three<br>four"
    assert texts(html, LOW) == ["one two three four"]


def test_the_attribute_cap_keeps_the_first_attributes_and_the_content():
    flood = " ".join(f'a{i}="v{i}"' for i in range(50))
    doc = build_document(f'<body><div id=main class="x y" {flood}><p>kept</p></div>', limits=LOW)
    div = next(el for el in doc.elements if el.tag == "div")
    assert list(div.attrs) == ["id", "class", "a0", "a1"]
    assert [b.text for b in doc.blocks] == ["kept"]


def test_200000_attributes_parse_and_keep_the_text():
    flood = " ".join(f"a{i}=v" for i in range(200_000))
    doc = build_document(f"<body><div {flood}><p>hello</p></div>")
    assert [b.text for b in doc.blocks] == ["hello"]
    assert len(next(el for el in doc.elements if el.tag == "div").attrs) == ParseLimits().max_attributes


def test_script_text_that_looks_like_a_flooded_tag_is_left_alone():
    # A comparison in a script, then hundreds of words, then the script's own end tag.
    script = "if (i<n) { " + " ".join(f"w{i}" for i in range(600)) + " }"
    html = f"<body><script>{script}</script><p>after the script</p>"
    doc = build_document(html, limits=LOW)
    assert [b.text for b in doc.blocks] == ["after the script"]


def test_a_flooded_tag_without_a_closing_bracket_keeps_the_text_before_it():
    html = "<body><p>before</p><div " + "a " * 1000
    assert texts(html, LOW) == ["before"]


def test_options_and_list_items_in_their_hundreds_of_thousands_parse():
    doc = build_document("<select>" + "<option selected>o</option>" * 50_000 + "</select><p>after</p>")
    assert len(doc.blocks) == 50_001 and doc.blocks[-1].text == "after"


def test_nul_characters_do_not_end_the_text():
    assert texts("<p>a\x00b</p>") in (["ab"], ["a\ufffdb"])


def test_lone_surrogates_become_replacement_characters():
    assert texts("<p>a\ud800b</p>") == ["a\ufffdb"]


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_input_is_refused(text):
    with pytest.raises(InputError):
        build_document(text)


def test_limits_are_checked():
    with pytest.raises(ValueError):
        ParseLimits(max_depth=1)


@given(st.text(alphabet="<>/=\"' abcdivp\n", max_size=300))
def test_any_tag_soup_builds_a_document_whose_ranges_nest(html):
    if not html.strip():
        return
    doc = build_document(html, limits=LOW)
    els = doc.elements
    for i in range(len(els)):
        assert 0 <= els.first_blocks[i] <= els.end_blocks[i] <= len(doc.blocks)
        parent = els.parents[i]
        if parent >= 0:
            assert parent < i and els.depths[i] == els.depths[parent] + 1
            assert els.first_blocks[parent] <= els.first_blocks[i] <= els.end_blocks[i] <= els.end_blocks[parent]


def test_a_text_only_element_past_the_cap_does_not_swallow_a_later_one_s_end_tag():
    # A <title> past the cap used to be dropped and counted, so a later title's end tag was
    # taken for its end: the tree builder stayed in its text mode and the next tag panicked.
    html = "<div>" * 30 + "<title>deep</title>" + "</div>" * 30 + "<title>t</title><p>after the title</p>"
    assert texts(html, LOW)[-1] == "after the title"
