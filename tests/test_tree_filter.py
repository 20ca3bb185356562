"""The HTML-tree filter (Viveros-Jiménez et al., 2018) over hand-labelled base selections."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

import thresher
from thresher.algorithms import get, names
from thresher.algorithms.base import Algorithm, Classification, Context
from thresher.algorithms.boilerpipe import NumWordsParams
from thresher.algorithms.tree import (
    Group,
    Params,
    describe,
    group_selected,
    nth_ancestor,
    paragraph_element,
    tree_filter,
    winning_group,
    wrap,
)
from thresher.document.blocks import build_document


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def text(n: int, word: str = "word") -> str:
    return " ".join([word] * n)


@dataclass(frozen=True)
class SelectParams:
    """Which blocks the stand-in base selects (None: all)."""

    selected: tuple[int, ...] | None = None


def _select(doc, p: SelectParams, context: Context) -> Classification:
    chosen = range(len(doc.blocks)) if p.selected is None else p.selected
    return Classification.from_labels([i in chosen for i in range(len(doc.blocks))],
                                      [f"base {i}" for i in range(len(doc.blocks))])


SELECT = Algorithm("select", "selects given blocks", "test", SelectParams, _select)
SELECT_TREE = wrap(SELECT)


def run(html: str, depth: int, selected=None) -> Classification:
    doc = build_document(html)
    return SELECT_TREE.run(doc, Params(depth=depth, base_params=SelectParams(selected)))


def block_index(doc, snippet: str) -> int:
    return next(b.index for b in doc.blocks if snippet in b.text)


# ------------------------------------------------------------ paragraphs

def test_paragraph_element_is_the_innermost_paragraph_on_the_path():
    doc = build_document(page(
        '<div id="outer"><div id="inner"><p>in p <b>bold</b></p></div>'
        '<ul id="list"><li><span>item</span></li></ul>'
        '<table id="t"><tr><td>cell</td></tr></table>'
        '<div id="loose">loose text<p>para</p></div></div>'))
    el = doc.elements

    def para(snippet):
        return el[paragraph_element(doc, doc.blocks[block_index(doc, snippet)].element)]

    assert para("in p").tag == "p"
    assert para("item").id == "list"  # li is not a paragraph tag: its ul is
    assert para("cell").id == "t"  # td, tr, tbody are not: the table is
    assert para("loose text").id == "loose"  # the div holds a p, but not this text
    assert para("para").tag == "p"


def test_nth_ancestor_stops_at_the_root():
    doc = build_document(page("<div><p>x</p></div>"))
    p = next(i for i, tag in enumerate(doc.elements.tags) if tag == "p")
    assert doc.elements[nth_ancestor(doc, p, 1)].tag == "div"
    assert doc.elements[nth_ancestor(doc, p, 2)].tag == "body"
    assert nth_ancestor(doc, p, 50) == 0  # html


# ------------------------------------------------------------ grouping

TWO_COLUMNS = page(
    '<div id="wrap">'
    f'<div id="main"><p>{text(40, "alpha")}</p><p>{text(30, "beta")}</p></div>'
    f'<div id="side"><p>{text(50, "gamma")}</p></div>'
    '</div>'
    f'<div id="footer"><div id="links"><p>{text(5, "delta")}</p></div></div>')


def test_depth_one_groups_by_parent():
    doc = build_document(TWO_COLUMNS)
    groups = group_selected(doc, [True] * len(doc.blocks), 1)
    assert [describe(doc, g.ancestor) for g in groups] == ["<div#main>", "<div#side>", "<div#links>"]
    assert [g.blocks for g in groups] == [(0, 1), (2,), (3,)]
    result = run(TWO_COLUMNS, 1)
    assert result.labels == (True, True, False, False)  # main: 70 words of text beat side's 50


def test_depth_two_groups_by_grandparent():
    doc = build_document(TWO_COLUMNS)
    groups = group_selected(doc, [True] * len(doc.blocks), 2)
    assert [describe(doc, g.ancestor) for g in groups] == ["<div#wrap>", "<div#footer>"]
    assert run(TWO_COLUMNS, 2).labels == (True, True, True, False)


def test_default_depth_is_two():
    assert Params().depth == 2
    doc = build_document(TWO_COLUMNS)
    assert SELECT_TREE.run(doc).labels == (True, True, True, False)


def test_only_selected_blocks_count_and_are_kept():
    # without alpha, side (gamma) has more selected text than main (beta)
    result = run(TWO_COLUMNS, 1, selected=(1, 2))
    assert result.labels == (False, False, True, False)
    assert result.reasons[0] == "base 0"  # never selected: the base's reason stands


def test_group_with_most_characters_wins_not_most_blocks():
    html = page('<div id="a">' + "".join(f"<p>{text(3)}</p>" for _ in range(5)) + "</div>"
                f'<div id="b"><p>{text(30)}</p></div>')
    assert run(html, 1).labels == (False,) * 5 + (True,)


def test_ties_go_to_the_first_group():
    assert winning_group([Group(5, (0,), 10), Group(9, (1,), 10)]).ancestor == 5
    assert winning_group([]) is None


def test_reasons_name_the_winning_group():
    result = run(TWO_COLUMNS, 1)
    size = len(text(40, "alpha")) + len(text(30, "beta"))
    assert result.reasons[0] == f"base 0; tree filter: group of <div#main> {size:,} chars kept"
    assert result.reasons[2] == "base 2; tree filter: outside the winning group <div#main>"


def test_nothing_selected_stays_nothing():
    result = run(TWO_COLUMNS, 2, selected=())
    assert result.labels == (False,) * 4


def test_filter_keeps_base_scores():
    doc = build_document(TWO_COLUMNS)
    base = Classification.from_labels([True] * 4, scores=[0.1, 0.2, 0.3, 0.4])
    assert tree_filter(doc, base, 1).scores == (0.1, 0.2, 0.3, 0.4)


# ------------------------------------------------------------ wrapping

def test_params_depth_range():
    for bad in (0, 6, 2.0):
        with pytest.raises(ValueError):
            Params(depth=bad)
    assert [Params(depth=k).depth for k in range(1, 6)] == [1, 2, 3, 4, 5]


def test_never_wraps_twice():
    assert SELECT_TREE.name == "select+tree"
    assert wrap(SELECT_TREE) is SELECT_TREE
    assert not any(name.endswith("+tree+tree") for name in names())
    assert get("boilerpipe-article+tree").params_type is Params


def test_base_params_pass_through():
    html = page(f"<div><p>{text(10)}</p></div>")  # 10 words: short for the default NumWords tree
    doc = build_document(html)
    algorithm = get("boilerpipe-numwords+tree")
    assert algorithm.run(doc).labels == (False,)
    lenient = NumWordsParams(short_words=5)
    assert algorithm.run(doc, Params(base_params=lenient)).labels == (True,)
    with pytest.raises(TypeError):
        algorithm.run(doc, Params(base_params=SelectParams()))


def test_article_tree_on_a_page():
    html = page(f'<div id="body"><div><p>{text(150)}</p><p>{text(120)}</p></div></div>'
                f'<div id="aside"><div><p>{text(80, "other")}</p></div></div>'
                '<div><a href="/">About</a></div>')
    plain = thresher.extract_result(html, algorithm="boilerpipe-article", language="en")
    filtered = thresher.extract_result(html, algorithm="boilerpipe-article+tree", language="en")
    assert [b.text.split()[0] for b in plain.kept] == ["word", "word", "other"]
    assert set(b.index for b in filtered.kept) <= set(b.index for b in plain.kept)
    assert [b.text.split()[0] for b in filtered.kept] == ["word", "word"]


def test_hundred_thousand_deep_page():
    depth = 100_000
    html = ("<html><body>" + "<div>" * depth + f"<p>{text(200, 'deep')}</p>" + "</div>" * depth
            + f"<p>{text(30, 'shallow')}</p></body></html>")
    out = thresher.extract(html, algorithm="boilerpipe-article+tree", language="en")
    assert "deep deep deep" in out
