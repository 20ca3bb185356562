"""``prune``'s CSS selectors: parsed and matched by the core (servo's ``selectors`` crate) on
the page's DOM; the blocks inside a matching element are removed before classification."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import thresher
from thresher.algorithms import flagship
from thresher.document.blocks import build_document
from thresher.document.parse import ParseLimits
from thresher.errors import OptionError
from thresher.filters import prune_document, pruned_blocks
from thresher.options import Options

KEEP_ALL = flagship.Params(threshold=0.0)  # the flagship keeps every block: prune alone decides

# A golden page: every block's text starts with its own word, so a test names blocks by it.
PAGE = """<html lang=en><head><title>Golden</title></head><body>
<div id="main" class="content wide" lang="en-GB">
  <p id="lead" class="lead" title="Lead Para">Alpha lead paragraph.</p>
  <section id="s"><p data-kind="AD">Bravo advert paragraph.</p><aside><p>Charlie aside paragraph.</p></aside></section>
  <p>Delta third paragraph.</p>
  <p class="Lead">Echo fourth paragraph.</p>
  <ul><li>Foxtrot item one.</li><li>Golf item two.</li><li>Hotel item three.</li>
    <li class="x">India item four.</li></ul>
  <p>The <a href="/more">Juliet link</a> paragraph.</p>
