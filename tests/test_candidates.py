"""Readability's candidate scoring as block features (thresher.candidates) on hand-built pages."""
from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings, strategies as st

from thresher import candidates as C, features as F
from thresher.blocks import build_document

PROSE = ("The river rose, as it does, over the old wall, and the town, which had seen it before, "
         "moved its carts uphill; nobody, in the end, was hurt, and the market opened late.")


def page(body: str):
    return build_document(f"<html><body>{body}</body></html>")


def columns(doc) -> dict[str, np.ndarray]:
    cols = C.candidate_columns(doc, F.tree_facts(doc))
    assert cols.names == C.NAMES
    assert cols.values.shape == (len(doc.blocks), len(C.NAMES))
    return {name: cols.column(name) for name in cols.names}


def index_of(doc, start: str) -> int:
    found = [b.index for b in doc.blocks if b.text.startswith(start)]
    assert len(found) == 1, (start, [b.text for b in doc.blocks])
    return found[0]


# ------------------------------------------------------------------ class and id patterns

def test_pattern_bits_follow_readabilitys_groups():
    assert C.pattern_bits("post-content sidebar") == (C._UNLIKELY_BIT | C._MAYBE_BIT | C._POSITIVE_BIT
                                                      | C._NEGATIVE_BIT)
    assert C.pattern_bits("pagination") == C._UNLIKELY_BIT | C._POSITIVE_BIT  # holds "page"
    assert C.pattern_bits("SideBar-Left") == C._UNLIKELY_BIT | C._NEGATIVE_BIT
    assert C.pattern_bits("top-ad-slot") == C._UNLIKELY_BIT | C._NEGATIVE_BIT
    assert C.pattern_bits("articleBody") == C._MAYBE_BIT | C._POSITIVE_BIT
    assert C.pattern_bits("wrapper grid") == 0
    assert C.pattern_bits(None) == 0 and C.pattern_bits("") == 0


def test_hid_is_negative_only_as_a_whole_word():
    assert C.pattern_bits("box hid") == C._NEGATIVE_BIT
    assert C.pattern_bits("hidx") == 0


_LITERALS = sorted(C.LITERAL_BITS)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*_LITERALS, "x", "-", " ", "co", "pa", "he"]), max_size=12))
def test_trie_pattern_matches_like_a_longest_first_alternation(pieces):
    text = "".join(pieces)
    flat = re.compile("|".join(map(re.escape, sorted(_LITERALS, key=lambda s: (-len(s), s)))))
    assert C._ANY_LITERAL.findall(text) == flat.findall(text)


# ------------------------------------------------------------------ tree helpers

def test_inherited_flags_reach_every_descendant_of_a_deep_chain():
    n = 10_000
    parents = np.maximum(np.arange(n) - 1, 0)  # a chain; the root is its own parent
    flags = np.zeros(n, bool)
    flags[5_000] = True
    out = C.inherited(flags, parents, np.arange(n))
    assert not out[:5_000].any() and out[5_000:].all()


def raw_candidates(doc):
    """Candidate scores with no class weights, link densities or removals."""
    facts, none = F.tree_facts(doc), np.zeros(len(doc.elements))
    points = C.paragraph_scores(doc, C.paragraph_blocks(doc), none.astype(bool))
    return C.score_candidates(doc, points, facts.parents, none, none)


def element_with_id(doc, value: str) -> int:
    return next(e.index for e in doc.elements if e.id == value)


def test_climb_moves_through_parents_of_which_the_candidate_is_the_only_child():
    doc = page(f"<div id=outer><div id=inner><div id=holder><p>{PROSE}</p><p>{PROSE}</p></div></div></div>"
               "<p>x</p>")
    candidates = raw_candidates(doc)
    holder = element_with_id(doc, "holder")
    assert int(np.argmax(candidates.score)) == holder
    assert C.climb(holder, candidates, doc.elements.arrays.parents, doc.elements.tags) == element_with_id(doc, "outer")


def test_climb_moves_to_an_ancestor_that_outscores_the_last_one_passed():
    # t: 5 + 2 * 10 = 25; its parent p: 5 + 2 * 10 / 2 = 15 (over a third of 25, so the climb goes on);
    # g: 5 + 2 * 10 / 6 from t's paragraphs + 2 * 10 / 2 from s's = 18.3, more than p's 15
    two = f"<p>{PROSE}</p><p>{PROSE}</p>"
    doc = page(f"<div id=g><div id=p><div id=t>{two}</div></div><div id=s>{two}</div></div><p>x</p>")
    candidates = raw_candidates(doc)
    t, p, g = (element_with_id(doc, name) for name in ("t", "p", "g"))
    assert np.allclose(candidates.score[[t, p, g]], [25, 15, 5 + 20 / 6 + 10])
    assert int(np.argmax(candidates.score)) == t
    assert C.climb(t, candidates, doc.elements.arrays.parents, doc.elements.tags) == g


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
