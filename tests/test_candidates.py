"""Readability's candidate scoring as block features (thresher.features.candidates) on hand-built pages."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from thresher import _core
from thresher.document.blocks import build_document
from thresher.features import candidates as C

# The pattern groups of an id or class value, as the core's readability_pattern_bits returns them.
UNLIKELY_BIT, MAYBE_BIT, POSITIVE_BIT, NEGATIVE_BIT = 1, 2, 4, 8


def pattern_bits(value: str | None) -> int:
    """The Readability pattern groups (``*_BIT``) an id or class value matches (0 for none)."""
    return _core.readability_pattern_bits(value) if value else 0


PROSE = ("The river rose, as it does, over the old wall, and the town, which had seen it before, "
         "moved its carts uphill; nobody, in the end, was hurt, and the market opened late.")


def page(body: str):
    return build_document(f"<html><body>{body}</body></html>")


def columns(doc) -> dict[str, np.ndarray]:
    cols = C.candidate_columns(doc)
    assert cols.names == C.NAMES
    assert cols.values.shape == (len(doc.blocks), len(C.NAMES))
    return {name: cols.column(name) for name in cols.names}


def index_of(doc, start: str) -> int:
    found = [b.index for b in doc.blocks if b.text.startswith(start)]
    assert len(found) == 1, (start, [b.text for b in doc.blocks])
    return found[0]


# ------------------------------------------------------------------ class and id patterns

def test_pattern_bits_follow_readabilitys_groups():
    assert pattern_bits("post-content sidebar") == (UNLIKELY_BIT | MAYBE_BIT | POSITIVE_BIT
                                                      | NEGATIVE_BIT)
    assert pattern_bits("pagination") == UNLIKELY_BIT | POSITIVE_BIT  # holds "page"
    assert pattern_bits("SideBar-Left") == UNLIKELY_BIT | NEGATIVE_BIT
    assert pattern_bits("top-ad-slot") == UNLIKELY_BIT | NEGATIVE_BIT
    assert pattern_bits("articleBody") == MAYBE_BIT | POSITIVE_BIT
    assert pattern_bits("wrapper grid") == 0
    assert pattern_bits(None) == 0 and pattern_bits("") == 0


def test_hid_is_negative_only_as_a_whole_word():
    assert pattern_bits("box hid") == NEGATIVE_BIT
    assert pattern_bits("hidx") == 0


# Readability's class/id patterns (REGEXPS in Readability.js) as literal substrings: the
# reference the core's scan is checked against.
UNLIKELY = ("-ad- ai2html banner breadcrumbs combx comment community cover-wrap disqus extra footer gdpr "
            "header legends menu related remark replies rss shoutbox sidebar skyscraper social sponsor "
            "supplemental ad-break agegate pagination pager popup yom-remote").split()
MAYBE_CANDIDATE = "and article body column content main mathjax shadow".split()
POSITIVE = "article body content entry hentry h-entry main page pagination post text blog story".split()
NEGATIVE = ("-ad- hidden banner combx comment com- contact footer gdpr masthead media meta outbrain promo "
            "related scroll share shoutbox sidebar skyscraper sponsor shopping tags widget").split()
_GROUPS = ((UNLIKELY, UNLIKELY_BIT), (MAYBE_CANDIDATE, MAYBE_BIT), (POSITIVE, POSITIVE_BIT),
           (NEGATIVE, NEGATIVE_BIT))
_LITERALS = sorted({lit for group, _ in _GROUPS for lit in group})
_LITERAL_BITS = {lit: sum(bit for group, bit in _GROUPS if any(g in lit for g in group)) for lit in _LITERALS}
_LONGEST_FIRST = re.compile("|".join(map(re.escape, sorted(_LITERALS, key=lambda s: (-len(s), s)))))


def reference_bits(value: str) -> int:
    """The groups of the literals a longest-first alternation finds in the lower-cased value
    (each literal counts for the groups with a literal inside it: "pagination" holds "page"),
    and negative for "hid" as a whole word."""
    lowered = value.lower()
    bits = 0
    for literal in _LONGEST_FIRST.findall(lowered):
        bits |= _LITERAL_BITS[literal]
    return bits | (NEGATIVE_BIT if "hid" in lowered.split() else 0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_LITERALS, "x", "-", " ", "co", "pa", "he", "hid", "HID", "\xa0", "\u212a",
                                 "\u0130", "Ma", "\u2028"]), max_size=12))
def test_pattern_bits_match_like_a_longest_first_alternation(pieces):
    text = "".join(pieces)
    assert pattern_bits(text) == reference_bits(text)


# ------------------------------------------------------------------ tree helpers

def test_an_unlikely_ancestor_drops_paragraphs_deep_below_it():
    depth = 5_000
    doc = page("<div class=sidebar>" + "<div>" * depth + f"<p>Deep: {PROSE}</p>" + "</div>" * depth + "</div>"
               f"<div><p>Kept: {PROSE}</p></div>")
    cols = columns(doc)
    assert cols["rd_paragraph"][index_of(doc, "Deep:")] == 0
    assert cols["rd_paragraph"][index_of(doc, "Kept:")] > 0


def paragraph_points(text: str) -> float:
    return 1 + text.count(",") + min(len(text) // 100, 3)


def test_climb_moves_through_parents_of_which_the_candidate_is_the_only_child():
    # holder (5 + both paragraphs' points) is the best candidate; the climb passes inner and stops
    # at outer (5 + a sixth of the points), whose parent body has two children
    doc = page(f"<div id=outer><div id=inner><div id=holder><p>{PROSE}</p><p>{PROSE}</p></div></div></div>"
               "<p>x</p>")
    cols = columns(doc)
    points = 2 * paragraph_points(PROSE)
    assert cols["rd_ancestor_best"][0] == pytest.approx((5 + points) / (5 + points / 6), rel=1e-6)
    assert cols["rd_in_top"].tolist() == [1, 1, 0]


def test_climb_moves_to_an_ancestor_that_outscores_the_last_one_passed():
    # t: 5 + 2 * 10 = 25; its parent p: 5 + 2 * 10 / 2 = 15 (over a third of 25, so the climb goes on);
    # g: 5 + 2 * 10 / 6 from t's paragraphs + 2 * 10 / 2 from s's = 18.3, more than p's 15
    assert paragraph_points(PROSE) == 10
    two = f"<p>{PROSE}</p><p>{PROSE}</p>"
    doc = page(f"<div id=g><div id=p><div id=t>{two}</div></div><div id=s>{two}</div></div><p>x</p>")
    cols = columns(doc)
    assert cols["rd_in_top"].tolist() == [1, 1, 1, 1, 0]  # g's blocks
    assert cols["rd_ancestor_best"][0] == pytest.approx(25 / (5 + 20 / 6 + 10), rel=1e-6)
    assert cols["rd_parent_score"][0] == pytest.approx(25 / (5 + 20 / 6 + 10), rel=1e-6)


# ------------------------------------------------------------------ candidate columns

ARTICLE = (f"<div class=article-body><p>{PROSE}</p><p>{PROSE}</p><p>{PROSE}</p></div>"
           f"<div class=sidebar><p>Sidebar: {PROSE}</p></div>"
           "<ul><li><a href=/a>Home</a></li><li><a href=/b>World news and more links here</a></li></ul>")


def test_the_article_container_is_the_top_candidate_and_the_sidebar_is_not():
    doc = page(ARTICLE)
    cols = columns(doc)
    first, sidebar = 0, index_of(doc, "Sidebar:")
    menu = index_of(doc, "World news")
    assert cols["rd_in_top"][first] == 1 and cols["rd_in_article"][first] == 1
    assert cols["rd_in_top"][sidebar] == 0 and cols["rd_in_article"][sidebar] == 0
    assert cols["rd_in_top"][menu] == 0
    assert cols["rd_ancestor_best"][first] == 1.0  # its parent is the best candidate
    assert cols["rd_paragraph"][first] > 0
    # an unlikely class drops its paragraphs before scoring; list items are never paragraphs
    assert cols["rd_paragraph"][sidebar] == 0 and cols["rd_paragraph"][menu] == 0


def test_paragraph_points_count_commas_and_hundreds_of_characters():
    doc = page(f"<div><p>{PROSE}</p><p>Short, but long enough to count.</p><p>Too short.</p></div>")
    cols = columns(doc)
    long_points = 1 + PROSE.count(",") + min(len(PROSE) // 100, 3)
    assert np.isclose(cols["rd_paragraph"][0], np.log1p(long_points))
    assert np.isclose(cols["rd_paragraph"][1], np.log1p(1 + 1 + 0))
    assert cols["rd_paragraph"][2] == 0  # under 25 characters


def test_a_prose_sibling_paragraph_joins_the_article():
    doc = page(f"<section><div class=story>{''.join(f'<p>{PROSE}</p>' for _ in range(4))}</div>"
               "<p>A closing line of plain prose that carries no links and ends a sentence here.</p>"
               "<p><a href=/x>Related story one</a> <a href=/y>Related story two</a></p></section>")
    cols = columns(doc)
    closing, related = index_of(doc, "A closing line"), index_of(doc, "Related story")
    assert cols["rd_in_top"][closing] == 0 and cols["rd_in_article"][closing] == 1
    assert cols["rd_in_article"][related] == 0


def test_a_page_without_paragraphs_gets_zero_columns():
    doc = page("<ul><li>Home</li><li>About</li></ul>")
    cols = columns(doc)
    assert all(not v.any() for v in cols.values())


def test_hidden_and_role_flagged_containers_are_not_scored():
    doc = page(f"<div role=navigation><p>{PROSE}</p></div><div style='display:none'><p>{PROSE}</p></div>"
               f"<div><p>Kept: {PROSE}</p></div>")
    cols = columns(doc)
    assert cols["rd_paragraph"][0] == 0 and cols["rd_paragraph"][1] == 0
    kept = index_of(doc, "Kept:")
    assert cols["rd_paragraph"][kept] > 0 and cols["rd_in_top"][kept] == 1


def test_deeply_nested_page_is_scored_without_recursion():
    depth = 20_000
    doc = build_document("<html><body>" + "<div>" * depth + f"<p>{PROSE}</p>" + "</div>" * depth + "</body></html>")
    cols = columns(doc)
    assert cols["rd_in_top"][0] == 1 and len(doc.blocks) == 1
