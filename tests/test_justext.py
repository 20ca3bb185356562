"""jusText: every context-free rule, both heading passes, the context pass, and the options."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from thresher.algorithms import get
from thresher.algorithms.base import Context
from thresher.algorithms.justext import (
    BlockStats,
    Cls,
    Params,
    block_stats,
    classify,
    context_free_class,
    context_sensitive,
    promote_short_headings,
    restore_headings,
)
from thresher.document.blocks import build_document
from thresher.document.language import stopwords

B, S, N, G = Cls.BAD, Cls.SHORT, Cls.NEAR_GOOD, Cls.GOOD
P = Params()
T = (P.stopwords_low, P.stopwords_high)

# English prose, dense in stop words (well above 0.32).
GOOD_TEXT = ("It was the best of times and it was the worst of times, and we were all going "
             "directly to the place where they had been before, as if there was nothing that "
             "could be done about it by any of us who were there with them at the time.")
# Made-up words: no stop words in any language.
NONSENSE = " ".join(["Blorfax quazzle vintrop zember glorbic"] * 12)


def stats(length=300, link_density=0.0, stopword_density=0.5, has_link=False, has_copyright=False,
          in_select=False, is_heading=False) -> BlockStats:
    return BlockStats(length, link_density, stopword_density, has_link, has_copyright, in_select, is_heading)


# --------------------------------------------------------- context-free rules

@pytest.mark.parametrize("s,expected", [
    (stats(link_density=0.21), B),                        # too many links
    (stats(link_density=0.2), G),                         # at the limit is fine
    (stats(has_copyright=True), B),                       # copyright sign
    (stats(in_select=True), B),                           # inside <select>
    (stats(length=69), S),                                # short
    (stats(length=69, has_link=True, link_density=0.1), B),  # short with a link
    (stats(length=70, stopword_density=0.5), N),          # medium, many stop words
    (stats(length=200, stopword_density=0.5), N),         # not longer than length_high
    (stats(length=201, stopword_density=0.32), G),        # long, stop words at the high threshold
    (stats(length=201, stopword_density=0.31), N),        # long, between the thresholds
    (stats(length=500, stopword_density=0.30), N),        # at the low threshold
    (stats(length=500, stopword_density=0.29), B),        # too few stop words
    (stats(length=69, stopword_density=0.0), S),          # short wins over stop-word density
])
def test_context_free_class(s, expected):
    assert context_free_class(s, P, T) is expected


def test_language_independent_thresholds_make_every_long_block_good():
    assert context_free_class(stats(length=201, stopword_density=0.0), P, (0.0, 0.0)) is G
    assert context_free_class(stats(length=100, stopword_density=0.0), P, (0.0, 0.0)) is N


def test_block_stats_reads_the_document():
    doc = build_document(
        "<body><p>the cat and the dog</p><p>\u00a9 2024 Example</p><p>a <a href='/'>link</a></p>"
        "<select><option>the choice</option></select><h2>A heading</h2></body>")
    out = block_stats(doc, frozenset({"the", "and", "a"}))
    assert [s.length for s in out] == [len(b.text) for b in doc.blocks]
    assert out[0].stopword_density == pytest.approx(3 / 5)
    assert [s.has_copyright for s in out] == [False, True, False, False, False]
    assert [s.has_link for s in out] == [False, False, True, False, False]
    assert out[2].link_density == pytest.approx(4 / 6)
    assert [s.in_select for s in out] == [False, False, False, True, False]
    assert [s.is_heading for s in out] == [False, False, False, False, True]


# --------------------------------------------------------- heading preprocessing

def test_short_heading_before_good_text_becomes_near_good():
    st = [stats(length=20, is_heading=True), stats(length=50), stats()]
    assert promote_short_headings([S, S, G], st, P) == [N, S, G]


def test_short_heading_too_far_from_good_text_stays_short():
    st = [stats(length=20, is_heading=True), stats(length=250), stats()]
    assert promote_short_headings([S, B, G], st, P) == [S, B, G]


def test_only_short_headings_are_promoted():
    st = [stats(length=20, is_heading=False), stats(is_heading=True, length=100), stats()]
    assert promote_short_headings([S, B, G], st, P) == [S, B, G]


def test_heading_without_good_text_after_stays_short():
    st = [stats(length=20, is_heading=True), stats(length=20)]
    assert promote_short_headings([S, S], st, P) == [S, S]


def test_promote_does_not_mutate_its_input():
    classes = [S, G]
    promote_short_headings(classes, [stats(length=10, is_heading=True), stats()], P)
    assert classes == [S, G]


# --------------------------------------------------------- context-sensitive pass

@pytest.mark.parametrize("classes,expected", [
    ([G, S, G], [G, G, G]),              # short between good and good
    ([B, S, B], [B, B, B]),              # short between bad and bad
    ([G, S, S, G], [G, G, G, G]),        # runs of short blocks
    ([S], [B]),                          # both edges count as bad
    ([S, G], [B, G]),                    # leading edge is bad, no near-good on that side
    ([G, S], [G, B]),                    # trailing edge likewise
    ([G, S, B], [G, B, B]),              # mixed, nothing near-good on the bad side
    ([B, N, S, G], [B, G, G, G]),        # mixed, near-good on the bad side -> good
    ([G, S, N, B], [G, G, G, B]),        # the same on the other side
    ([B, S, N, G], [B, B, G, G]),        # near-good on the good side does not help
    ([B, N, B], [B, B, B]),              # near-good between bad and bad
    ([G, N, B], [G, G, B]),              # near-good next to good
    ([N], [B]),                          # near-good alone: edges are bad
    ([B, N, S, N, B], [B, B, B, B, B]),  # short ignores near-good when both sides agree
])
def test_context_sensitive(classes, expected):
    assert context_sensitive(classes) == expected


def test_near_good_sees_shorts_after_their_resolution():
    # The short block resolves to good first; then the near-good block has a good neighbour.
    assert context_sensitive([G, S, N, B]) == [G, G, G, B]
    assert context_sensitive([B, S, N, B]) == [B, B, B, B]


def _naive_neighbour(classes, i, step, ignore_near_good):
    j = i + step
    while 0 <= j < len(classes):
        if classes[j] in (G, B) or (classes[j] is N and not ignore_near_good):
            return classes[j]
        j += step
    return B


def _naive_context_sensitive(classes):
    """The context pass as jusText states it, block by block (quadratic on long short runs)."""
    def short(i):
        prev, nxt = _naive_neighbour(classes, i, -1, True), _naive_neighbour(classes, i, 1, True)
        if prev is nxt:
            return prev
        if prev is B and _naive_neighbour(classes, i, -1, False) is N:
            return G
        if nxt is B and _naive_neighbour(classes, i, 1, False) is N:
            return G
        return B
    after = [short(i) if c is S else c for i, c in enumerate(classes)]
    near = [B if _naive_neighbour(after, i, -1, True) is B and _naive_neighbour(after, i, 1, True) is B else G
            for i in range(len(after))]
    return [near[i] if c is N else c for i, c in enumerate(after)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([B, S, N, G]), max_size=30))
def test_context_sensitive_matches_the_block_by_block_statement(classes):
    assert context_sensitive(classes) == _naive_context_sensitive(classes)


def test_context_sensitive_reads_a_long_run_of_short_blocks():
    classes = [G] + [S] * 200_000 + [N, B]
    assert context_sensitive(classes) == [G] * 200_002 + [B]


# --------------------------------------------------------- heading postprocessing

def test_bad_heading_before_good_text_is_restored():
    st = [stats(length=20, is_heading=True), stats()]
    assert restore_headings([B, G], [S, G], st, P) == [G, G]


def test_heading_bad_from_the_start_is_not_restored():
    st = [stats(length=20, is_heading=True, link_density=0.9), stats()]
    assert restore_headings([B, G], [B, G], st, P) == [B, G]


def test_heading_far_from_good_text_is_not_restored():
    st = [stats(length=20, is_heading=True), stats(length=300), stats()]
    assert restore_headings([B, B, G], [S, B, G], st, P) == [B, B, G]


def test_non_heading_is_not_restored():
    st = [stats(length=20), stats()]
    assert restore_headings([B, G], [S, G], st, P) == [B, G]


# --------------------------------------------------------- classify, end to end

NAV = '<ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/about">About us</a></li></ul>'
FOOTER = '<footer><p>\u00a9 2024 Example Corp. All rights reserved.</p></footer>'


def page(*parts: str) -> str:
    return "<html><body>" + "".join(parts) + "</body></html>"


def final(html: str, params: Params = P, language: str = "en") -> list[tuple[str, Cls]]:
    doc = build_document(html)
    _, classes = classify(doc, params, language)
    return [(b.text, c) for b, c in zip(doc.blocks, classes)]


def test_classify_keeps_prose_and_drops_navigation_and_copyright():
    result = final(page(NAV, f"<p>{GOOD_TEXT}</p>", f"<p>{GOOD_TEXT}</p>", FOOTER))
    kept = [text for text, c in result if c is G]
    assert kept == [GOOD_TEXT, GOOD_TEXT]
    assert dict(result)["Home"] is B
    assert [c for text, c in result if text.startswith("\u00a9")] == [B]


def test_classify_returns_context_free_and_final_classes():
    doc = build_document(page(NAV, "<p>Short one.</p>", f"<p>{GOOD_TEXT}</p>"))
    context_free, classes = classify(doc, P, "en")
    assert context_free == [B, B, B, S, G]
    assert classes == [B, B, B, B, G]  # the short block has bad (navigation) before it


def test_heading_before_good_text_is_kept_and_dropped_with_no_headings():
    html = page(NAV, "<h2>A heading</h2>", f"<p>{GOOD_TEXT}</p>")
    assert dict(final(html))["A heading"] is G
    assert dict(final(html, Params(no_headings=True)))["A heading"] is B


def test_language_independent_mode_without_a_stop_list():
    html = page(NAV, f"<p>{NONSENSE}</p>", f"<p>{GOOD_TEXT}</p>")
    assert dict(final(html))[NONSENSE] is B  # English: no stop words at all
    for params, language in [(Params(stoplist=frozenset()), "en"), (P, ""), (P, "zz-unknown")]:
        result = dict(final(html, params, language))
        assert result[NONSENSE] is G and result[GOOD_TEXT] is G
        assert result["Home"] is B  # link density still applies


def test_explicit_stoplist_overrides_the_language():
    words = frozenset({"blorfax", "quazzle"})  # 2 of 5 words: density 0.4
    html = page(f"<p>{NONSENSE}</p>")
    assert dict(final(html, Params(stoplist=words)))[NONSENSE] is G
    assert dict(final(html))[NONSENSE] is B


def test_the_english_stop_list_is_available():
    assert {"the", "and", "of"} <= stopwords("en")


def test_registered_algorithm_labels_and_reasons():
    doc = build_document(page(NAV, f"<p>{GOOD_TEXT}</p>"))
    result = get("justext").run(doc, None, Context(language="en"))
    assert result.labels == (False, False, False, True)
    assert result.reasons[0] == "context-free bad -> bad"
    assert result.reasons[-1] == "context-free good -> good"
    with pytest.raises(TypeError):
        get("justext").run(doc, object(), Context(language="en"))
