"""Declutter: prune (poison words), shake (Words - 2*LinkWords - Tags), blessed overrides."""
from __future__ import annotations

import html as htmllib
import re
from collections import Counter

import pytest

import thresher
from thresher.algorithms import get, names
from thresher.algorithms.base import Context
from thresher.algorithms.declutter import Params, prune, run, shake, token_parts, token_verdict
from thresher.document.blocks import Block, Document, ElementTable, build_document

PROSE = ("The committee met on Tuesday to discuss the new proposal for the river crossing, and "
         "after a long debate the members agreed that the plan should go ahead next spring. ")


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def decide(html: str, params: Params | None = None):
    doc = build_document(page(html))
    result = get("declutter").run(doc, params)
    return doc, result


def kept_texts(html: str, params: Params | None = None) -> list[str]:
    doc, result = decide(html, params)
    return [b.text for b, keep in zip(doc.blocks, result.labels) if keep]


def reason_of(html: str, needle: str) -> str:
    doc, result = decide(html)
    return next(r for b, r in zip(doc.blocks, result.reasons) if needle in b.text)


def poisoned(token: str) -> bool:
    return bool(token_verdict(token, Params()).poison)


def test_registered():
    assert "declutter" in names()
    assert get("declutter").params_type is Params


# ------------------------------------------------------------------ tokens

def test_token_parts_split_at_punctuation_and_camel_case():
    assert token_parts("adSlot2-top_x9f3") == ("ad", "slot", "top")
    assert token_parts("main-Content") == ("main", "content")
    assert token_parts("de4e8c2ad6") == ()  # a hash is not words


@pytest.mark.parametrize("token", ["ad", "ads", "ad-slot", "adSlot", "top_ad", "ad300", "advert",
                                   "advertisement", "adsbygoogle", "sidebar", "sidebarWidget",
                                   "comments", "share-buttons", "social-icons", "cookie-notice"])
def test_poison_tokens(token):
    assert poisoned(token)


@pytest.mark.parametrize("token", ["header", "load", "shadow", "read", "readmore", "badge", "address",
                                   "download", "lead", "head", "elementor-element-ad102a7", "commentary",
                                   "has-sidebar", "sidebar-collapsed", "no-comments", "story-body"])
def test_innocent_tokens(token):
    assert not poisoned(token)


def test_safe_token_cancels_poison_on_the_same_element():
    assert kept_texts(f'<div class="main right-sidebar"><p>{PROSE}</p></div>') == [PROSE.strip()]
    assert kept_texts(f'<div class="right-sidebar"><p>{PROSE}</p></div>') == []


# ------------------------------------------------------------------ prune

def test_sidebar_is_pruned_however_wordy():
    html = f'<div><p>{PROSE}</p></div><div class="sidebar"><p>{PROSE * 3}</p></div>'
    assert kept_texts(html) == [PROSE.strip()]
    reason = reason_of(html, (PROSE * 3).strip()[:200])
    assert reason.startswith("pruned by <div class=sidebar>") and "sidebar" in reason


@pytest.mark.parametrize("wrapper", ['<nav>{}</nav>', '<aside>{}</aside>', '<footer>{}</footer>',
                                     '<div role="navigation">{}</div>', '<div style="display: none">{}</div>',
                                     '<div id="comments">{}</div>', '<section class="related-posts">{}</section>'])
def test_furniture_is_pruned(wrapper):
    html = f"<article><p>{PROSE}</p></article>" + wrapper.format(f"<p>{PROSE} extra</p>")
    assert kept_texts(html) == [PROSE.strip()]


def test_script_like_content_is_pruned():
    html = f"<p>{PROSE}</p><div><button>Click here to subscribe to our lovely newsletter today</button></div>"
    assert kept_texts(html) == [PROSE.strip()]


def test_block_whose_only_text_is_in_a_pruned_inline_element_is_dropped():
    html = (f'<p>{PROSE}<span class="share">Share this</span></p>'
            '<p><span class="share-tools">Share on every network you like right now please</span></p>')
    texts = kept_texts(html)
    assert texts == [(PROSE + "Share this").strip()]  # the block itself has live text


def test_prune_looks_at_each_element_alone():
    doc = build_document(page('<div class="sidebar"><p class="x">a</p></div>'))
    triggers = prune(doc, Params(), {})
    tags = doc.elements.tags
    assert triggers[tags.index("div")] == "poison word 'sidebar'"
    assert triggers[tags.index("p")] == ""  # pruned only through its ancestor


# ------------------------------------------------------------------ shake

def test_score_is_words_minus_twice_link_words_minus_tags():
    doc = build_document(page('<div>one two three four five six seven eight <a href="/">nine ten</a></div>'))
    pruned = prune(doc, Params(), {})
    shaken = shake(doc, Params(), [bool(t) for t in pruned], {})
    div = doc.elements.tags.index("div")
    assert (shaken.words[div], shaken.link_words[div], shaken.tags[div]) == (8, 2, 2)
    assert shaken.scores[div] == 8 - 2 * 2 - 2


def test_weights_are_params():
    html = '<div>one two three <a href="/">four five six</a></div>'
    assert kept_texts(html) == []  # 3 - 6 - 2 < 0
    assert kept_texts(html, Params(link_word_weight=0.0)) == ["one two three four five six"]


