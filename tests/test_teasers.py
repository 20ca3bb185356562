"""Teaser items (thresher.features.teasers): link-dense repeated cards of headline and snippet."""
from __future__ import annotations

import numpy as np

from thresher.document.blocks import build_document
from thresher.features.teasers import DEFAULT_RULE, TeaserRule, document_teasers, teaser_blocks

PROSE = ("Volunteers planted four hundred oak saplings along the northern edge of the park on Saturday, the first "
         "stage of a plan to restore the woodland that was cleared for grazing a century ago. ")
CARD = '<div class="{cls}"><h3><a href="/n/{i}">Headline number {i} of the grid</a></h3><p>{snippet}</p></div>'


def cards(n: int, cls: str = "card", snippet: str = "A line of summary.") -> str:
    return "".join(CARD.format(cls=cls, i=i, snippet=snippet) for i in range(n))


def teaser_texts(html: str, rule: TeaserRule = DEFAULT_RULE) -> list[str]:
    doc = build_document(html)
    return [b.text for b, t in zip(doc.blocks, document_teasers(doc, rule)) if t]


def test_a_grid_of_headline_and_snippet_cards_is_teasers_and_the_article_is_not():
    html = f"<article><h1>Oaks</h1><p>{PROSE}</p><p>{PROSE}</p></article><div>{cards(4)}</div>"
    marked = teaser_texts(html)
    assert len(marked) == 8
    assert all("Headline" in t or t == "A line of summary." for t in marked)


def test_fewer_than_three_cards_long_items_or_unlinked_items_are_not_teasers():
    assert teaser_texts(f"<div>{cards(2)}</div>") == []  # two siblings are not a grid
    assert teaser_texts(f"<div>{cards(4, snippet=PROSE)}</div>") == []  # an item of 40+ words of prose
    plain = "".join(f"<div class='c'><h3>Heading {i}</h3><p>A line of summary.</p></div>" for i in range(4))
    assert teaser_texts(f"<div>{plain}</div>") == []  # no headline link
    # a repeated table row is a table, never an item
    rows = "".join(f"<tr><td><a href='/{i}'>link {i}</a></td><td>cell text</td></tr>" for i in range(5))
    assert teaser_texts(f"<table>{rows}</table>") == []


def test_the_rule_reads_its_thresholds():
    html = f"<div>{cards(3)}</div>"
    assert teaser_texts(html, TeaserRule(siblings=3)) == []
    assert len(teaser_texts(html, TeaserRule(siblings=2))) == 6
    assert teaser_texts(html, TeaserRule(max_words=5)) == []


def test_arrays_without_blocks_or_elements_mark_nothing():
    empty = np.zeros(0)
    assert teaser_blocks(empty, empty, empty, empty, empty, empty).shape == (0,)
    out = teaser_blocks(np.array([0]), np.array([0]), np.array([True]), np.array([0, 0]), np.array([3.0, 4.0]),
                        np.array([1.0, 0.0]))
    assert out.tolist() == [False, False]
