"""Boilerpipe: shallow features, the two published decision trees, and the article pipeline."""
from __future__ import annotations

import dataclasses

import pytest

import thresher
from thresher.algorithms import get, names
from thresher.algorithms.boilerpipe import (
    EMPTY,
    END_CUE,
    HEADING,
    MIGHT_BE,
    TITLE,
    VERY_LIKELY,
    ArticleParams,
    DensityParams,
    Features,
    NumWordsParams,
    Segment,
    article_segments,
    block_features,
    block_labels,
    count_words,
    cut_after_end_cue,
    density_rule,
    drop_trailing_headings,
    expand_title_to_content,
    fuse,
    inside,
    is_end_cue,
    keep_largest,
    list_at_end,
    numwords_rule,
    title_candidates,
    wrap_counts,
)
from thresher.document.blocks import build_document
from thresher.features import text_density

LOREM = ("the quick brown fox jumps over the lazy dog while the cat sleeps on a warm mat near "
         "the old kitchen door and nobody seems to mind it at all today ")


def prose(words: int) -> str:
    base = LOREM.split()
    return " ".join(base[i % len(base)] for i in range(words))


# A link block: the density tree drops a dense block whose next block has
# density 0, so page tests end with this rather than with the end of the page.
FOOTER = '<div><a href="/about">About us</a></div>'


def page(body: str, title: str = "") -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def features(words=0, anchor=0, density=None, level=0) -> Features:
    """Features with ``words`` words on one line, or the given text density over 2 lines."""
    if density is None:
        return Features(words, anchor, words, 1 if words else 0, level)
    return Features(words, anchor, int(density * 2), 2, level)


def labels_of(html: str, algorithm: str, params=None) -> list[bool]:
    return list(thresher.extract_result(html, algorithm=algorithm, params=params, language="en").labels)


# ------------------------------------------------------------------ features

def test_words_count_tokens_with_a_letter_or_digit():
    assert count_words("Home | News - 2024 ... x_y") == 4  # Home, News, 2024, x_y
    assert count_words("| - ...") == 0
    assert count_words("") == 0


def test_text_density_of_one_line_is_its_word_count():
    assert wrap_counts("one two three four") == (4, 4, 1)
    assert wrap_counts("one two - three") == (3, 3, 1)


def test_text_density_leaves_out_the_last_wrapped_line():
    # 40 four-letter words: 16 fit on an 80-character line (79 chars), so 16 + 16 + 8.
    text = " ".join(["abcd"] * 40)
    assert wrap_counts(text) == (40, 32, 2)
    assert Features(40, 0, 32, 2, 0).text_density == text_density(text) == 16  # the core's column


def test_the_counts_wrap_as_the_core_s_text_density_column_does():
    for text in ("word " * 60, "y" * 85 + " a b", "a " * 45, LOREM * 3, "ab " + "x" * 90 + " cd ef"):
        _, on_lines, lines = wrap_counts(text)
        assert on_lines / lines == text_density(text), text


def test_text_density_wraps_at_the_given_width():
    text = " ".join(["abcd"] * 10)  # 49 characters
    assert wrap_counts(text, width=80) == (10, 10, 1)
    assert wrap_counts(text, width=20) == (10, 8, 2)  # 4 + 4 + 2 words per line


def test_a_token_longer_than_the_line_is_a_line_of_its_own():
    text = "ab " + "x" * 90 + " cd ef"
    assert wrap_counts(text) == (4, 2, 2)  # "ab" | "xxx…" | "cd ef" (last, left out)


def test_text_density_counts_words_not_punctuation():
    # "abcd | abcd | ...": 11 pairs (76 chars) fill the first line, 9 pairs the last
    text = " ".join(["abcd", "|"] * 20)
    assert wrap_counts(text) == (20, 11, 1)


def test_block_features_from_the_document_model():
    doc = build_document(page('<div><p>alpha beta <a href="#">gamma delta</a> | eps</p><p>solo</p></div>'))
    first, second = block_features(doc)
    assert (first.words, first.anchor_words) == (5, 2)
    assert first.link_density == pytest.approx(0.4)
    assert first.tag_level == doc.elements.depths[doc.blocks[0].element]
    assert second.tag_level == first.tag_level
    assert (second.words, second.anchor_words, second.link_density) == (1, 0, 0.0)