</div>
<div class="sidebar"><p>Kilo side paragraph.</p></div>
</body></html>"""
ALL = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "The", "Kilo"]


def pruned_words(selector: str | list[str], html: str = PAGE) -> list[str]:
    """The first word of each block that ``selector`` prunes."""
    doc = build_document(html)
    drop = pruned_blocks(doc, [selector] if isinstance(selector, str) else selector)
    assert drop.dtype == np.bool_ and drop.shape == (len(doc.blocks),)
    return [block.text.split()[0] for block, dropped in zip(doc.blocks, drop.tolist()) if dropped]


def test_the_golden_page_has_the_blocks_the_tests_name():
    assert [block.text.split()[0] for block in build_document(PAGE).blocks] == ALL
    assert pruned_words("nothing-matches-this") == []


@pytest.mark.parametrize("selector, pruned", [
    # type, universal, id and class selectors (classes are case-sensitive, tag names are not)
    ("aside", ["Charlie"]),
    ("SECTION", ["Bravo", "Charlie"]),
    ("#main", ALL[:-1]),
    (".lead", ["Alpha"]),
    ("*.Lead", ["Echo"]),
    ("p.lead#lead", ["Alpha"]),
    ("div.sidebar p, p.lead", ["Alpha", "Kilo"]),
    # attribute presence and operators, with the i (ASCII case-insensitive) and s flags
    ("[data-kind]", ["Bravo"]),
    ("[data-kind=AD]", ["Bravo"]),
    ("[data-kind=ad]", []),
    ("[data-kind=ad i]", ["Bravo"]),
    ("[data-kind='AD' s]", ["Bravo"]),
    ("[class~=sidebar]", ["Kilo"]),
    ("div[lang|=en]", ALL[:-1]),
    ("[lang|=en]", ALL),
    ("[class^=cont]", ALL[:-1]),
    ("[title$=Para]", ["Alpha"]),
    ('[title*="d P"]', ["Alpha"]),
    ("[title*='D P' i]", ["Alpha"]),
    ("[href^='/']", ["The"]),
    # combinators: descendant, child, next sibling, subsequent sibling
    ("section p", ["Bravo", "Charlie"]),
    ("section > p", ["Bravo"]),
    ("section + p", ["Delta"]),
    ("section ~ p", ["Delta", "Echo", "The"]),
    ("#main > section > aside > p", ["Charlie"]),
    ("body > section", []),
    # :not()
    ("#main > p:not(.lead)", ["Delta", "Echo", "The"]),
    ("li:not(.x, :first-child)", ["Golf", "Hotel"]),
    # :nth-child() and the other structural pseudo-classes
    ("li:nth-child(2n)", ["Golf", "India"]),
    ("li:nth-child(odd)", ["Foxtrot", "Hotel"]),
    ("li:nth-child(-n+2)", ["Foxtrot", "Golf"]),
    ("li:nth-last-child(1)", ["India"]),
    ("#main > p:nth-of-type(3)", ["Echo"]),
    ("li:nth-child(2 of :not(.x))", ["Golf"]),
    ("li:first-child, li:last-child", ["Foxtrot", "India"]),
    ("aside > :only-child", ["Charlie"]),
    # :is(), :where() and :has()
    (":is(section, .sidebar) p", ["Bravo", "Charlie", "Kilo"]),
    (":where(aside, ul) :is(p, li:nth-child(3))", ["Charlie", "Hotel"]),
    ("p:has(> a)", ["The"]),
    ("section:has(aside)", ["Bravo", "Charlie"]),
    # links: an inline element prunes the block it is in
    ("a:link", ["The"]),
    (":any-link", ["The"]),
])
def test_selector_prunes(selector, pruned):
    assert pruned_words(selector) == pruned


def test_several_selectors_and_lists_prune_the_union():
    assert pruned_words(["aside", "li.x, #lead"]) == ["Alpha", "Charlie", "India"]


@pytest.mark.parametrize("bad", [
    "", "p >", "> p", "p[", "p..x", "div.a span!", "p , ", "[[[", "a )",
    "p::before", ":hover", "p:nth-child(x)", ":is(p, :bogus)", "p" * 1001, ":is(" * 40 + "p" + ")" * 40,
])
def test_a_bad_selector_is_an_option_error_naming_it(bad):
    for make in (lambda: Options(prune=("p", bad)), lambda: thresher.extract(PAGE, prune=bad)):
        with pytest.raises(OptionError) as caught:
            make()
        assert "bad CSS selector" in str(caught.value) and repr(bad[:20])[1:-1] in str(caught.value)
    with pytest.raises(OptionError):
        pruned_words(bad)


def test_pruning_is_the_same_whatever_the_document_holds_of_attributes():
    """The core matches on the DOM, which keeps every attribute; a document built without them
    (``attributes=False``) prunes the same blocks."""
    doc = build_document(PAGE, attributes=False)
    assert doc.elements.attrs[doc.elements.tags.index("section")] == {}
    assert [b.text.split()[0] for b, d in zip(doc.blocks, pruned_blocks(doc, ["[data-kind=ad i]"])) if d] == \
        ["Bravo"]
    lean = thresher.extract_result(PAGE, params=KEEP_ALL, include_comments=True, metadata=False, attributes=False,
                                   prune="section")
    full = thresher.extract_result(PAGE, params=KEEP_ALL, prune="section")
    assert [b.text for b in lean.blocks] == [b.text for b in full.blocks]
    assert not any(b.text.startswith(("Bravo", "Charlie")) for b in lean.blocks)


def test_element_indices_stay_right_past_skipped_elements():
    """Scripts, styles and iframes are elements of the table whose content is not walked; the
    elements after them are matched at their own indices."""
    html = ("<html><head><style>p{}</style><title>T</title></head><body><script>var x;</script>"
            "<p>One paragraph.</p><iframe><p>Not walked.</p></iframe><svg><text>Drawn.</text></svg>"
            "<p id=c>Three paragraph.</p><p>Four paragraph.</p></body></html>")
    assert pruned_words("#c", html) == ["Three"]
    assert pruned_words("script + p", html) == ["One"]
    assert pruned_words("svg ~ p", html) == ["Three", "Four"]
    assert pruned_words("p:nth-of-type(2)", html) == ["Three"]  # the iframe's markup is its text


def test_selectors_see_the_attributes_and_elements_the_parse_kept():
    """Matching reads the DOM the parse limits made: attributes past ``max_attributes`` are not
    there, and start tags past ``max_depth`` were dropped (their text kept in the parent)."""
    html = "<body><p a=1 b=2 c=3>Kept attributes.</p><div><div><p class=deep>Deep text.</p></div></div></body>"
    limited = build_document(html, limits=ParseLimits(max_attributes=2, max_depth=4))
    full = build_document(html)
    assert [b.text.split()[0] for b, d in zip(full.blocks, pruned_blocks(full, ["[c]", ".deep"])) if d] == \
        ["Kept", "Deep"]
    assert not pruned_blocks(limited, ["[c]", ".deep"]).any()
    assert pruned_blocks(limited, ["[b]"]).tolist() == [True, False]


def test_prune_keeps_the_labels_of_the_other_blocks():
    """A pruned page classifies as if the pruned blocks were never there: the blocks renumbered,
    the element ranges emptied, the same output as pruning by hand."""
    result = thresher.extract_result(PAGE, params=KEEP_ALL, prune=["section", "li:nth-child(odd)"])
    assert [b.text.split()[0] for b in result.blocks] == ["Alpha", "Delta", "Echo", "Golf", "India", "The", "Kilo"]
    assert [b.index for b in result.blocks] == list(range(len(result.blocks)))
    assert all(result.classification.labels)
    doc = prune_document(build_document(PAGE), ["section"])
    section = doc.elements.tags.index("section")
    assert doc.elements.first_blocks[section] == doc.elements.end_blocks[section]
    assert len(doc.native) == len(doc.blocks) == len(ALL) - 2
    text = thresher.extract(PAGE, params=KEEP_ALL, prune="#main")
    assert text == "Kilo side paragraph."


def test_a_selector_matching_nothing_returns_the_same_document():
    doc = build_document(PAGE)
    assert prune_document(doc, [".absent", "p:nth-child(100)", "video"]) is doc


def test_deep_pages_match_without_recursion():
    depth = 3000
    html = "<div class=x>" * depth + "<p class=t>deep</p>" + "</div>" * depth + "<p>after</p>"
    assert pruned_words(".x", html) == ["deep"]
    assert pruned_words(".x .x > p.t", html) in (["deep"], [])  # the parser caps the depth
    assert pruned_words(":has(.nothing)", html) == []


WORDS = ("nav", "post", "ad", "x", "")
TAGS = ("div", "p", "section", "span", "li", "aside")


@st.composite
def pages(draw):
    """Nested elements of a few tags, classes and ids, each with a numbered text."""
    parts: list[str] = []
    for n in range(draw(st.integers(1, 14))):
        tag = draw(st.sampled_from(TAGS))
        cls, ident = draw(st.sampled_from(WORDS)), draw(st.sampled_from(WORDS))
        attrs = (f" class='{cls}'" if cls else "") + (f" id='{ident}'" if ident else "")
        depth = draw(st.integers(0, 3))
        parts.append("<div class='wrap'>" * depth + f"<{tag}{attrs}>text {n}</{tag}>" + "</div>" * depth)
    return "<html><body>" + "".join(parts) + "</body></html>"


compounds = st.builds(lambda tag, rest: (tag + rest) or "*",
                      st.sampled_from(("", "div", "p", "*", "section", "span", "li")),
                      st.sampled_from(("", ".nav", "#post", "[class^=a]", "[id*=o i]", ":not(.x)", ":first-child",
                                       ":nth-child(2n+1)", ":is(li, aside)", ".wrap:has(p)")))
selectors = st.builds(lambda first, rest: first + "".join(c + s for c, s in rest), compounds,
                      st.lists(st.tuples(st.sampled_from((" ", " > ", " + ", " ~ ")), compounds), max_size=2))


@given(pages(), st.lists(selectors, min_size=1, max_size=3))
def test_pruning_never_adds_text(html, chosen):
    """The pruned document's blocks are the original's, in order, minus some: prune never adds,
    changes or reorders text."""
    doc = build_document(html)
    pruned = prune_document(doc, chosen)
    kept = iter(b.text for b in doc.blocks)
    assert all(text in kept for text in (b.text for b in pruned.blocks))  # an ordered subsequence
    drop = pruned_blocks(doc, chosen)
    assert [b.text for b in pruned.blocks] == [b.text for b, d in zip(doc.blocks, drop.tolist()) if not d]


@given(pages(), st.sampled_from((".absent", "#nothing", "video", "p.ad.nav.post.x", "[data-none]",
                                 "li:nth-child(50)", "aside > aside > aside > aside")))
def test_a_selector_matching_nothing_changes_nothing(html, selector):
    doc = build_document(html)
    if pruned_blocks(doc, [selector]).any():  # a drawn page can hold a match for the deeper ones
        return
    assert prune_document(doc, [selector]) is doc
    assert thresher.extract(html, params=KEEP_ALL, prune=selector) == thresher.extract(html, params=KEEP_ALL)


SELECTOR_PIECES = st.sampled_from([*"abpdiv*#.[]()=~|^$+>:, '\"\\-n0123", ":not(", ":is(", ":has(", ":nth-child(",
                                   ":where(", "::", " of ", "2n+1", ":root", ":empty", "@", "\x00", "é", "/*", "{",
                                   ";", "&", " i]"])


@given(st.lists(SELECTOR_PIECES, max_size=30).map("".join))
def test_any_selector_text_prunes_or_is_an_option_error(text):
    """Whatever the caller's text, pruning answers a mask or raises OptionError."""
    doc = build_document(PAGE)
    try:
        drop = pruned_blocks(doc, [text])
    except OptionError as error:
        assert "bad CSS selector" in str(error)
    else:
        assert drop.shape == (len(doc.blocks),)