def test_link_heavy_navigation_is_shaken_out():
    nav = "".join(f'<li><a href="/{w}">{w} section</a></li>' for w in "news sport weather culture".split())
    html = f'<div class="top"><ul>{nav}</ul></div><div class="story"><p>{PROSE}</p></div>'
    assert kept_texts(html) == [PROSE.strip()]
    assert reason_of(html, "news section").startswith("shaken: score ")
    assert reason_of(html, "committee").startswith("kept: score ")


def test_counts_propagate_as_if_nothing_was_removed():
    nav = "".join(f'<li><a href="/{i}">link {i}</a></li>' for i in range(3))
    doc = build_document(page(f'<div id="outer"><ul>{nav}</ul><p>{PROSE}</p></div>'))
    shaken = shake(doc, Params(), [False] * len(doc.elements), {})
    outer = next(i for i, a in enumerate(doc.elements.attrs) if a.get("id") == "outer")
    assert shaken.link_words[outer] == 6  # the removed list still counts
    assert shaken.removed[doc.elements.tags.index("ul")]
    assert not shaken.removed[outer]


def test_a_kept_descendant_protects_its_ancestors():
    # The outer div alone scores negative (many link words), but its paragraph is kept.
    links = " ".join(f'<a href="/{i}">link number {i}</a>' for i in range(20))
    html = f'<div id="box">{links}<p>{PROSE}</p></div>'
    doc, result = decide(html)
    box = next(i for i, a in enumerate(doc.elements.attrs) if a.get("id") == "box")
    shaken = shake(doc, Params(), [False] * len(doc.elements), {})
    assert shaken.scores[box] < 0 and not shaken.removed[box]
    assert PROSE.strip() in [b.text for b, k in zip(doc.blocks, result.labels) if k]
    assert "a descendant is kept" in reason_of(html, "link number 0")


def test_byline_is_blessed():
    html = (f'<div class="story"><div class="byline">By <a href="/jo">Jo Smith</a> and '
            f'<a href="/al">Al Jones</a></div><p>{PROSE}</p></div>')
    assert kept_texts(html)[0] == "By Jo Smith and Al Jones"
    assert reason_of(html, "Jo Smith").startswith("kept: blessed by <div class=byline>")
    # Without the blessing the same block is shaken out.
    assert kept_texts(html.replace("byline", "credits"))[0] == PROSE.strip()


def test_blessing_reads_itemprop_and_rel():
    for attr in ('itemprop="author"', 'rel="author"'):
        html = f'<div {attr}><a href="/a">Jo</a> <a href="/b">Smith</a></div><p>{PROSE}</p>'
        assert "Jo Smith" in kept_texts(html)


def test_headings_stand_with_their_section():
    html = f"<article><h1>A title</h1><p>{PROSE}</p></article>"
    assert kept_texts(html) == ["A title", PROSE.strip()]


def test_labels_scores_and_reasons_per_block():
    doc, result = decide(f'<p>{PROSE}</p><div class="promo"><p>buy</p></div>')
    assert len(result.labels) == len(result.reasons) == len(result.scores) == len(doc.blocks)
    assert result.labels == (True, False)


# ------------------------------------------------------------------ hostile input

def _deep_document(depth: int) -> Document:
    """A chain of ``depth`` nested divs holding one text block, built without a parser."""
    tags = ("html", "body") + ("div",) * depth
    n = len(tags)
    parents = tuple(range(-1, n - 1))
    table = ElementTable(tags, parents, tuple(range(n)), tuple({} for _ in range(n)),
                         (0,) * n, (1,) * n)
    text = " ".join(["word"] * 50)
    block = Block(0, text, "div", n - 1, ((text, n - 1),), len(text), 50, 0, 0, n - 2, False, 0)
    return Document(elements=table, blocks=(block,))


def test_a_100000_deep_page_is_classified_without_recursion():
    result = run(_deep_document(100_000), Params(), Context())
    assert result.labels == (True,)


def test_a_100000_deep_html_page_goes_through_the_pipeline():
    html = "<div>" * 100_000 + PROSE + "</div>" * 100_000
    result = thresher.extract_result(page(html), algorithm="declutter")
    assert PROSE.strip() in result.text


# ------------------------------------------------------------------ quality

def _words(text: str) -> Counter:
    return Counter(re.findall(r"\w+", text.lower()))


def _f1(pred: str, gold: str) -> float:
    p, g = _words(pred), _words(gold)
    overlap = sum((p & g).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / sum(p.values()), overlap / sum(g.values())
    return 2 * precision * recall / (precision + recall)


def test_quality_on_readability_sample(shared_dir):
    """Every 6th readability test page: mean word F1 >= 0.8 (all 130 pages measure 0.90)."""
    pages = sorted(p.parent for p in (shared_dir / "datasets" / "readability").glob("*/source.html"))[::6]
    scores = []
    for folder in pages:
        expected = (folder / "expected.html").read_text(encoding="utf-8")
        gold = re.sub(r"(?s)<[^>]+>", " ", re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", expected))
        pred = thresher.extract((folder / "source.html").read_bytes(), algorithm="declutter")
        scores.append(_f1(pred, htmllib.unescape(gold)))
    assert sum(scores) / len(scores) >= 0.8