def test_anchor_words_count_text_inside_nested_inline_elements_of_links():
    doc = build_document(page('<p><a href="#"><b>bold link</b> words</a> plain</p>'))
    (f,) = block_features(doc)
    assert (f.words, f.anchor_words) == (4, 3)


def test_empty_neighbour_has_zero_features():
    assert EMPTY.words == 0 and EMPTY.link_density == 0 and EMPTY.text_density == 0


# ----------------------------------------------------------- NumWords branches

NW = NumWordsParams()


def test_numwords_high_link_density_is_boilerplate():
    assert numwords_rule(EMPTY, features(100, anchor=34), features(100), NW)[0] is False
    # exactly one third linked is above 0.333333
    assert numwords_rule(EMPTY, features(30, anchor=10), features(100), NW)[0] is False
    assert numwords_rule(EMPTY, features(100, anchor=33), EMPTY, NW)[0] is True


def test_numwords_after_a_link_list():
    links = features(10, anchor=6)  # 0.6 > 0.555556
    assert numwords_rule(links, features(41), EMPTY, NW)[0] is True
    assert numwords_rule(links, features(40), features(18), NW)[0] is True
    assert numwords_rule(links, features(40), features(17), NW)[0] is False
    assert numwords_rule(links, features(5), features(17), NW)[0] is False


def test_numwords_previous_link_density_threshold():
    linky = Features(100, 56, 100, 1, 0)  # 0.56 > 0.555556: a link list
    not_linky = Features(9, 5, 9, 1, 0)  # 5/9 = 0.55555... <= 0.555556
    assert numwords_rule(not_linky, features(17), EMPTY, NW)[0] is True
    assert numwords_rule(linky, features(17), EMPTY, NW)[0] is False


def test_numwords_long_block_is_content():
    assert numwords_rule(EMPTY, features(17), EMPTY, NW)[0] is True


def test_numwords_short_block_before_a_long_one_is_content():
    assert numwords_rule(EMPTY, features(16), features(16), NW)[0] is True


def test_numwords_short_block_between_short_blocks_depends_on_previous_words():
    assert numwords_rule(features(5), features(16), features(15), NW)[0] is True
    assert numwords_rule(features(4), features(16), features(15), NW)[0] is False
    assert numwords_rule(EMPTY, features(3), EMPTY, NW)[0] is False


def test_numwords_algorithm_sees_empty_blocks_beyond_the_edges():
    one_short = page(f"<p>{prose(10)}</p>")
    one_long = page(f"<p>{prose(17)}</p>")
    assert labels_of(one_short, "boilerpipe-numwords") == [False]
    assert labels_of(one_long, "boilerpipe-numwords") == [True]
    # a short block after a 5-word block, before the end, is content
    assert labels_of(page(f"<p>{prose(5)}</p><p>{prose(3)}</p>"), "boilerpipe-numwords") == [False, True]


# ------------------------------------------------------------ Density branches

DN = DensityParams()


def test_density_high_link_density_is_boilerplate():
    assert density_rule(EMPTY, features(50, anchor=20, density=12), features(density=12, words=24), DN)[0] is False


def test_density_after_a_link_list_needs_a_dense_next_block():
    links = features(10, anchor=6)
    assert density_rule(links, features(density=20, words=40), features(density=11.5, words=23), DN)[0] is True
    assert density_rule(links, features(density=20, words=40), features(density=11, words=22), DN)[0] is False


def test_density_dense_block_is_content_unless_next_is_empty():
    dense = features(density=9.5, words=19)
    assert density_rule(EMPTY, dense, features(1), DN)[0] is True
    assert density_rule(EMPTY, dense, EMPTY, DN)[0] is False


def test_density_sparse_block_before_a_dense_one_is_content():
    sparse = features(9)  # density 9: not above 9
    assert density_rule(EMPTY, sparse, features(density=10.5, words=21), DN)[0] is True


