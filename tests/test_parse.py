"""thresher.parse: the attribute and depth caps that keep hostile pages linear, and parse()."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thresher.errors import InputError
from thresher.parse import (DEFUSED_SELECT, ParseLimits, _source, cap_attributes, cap_depth, count_lt, defuse_selects,
                            is_tame, long_tags, many_options, parse, sanitize)

NORMAL = ('<html><head><title>T</title></head><body><div class="a" id="b">'
          '<p>Hello <a href="/x">world</a>.</p><br/><img src="i.png" alt="x"></div></body></html>')


def flood_tag(n: int, name: str = "div") -> str:
    return f"<{name} " + " ".join(f'data-a{i}="v{i}"' for i in range(n)) + ">"


# ------------------------------------------------------------ cap_attributes

def test_cap_attributes_keeps_the_first_n_attributes():
    html = "<body>" + flood_tag(2000) + "inside</div><p>after</p></body>"
    out = cap_attributes(html, max_attributes=10)
    tag = re.search(r"<div[^>]*>", out).group(0)
    assert re.findall(r'data-a(\d+)="v\1"', tag) == [str(i) for i in range(10)]
    assert out.endswith("inside</div><p>after</p></body>")
    assert out.startswith("<body><div ")


def test_cap_attributes_handles_quoted_unquoted_and_bare_attributes():
    attrs = " ".join(f"a{i}='x y' b{i}=z c{i}" for i in range(700))
    html = f"<span {attrs}>text</span>"
    out = cap_attributes(html, max_attributes=4)
    assert out == "<span a0='x y' b0=z c0 a1='x y'>text</span>"


def test_cap_attributes_leaves_a_long_tag_with_few_attributes_alone():
    html = '<p><img src="data:image/png;base64,' + "A" * 10000 + '" alt="pixel">text</p>'
    assert cap_attributes(html, max_attributes=2) is html


def test_cap_attributes_returns_the_same_object_when_nothing_to_fix():
    assert cap_attributes(NORMAL) is NORMAL
    flood = flood_tag(300) + "x</div>"
    assert cap_attributes(flood, max_attributes=300) is flood


def test_cap_attributes_caps_every_flooded_tag():
    html = flood_tag(600) + "a</div>" + flood_tag(600, "span") + "b</span>"
    out = cap_attributes(html, max_attributes=3)
    assert out == ('<div data-a0="v0" data-a1="v1" data-a2="v2">a</div>'
                   '<span data-a0="v0" data-a1="v1" data-a2="v2">b</span>')


# ------------------------------------------------------------ long_tags

_EVERY_LONG_TAG = re.compile(r"<[A-Za-z][^<>]{4096,}>")  # what long_tags must find, by brute force


_PIECES = st.one_of(
    st.builds(lambda n: "x" * n, st.integers(0, 5000)),  # text
    st.builds(lambda n: "<a" + " b" * n + ">", st.integers(2040, 4500)),  # tags of about 4 to 9 KB
    st.builds(lambda n: "<" + "c" * n, st.integers(0, 3000)),  # a '<' that no '>' closes soon
    st.sampled_from(["<p>", ">", "<", "</div>", "\n"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=10))
def test_long_tags_finds_exactly_the_tags_a_full_scan_finds(pieces):
    html = "".join(pieces)
    assert list(long_tags(html)) == [m.span() for m in _EVERY_LONG_TAG.finditer(html)]
    assert list(long_tags(html.encode("ascii"))) == list(long_tags(html))


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=10), st.sampled_from(["", "é", "\u4e2d", "\U0001f600"]))
def test_long_tags_of_the_utf8_bytes_cover_every_long_tag_of_the_text(pieces, wide):
    html = "".join(pieces).replace("b", wide or "b")  # multi-byte characters make bytes outnumber characters
    found_in_bytes = {start for start, _end in long_tags(html.encode("utf-8"))}
    for start, _end in long_tags(html):
        assert len(html[:start].encode("utf-8")) in found_in_bytes


_BYTE_PIECES = st.one_of(
    st.builds(lambda head, n, end: head + "y" * n + end, st.sampled_from(["<a", "<Z", "<1", "<!", "< ", "<"]),
              st.integers(4090, 4100), st.sampled_from([">", "<", "", "\u00e9>"])),
    st.sampled_from(["<p>", ">", "<", "x", "\n"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_BYTE_PIECES, max_size=8))
def test_long_tags_of_bytes_are_what_a_full_scan_of_the_bytes_finds(pieces):
    data = "".join(pieces).encode("utf-8")
    assert list(long_tags(data)) == [m.span() for m in re.finditer(rb"<[A-Za-z][^<>]{4096,}>", data)]


def test_long_tags_finds_a_tag_that_starts_mid_stretch_and_one_at_the_very_end():
    tag = "<div " + "a " * 3000 + ">"
    html = "x" * 1000 + tag + "text" + tag
    assert [html[start:end] for start, end in long_tags(html)] == [tag, tag]


# ----------------------------------------------------------------- cap_depth

def test_cap_depth_drops_only_the_over_deep_tags_and_keeps_all_text():
    html = "<body>" + "".join(f"<div>t{i} " for i in range(50)) + "deep" + "</div>" * 50 + "<p>after</p></body>"
    out = cap_depth(html, max_depth=20)
    assert out.count("<div>") == 20 - 1  # body takes one level
    assert out.count("</div>") == 19
    assert re.sub(r"<[^>]+>", "", out) == re.sub(r"<[^>]+>", "", html)  # every character of text kept
    assert out.endswith("<p>after</p></body>")


def test_cap_depth_leaves_void_and_self_closing_tags_alone():
    html = "<div>" * 30 + "<br><img src=x><x/>text" + "</div>" * 30
    out = cap_depth(html, max_depth=10)
    assert "<br><img src=x><x/>text" in out
    assert out.count("<div>") == 10


def test_cap_depth_returns_the_same_object_when_nothing_to_fix():
    shallow = "<div>" * 10 + "text" + "</div>" * 10
    assert cap_depth(shallow, max_depth=20) is shallow
    assert cap_depth(NORMAL) is NORMAL


def test_cap_depth_skips_pages_with_few_tags():
    deep = "<div>" * 50 + "text" + "</div>" * 50
    assert cap_depth(deep, max_depth=10, min_tags=1000) is deep
    assert cap_depth(deep, max_depth=10) is not deep


def test_cap_depth_on_100000_levels():
    html = "<div>" * 100_000 + "<p>the deep paragraph</p>" + "</div>" * 100_000
    out = cap_depth(html, max_depth=400)
    assert out.count("<div>") == 400
    assert "<p>" not in out  # the paragraph itself was over-deep
    assert "the deep paragraph" in out


# ------------------------------------------------------------ defuse_selects

def test_defuse_selects_renames_every_select_tag_of_a_page_with_too_many_options():
    html = ('<SELECT name="a">' + "<option>x</option>" * 3 + "</Select >"
            "<select\nid=b><OPTION>y</select><select-box>k</select-box><selected>s</selected>")
    out = defuse_selects(html, max_options=3)
    assert out == (f'<{DEFUSED_SELECT} name="a">' + "<option>x</option>" * 3 + f"</{DEFUSED_SELECT} >"
                   f"<{DEFUSED_SELECT}\nid=b><OPTION>y</{DEFUSED_SELECT}><select-box>k</select-box><selected>s</selected>")


def test_defuse_selects_returns_the_same_object_up_to_max_options():
    html = "<select>" + "<option>x</option>" * 4 + "</select>"
    assert defuse_selects(html, max_options=4) is html
    assert sanitize(html, ParseLimits(max_options=4)) is html


@pytest.mark.parametrize("n", [0, 1, 5, 6])
def test_many_options_counts_text_and_its_utf8_bytes_alike(n):
    html = "<p>caf\u00e9</p><select>" + "<option>\u4e2d</option><Option>o" * n + "</select>"
    assert many_options(html, 10) is many_options(html.encode("utf-8"), 10) is (2 * n > 10)


def test_a_defused_select_keeps_every_option_and_its_text():
    options = "".join(f"<option selected>o{i}</option>" for i in range(3000))
    tree = parse(f"<p>before</p><select>{options}</select><p>after</p>")
    assert len(tree.css("option")) == 3000 and not tree.css("select")
    text = tree.body.text(separator=" ")
    assert "o0" in text and "o2999" in text and text.index("before") < text.index("o1500") < text.index("after")


# ------------------------------------------------------------ sanitize, parse

def test_sanitize_drops_nul_characters():
    assert sanitize("<p>a\x00b</p>") == "<p>ab</p>"


def test_sanitize_returns_the_same_object_for_an_ordinary_page():
    assert sanitize(NORMAL) is NORMAL


def test_sanitize_applies_both_caps():
    html = "<body>" + flood_tag(1000) + "<div>" * 30000 + "text" + "</div>" * 30001 + "</body>"
    out = sanitize(html, ParseLimits(max_attributes=5, max_depth=100, depth_check_tags=10))
    assert out.count("data-a") == 5
    assert out.count("<div>") < 100
    assert "text" in out


@pytest.mark.parametrize("html, tame", [
    (NORMAL, True),
    ("<p>a\x00b</p>", False),
    ("<body>" + flood_tag(300) + "</div></body>", False),
    ("<div>" * 20001, False),
    ("<select>" + "<option>x" * 2001 + "</select>", False),
    ("<select>" + "<option>x" * 2000 + "</select>", True),
    ('<body><img alt="' + "x " * 3000 + '"></body>', True),  # long, but one attribute
    ("<body><a " + "\u4e2d " * 1500 + ">x</a></body>", True),  # a flood, long in bytes only: left as it is
])
def test_is_tame_exactly_when_sanitize_certainly_changes_nothing(html, tame):
    assert is_tame(html) is is_tame(html.encode("utf-8")) is tame
    if tame:
        assert sanitize(html) is html


MANY_SHALLOW_TAGS = "<body>" + "<p>x <b>y</b></p>" * 6000 + "</body>"  # too many tags for is_tame to be sure


@pytest.mark.parametrize("html", [NORMAL, "<p>caf\u00e9 \u4e2d\u6587</p><p>\U0001f600</p>", "<p>a\x00b</p>",
                                  "<body>" + flood_tag(300) + "<p>in</p></div></body>", MANY_SHALLOW_TAGS])
def test_parse_from_utf8_bytes_builds_the_tree_the_text_builds(html):
    from_text, from_bytes = parse(html), parse(html, utf8=html.encode("utf-8"))
    assert from_bytes.html == from_text.html
    assert from_bytes.body.text() == from_text.body.text()


def test_the_parser_reads_the_bytes_whenever_the_caps_change_nothing():
    many = MANY_SHALLOW_TAGS.encode("utf-8")
    assert not is_tame(many)  # checked as text first, then found to need no cap
    assert _source(MANY_SHALLOW_TAGS, ParseLimits(), many) is many
    deep = "<div>" * 30_000 + "text"
    assert _source(deep, ParseLimits(), deep.encode("utf-8")) == cap_depth(deep, 400)
    assert _source(NORMAL, ParseLimits(), None) is NORMAL


def test_cap_depth_reads_a_slash_before_the_bracket_as_self_closing_only_there():
    html = "<div>" * 12 + "<x/><y a=/><z/ >" + "</div>" * 12
    out = cap_depth(html, max_depth=12)
    assert "<x/><y a=/>" in out and "<z/ >" not in out  # <z/ > opens an element, one level too deep


def test_parse_gives_a_tree():
    tree = parse(NORMAL)
    assert tree.css_first("a").text() == "world"


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_parse_refuses_empty_input(text):
    with pytest.raises(InputError):
        parse(text)


def test_parse_keeps_all_of_a_capped_flood_tag_s_content():
    html = "<body><p>before</p>" + flood_tag(200_000) + "<p>inside the flood</p></div></body>"
    tree = parse(html)
    div = tree.css_first("div")
    assert len(div.attributes) == ParseLimits().max_attributes
    assert "inside the flood" in tree.body.text()


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet="<>a\u00e9", min_size=1, max_size=50), st.integers(0, 3))
def test_count_lt_counts_text_and_its_utf8_bytes_alike(text, copies):
    big = text * (copies * 400_000 // max(1, len(text)) + 1)  # past one counting stretch when copies > 2
    assert count_lt(big) == count_lt(big.encode("utf-8")) == big.count("<")