def test_density_sparse_block_before_a_sparse_one_depends_on_previous_density():
    sparse, next_sparse = features(9), features(density=10, words=20)
    assert density_rule(features(5), sparse, next_sparse, DN)[0] is True
    assert density_rule(features(4), sparse, next_sparse, DN)[0] is False


def test_density_algorithm_on_a_page():
    html = page(f'<ul><li><a href="/">Home</a></li><li><a href="/n">News</a></li></ul>'
                f"<p>{prose(120)}</p><p>{prose(5)}</p>")
    # the long paragraph follows a link list and its next block is sparse (density 5 <= 11):
    # boilerplate; the short last block follows a dense one (density > 4): content
    assert labels_of(html, "boilerpipe-density") == [False, False, False, True]
    dense_next = html.replace(f"<p>{prose(5)}</p>", f"<p>{prose(60)}</p>")
    assert labels_of(dense_next, "boilerpipe-density") == [False, False, True, False]


def test_reasons_explain_every_block():
    html = page(f"<p>{prose(60)}</p><p>{prose(3)}</p>")
    for algorithm in ("boilerpipe-numwords", "boilerpipe-density", "boilerpipe-article"):
        result = thresher.extract_result(html, algorithm=algorithm, language="en")
        assert len(result.classification.reasons) == 2
        assert all(result.classification.reasons)
        assert "{" not in "".join(result.classification.reasons)  # every template is filled in


def test_without_explain_reasons_are_skipped_and_labels_unchanged():
    html = page(f"<ul><li><a href='/'>{prose(4)}</a></li></ul><p>{prose(60)}</p><p>{prose(3)}</p>")
    for algorithm in ("boilerpipe-numwords", "boilerpipe-density", "boilerpipe-article"):
        explained = thresher.extract_result(html, algorithm=algorithm, language="en")
        quiet = thresher.extract_result(html, algorithm=algorithm, language="en", explain=False)
        assert quiet.classification.reasons == ()
        assert quiet.labels == explained.labels and any(quiet.labels)


# ------------------------------------------------------------- article labels

AP = ArticleParams()


def test_end_cues():
    assert is_end_cue("Comments", 1, AP)
    assert is_end_cue("12 comments", 2, AP)
    assert is_end_cue("Copyright 2024 Example Corp. All Rights Reserved.", 6, AP)
    assert is_end_cue("Related articles", 2, AP)
    assert not is_end_cue("Related: the budget vote", 4, AP)  # an inline link line, not the end
    assert not is_end_cue("© Jane Doe / Agency", 4, AP)  # an image credit
    assert not is_end_cue("Comments " + prose(20), 21, AP)  # too long to be a cue


def test_title_candidates_split_site_names():
    found = title_candidates("Big Storm Hits The Coast Tonight | Daily Example")
    assert "big storm hits the coast tonight" in found
    assert "big storm hits the coast tonight | daily example" in found
    assert title_candidates("") == frozenset()


def test_block_labels():
    doc = build_document(page(f"<h1>Big Storm Hits The Coast!</h1><p>{prose(30)}</p><ul><li>Comments</li></ul>",
                              title="Big Storm Hits The Coast - Example News"))
    labels = block_labels(doc, block_features(doc), AP)
    assert labels[0] & TITLE and labels[0] & HEADING
    assert not labels[1] & (TITLE | END_CUE | HEADING)
    assert labels[2] & END_CUE and not labels[2] & HEADING


# ---------------------------------------------------------- article pipeline

def seg(i, words=50, content=True, labels=0, level=3, density=None, blocks=None) -> Segment:
    return Segment(blocks or (i,), features(words, density=density, level=level), labels, content, "test")


def test_end_cue_cuts_the_rest_after_enough_content():
    segs = (seg(0, density=12, words=70), seg(1, words=1, labels=END_CUE, content=True), seg(2), seg(3))
    out = cut_after_end_cue(segs, AP)
    assert [s.content for s in out] == [True, False, False, False]


def test_end_cue_before_enough_content_is_ignored():
    segs = (seg(0, words=1, labels=END_CUE), seg(1, density=12, words=70), seg(2))
    assert [s.content for s in cut_after_end_cue(segs, AP)] == [True, True, True]
    # sparse (low text density) content does not count toward the minimum
    segs = (seg(0, density=5, words=70), seg(1, words=1, labels=END_CUE), seg(2))
    assert [s.content for s in cut_after_end_cue(segs, AP)] == [True, True, True]


def test_end_cue_on_a_page():
    html = page(f"<p>{prose(80)}</p><p>{prose(80)}</p><h3>Comments</h3><p>{prose(80)}</p><p>{prose(90)}</p>"
                + FOOTER)
    labels = labels_of(html, "boilerpipe-article")
    assert labels == [True, True, False, False, False, False]
    no_cues = ArticleParams(end_cue_prefixes=(), end_cue_contains=(), end_cue_counted="")
    assert labels_of(html, "boilerpipe-article", no_cues)[3:] == [True, True, False]


def test_trailing_headings_are_dropped():
    segs = (seg(0), seg(1, labels=HEADING), seg(2, content=False), seg(3, labels=HEADING))
    assert [s.content for s in drop_trailing_headings(segs)] == [True, False, False, False]
    segs = (seg(0, labels=HEADING), seg(1))
    assert [s.content for s in drop_trailing_headings(segs)] == [True, True]


def test_fusion_joins_content_at_distance_one():
    segs = (seg(0), seg(2), seg(5))
    fused = fuse(segs, 1, content_only=True, same_level=True)
    assert [s.blocks for s in fused] == [(0, 2), (5,)]
    assert fused[0].features.words == 100


def test_fusion_respects_tag_level_and_content():
    segs = (seg(0, level=3), seg(1, level=4), seg(2, level=4))
    assert [s.blocks for s in fuse(segs, 1, True, True)] == [(0,), (1, 2)]
    assert [s.blocks for s in fuse(segs, 1, True, False)] == [(0, 1, 2)]
    segs = (seg(0, content=False), seg(1), seg(2, content=False), seg(3, content=False), seg(4))
    assert [s.blocks for s in fuse(segs, 1, True, False)] == [(0,), (1,), (2,), (3,), (4,)]
    # boilerpipe's first fusion: a content block joins the boilerplate block just before it
    fused = fuse(segs, 1, False, False)
    assert [(s.blocks, s.content) for s in fused] == [((0, 1), True), ((2,), False), ((3, 4), True)]


def test_keep_largest_expands_to_same_level_neighbours():
    segs = (seg(0, words=200, level=3), seg(1, words=300, level=3), seg(2, words=20, level=3),
            seg(3, words=500, level=2), seg(4, words=400, level=2))
    out = keep_largest(segs, 150)
    assert [s.content for s in out] == [False, False, False, True, True]  # deeper ones are skipped
    segs = (seg(0, words=200, level=3), seg(1, words=100, level=4), seg(2, words=900, level=3),
            seg(3, words=160, level=3), seg(4, words=10, level=2), seg(5, words=400, level=3))
    out = keep_largest(segs, 150)
    assert [s.content for s in out] == [True, False, True, True, False, False]
    assert out[2].has(VERY_LIKELY) and out[0].has(MIGHT_BE)


def test_headlines_before_the_main_text_are_kept():
    segs = (seg(0, labels=TITLE | MIGHT_BE, content=False), seg(1, labels=MIGHT_BE, content=False),
            seg(2, labels=VERY_LIKELY), seg(3, labels=MIGHT_BE, content=False))
    out = expand_title_to_content(segs)
    assert [s.content for s in out] == [True, True, True, False]
    # no title before the main text: nothing changes
    assert expand_title_to_content(segs[1:]) == segs[1:]


def test_headline_on_a_page():
    # the headline is boilerplate to the classifier (sparse, nothing dense around it)
    # and two link blocks separate it from the main text
    html = page(f'<h1>Big Storm Hits The Coast</h1><div><a href="/">Home</a> <a href="/x">World</a></div>'
                f'<div><a href="/y">Sport</a></div><p>{prose(150)}</p><p>{prose(100)}</p>' + FOOTER,
                title="Big Storm Hits The Coast | Example News")
    labels = labels_of(html, "boilerpipe-article")
    assert labels[0] is True and labels[1] is False and labels[3:5] == [True, True]
    assert labels_of(html, "boilerpipe-article", ArticleParams(headlines_before_content=False))[0] is False
    untitled = html.replace("<title>Big Storm Hits The Coast | Example News</title>", "<title>Other</title>")
    assert labels_of(untitled, "boilerpipe-article")[0] is False


def test_list_at_end():
    def is_list_item(segment):
        return segment.first in (1, 2, 4)

    segs = (seg(0, labels=VERY_LIKELY, level=3), seg(1, content=False, labels=MIGHT_BE, level=5),
            seg(2, content=False, labels=MIGHT_BE, level=5), seg(3, content=False, labels=MIGHT_BE, level=5),
            seg(4, content=False, labels=MIGHT_BE, level=5))
    # items 1 and 2 follow the main text; 3 is no list item and ends the run, so 4 stays out
    assert [s.content for s in list_at_end(segs, is_list_item)] == [True, True, True, False, False]
    shallow = (segs[0], seg(1, content=False, labels=MIGHT_BE, level=3))
    assert [s.content for s in list_at_end(shallow, is_list_item)] == [True, False]
    linked = (segs[0], Segment((1,), Features(5, 1, 5, 1, 5), MIGHT_BE, False, "test"))
    assert [s.content for s in list_at_end(linked, is_list_item)] == [True, False]


def test_inside_finds_list_items_and_links_on_the_path():
    doc = build_document(page('<ul><li><p>in <b>item</b></p></li></ul><p>x <a href="#"><i>y</i></a></p>'))
    item = doc.blocks[0]
    assert inside(doc, item.element, "li")
    assert not inside(doc, doc.blocks[1].element, "li")
    italic = doc.blocks[1].spans[-1][1]
    assert inside(doc, italic, "a", stop=doc.blocks[1].element)
    assert not inside(doc, doc.blocks[1].element, "a")


def test_article_keeps_the_largest_region():
    html = page(f"<div><p>{prose(40)}</p></div>"
                + "".join(f'<div><a href="/{i}">link {i}</a></div>' for i in range(8))
                + f"<div><p>{prose(150)}</p><p>{prose(120)}</p></div>" + FOOTER)
    labels = labels_of(html, "boilerpipe-article")
    assert labels[0] is False and labels[-3:] == [True, True, False]
    assert not any(labels[1:8])
    # boilerpipe's first fusion lets the main text absorb the block just before it
    assert labels[8] is True
    assert labels_of(html, "boilerpipe-article", ArticleParams(fuse_into_boilerplate=False))[8] is False


def test_article_segments_cover_each_block_once():
    html = page(f"<p>{prose(60)}</p><p>x</p><p>{prose(60)}</p><p>Comments</p><p>{prose(20)}</p>")
    doc = build_document(html)
    run = article_segments(doc, AP)
    covered = [i for s in run.final for i in s.blocks]
    assert len(covered) == len(set(covered))
    assert sorted(i for s in run.classified for i in s.blocks) == list(range(len(doc.blocks)))


def test_article_params_are_frozen_and_checked():
    with pytest.raises(ValueError):
        ArticleParams(classifier="svm")
    with pytest.raises(dataclasses.FrozenInstanceError):
        AP.classifier = "numwords"  # type: ignore[misc]
    html = page(f"<p>{prose(60)}</p>")
    assert labels_of(html, "boilerpipe-article", ArticleParams(classifier="numwords")) == [True]


def test_registered_with_tree_variants():
    for name in ("boilerpipe-numwords", "boilerpipe-density", "boilerpipe-article"):
        assert name in names()
        assert f"{name}+tree" in names()
    assert get("boilerpipe-article").params_type is ArticleParams


def test_empty_page():
    assert thresher.extract(page(""), algorithm="boilerpipe-article") == ""


def test_preformatted_text_wraps_like_single_spaced_text():
    words = ["abcd"] * 40
    assert wrap_counts("\n".join(words)) == wrap_counts(" ".join(words)) == (40, 32, 2)
