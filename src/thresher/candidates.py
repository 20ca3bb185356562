"""Readability's content-score candidates, as block features for the learned flagship.

Mozilla Readability (Readability.js, and readability-lxml after it) picks a page's
article by scoring candidate containers: every paragraph-like element of 25+
characters gives 1 point, plus one per comma, plus one per 100 characters (at most
3) to its parent in full, its grandparent by half and the three ancestors above
by ``level * 3``. A candidate starts from a score for its tag (``div`` +5; ``pre``,
``td``, ``blockquote`` +3; lists, forms and their items -3; headings -5) and
+/-25 each for its class and its id when they name content or boilerplate, and ends
multiplied by ``1 - link density``. Elements whose id or class looks unlikely
(comments, menus, sidebars...) are dropped with their subtree before scoring. The
best candidate climbs to an ancestor that keeps a third of its score or beats it,
and through parents of which it is the only child; its siblings join the article
when they score at least ``max(10, 0.2 * best)``, or are paragraphs of prose.

Here the blocks stand in for Readability's paragraphs: a block delimited by a
``p``, ``td``, ``pre``, ``section``, ``h2``-``h6`` or ``div`` is one; its element's
parent is the first ancestor scored, or the element itself when the block is one
of several text runs inside it (Readability wraps such runs in new paragraphs).
The class and id patterns are Readability's, matched as substrings of the
lower-cased values, one non-overlapping scan per distinct value.

What the columns bought, and the variants tried: docs/design-measurements.md.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from . import features as F
from .blocks import Document

# Readability's class/id patterns (REGEXPS in Readability.js), as literal substrings.
UNLIKELY = ("-ad- ai2html banner breadcrumbs combx comment community cover-wrap disqus extra footer gdpr "
            "header legends menu related remark replies rss shoutbox sidebar skyscraper social sponsor "
            "supplemental ad-break agegate pagination pager popup yom-remote").split()
MAYBE_CANDIDATE = "and article body column content main mathjax shadow".split()
POSITIVE = "article body content entry hentry h-entry main page pagination post text blog story".split()
NEGATIVE = ("-ad- hidden banner combx comment com- contact footer gdpr masthead media meta outbrain promo "
            "related scroll share shoutbox sidebar skyscraper sponsor shopping tags widget").split()
NEGATIVE_WORD = "hid"  # Readability's negative pattern also holds "hid" as a whole word of the value
UNLIKELY_ROLES = frozenset("menu menubar complementary navigation alert alertdialog dialog".split())
TAG_SCORES = {"div": 5, "pre": 3, "td": 3, "blockquote": 3, "address": -3, "ol": -3, "ul": -3, "dl": -3,
              "dd": -3, "dt": -3, "li": -3, "form": -3, "h1": -5, "h2": -5, "h3": -5, "h4": -5, "h5": -5,
              "h6": -5, "th": -5}
PARAGRAPH_TAGS = frozenset("section h2 h3 h4 h5 h6 p td pre div".split())
CLASS_WEIGHT = 25.0
MIN_PARAGRAPH_CHARS = 25
ANCESTOR_LEVELS = 5
SIBLING_SHARE = 0.2
MIN_SIBLING_SCORE = 10.0

_UNLIKELY_BIT, _MAYBE_BIT, _POSITIVE_BIT, _NEGATIVE_BIT = 1, 2, 4, 8
_GROUPS = ((UNLIKELY, _UNLIKELY_BIT), (MAYBE_CANDIDATE, _MAYBE_BIT), (POSITIVE, _POSITIVE_BIT),
           (NEGATIVE, _NEGATIVE_BIT))


def _literal_bits() -> dict[str, int]:
    """Each literal's groups: those with a literal inside it ("pagination" holds "page")."""
    literals = {lit for group, _ in _GROUPS for lit in group}
    return {lit: sum(bit for group, bit in _GROUPS if any(g in lit for g in group)) for lit in literals}


def trie_pattern(words) -> str:
    """A regular expression matching any of ``words``, factored by common prefixes
    ("co(?:lumn|m(?:bx|...)|...)"): at each position it matches the longest word, like an
    alternation sorted longest first, and scans about twice as fast. Recursive over the
    words' letters only (the longest is 12), never over a page."""
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def branch(node: dict) -> str:
        alternatives = [re.escape(ch) + branch(node[ch]) for ch in sorted(node) if ch]
        if not alternatives:
            return ""
        body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        return f"(?:{body})?" if "" in node else body

    return branch(trie)


LITERAL_BITS = _literal_bits()
_ANY_LITERAL = re.compile(trie_pattern(LITERAL_BITS))


def pattern_bits(value: str | None) -> int:
    """The Readability pattern groups (bits ``_*_BIT``) an id or class value matches."""
    if not value:
        return 0
    lowered = value.lower()
    bits = 0
    for literal in _ANY_LITERAL.findall(lowered):
        bits |= LITERAL_BITS[literal]
    if NEGATIVE_WORD in lowered and NEGATIVE_WORD in lowered.split():
        bits |= _NEGATIVE_BIT
    return bits


class ElementCues(NamedTuple):
    """Per element: Readability's class/id weight and whether it drops the element as unlikely."""

    weight: np.ndarray
    unlikely: np.ndarray


def _weights(bits: np.ndarray) -> np.ndarray:
    return CLASS_WEIGHT * (((bits & _POSITIVE_BIT) != 0).astype(np.float64) - ((bits & _NEGATIVE_BIT) != 0))


def element_cues(tags, roles: dict, id_bits: np.ndarray, class_bits: np.ndarray) -> ElementCues:
    """Weights and unlikely flags from each element's id and class bits and its ``role``
    (``roles``: element -> role, for the elements that have one)."""
    both = id_bits | class_bits
    unlikely = ((both & _UNLIKELY_BIT) != 0) & ((both & _MAYBE_BIT) == 0)
    flagged = np.flatnonzero(unlikely).tolist()
    unlikely[flagged] = [tags[i] not in ("body", "a") for i in flagged]
    unlikely[[i for i, role in roles.items() if role in UNLIKELY_ROLES]] = True
    return ElementCues(_weights(id_bits) + _weights(class_bits), unlikely)


def inherited(flags: np.ndarray, parents: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """``flags`` OR-ed down the tree: true where the element or an ancestor is flagged.

    ``parents`` maps the root to itself. Pointer jumping, as :func:`thresher.features.tree_facts`
    does: log2(depth) vectorised steps, no walk along any path."""
    out, up, reach = flags.copy(), parents, 1
    deepest = int(depths.max()) if len(depths) else 0
    while reach <= deepest:
        out |= out[up]
        up = up[up]
        reach *= 2
    return out


def paragraph_blocks(doc: Document) -> np.ndarray:
    """The blocks Readability would score as paragraphs, unless an unlikely ancestor drops them:
    long enough, and delimited by a paragraph-like element."""
    numbers = doc.numbers
    tags = doc.elements.tags
    paragraph = numbers.chars >= MIN_PARAGRAPH_CHARS
    long_enough = np.flatnonzero(paragraph)
    paragraph[long_enough] = [tags[e] in PARAGRAPH_TAGS for e in numbers.element[long_enough].tolist()]
    return paragraph


def paragraph_scores(doc: Document, paragraph: np.ndarray, removed: np.ndarray) -> np.ndarray:
    """Each block's points as a Readability paragraph (0 when it is not one, or is dropped)."""
    numbers = doc.numbers
    scored = paragraph & ~removed[numbers.element]
    commas = np.zeros(len(scored))
    picked = np.flatnonzero(scored)
    commas[picked] = [doc.blocks[i].text.count(",") + doc.blocks[i].text.count("，") for i in picked.tolist()]
    return np.where(scored, 1.0 + commas + np.minimum(numbers.chars // 100, 3), 0.0)


def holding_bits(doc: Document, facts: F.TreeFacts, paragraph: np.ndarray) -> np.ndarray:
    """Per distinct id/class value (``facts.tokens_of``'s order): its pattern bits, scanned only
    for the values of elements that hold a paragraph block. Only those elements' cues can drop
    a paragraph (an unlikely ancestor holds it) or weigh a candidate (a candidate is an
    ancestor of a paragraph), usually a minority of a page's values."""
    arrays = doc.elements.arrays
    count = np.concatenate([[0], np.cumsum(paragraph)])
    holds = count[arrays.end_blocks] > count[arrays.first_blocks]
    values = list(facts.tokens_of)
    wanted = np.zeros(len(values), bool)  # a mask, not np.unique: no sort
    wanted[facts.id_slot[holds]] = True
    wanted[facts.class_slot[holds]] = True
    slots = np.flatnonzero(wanted).tolist()
    bits = np.zeros(len(values), np.int64)
    bits[slots] = [pattern_bits(values[i]) for i in slots]
    return bits


class Candidates(NamedTuple):
    """Per element: whether some paragraph scored it, and its final score (0 when not)."""

    touched: np.ndarray
    score: np.ndarray


def score_candidates(doc: Document, points: np.ndarray, parents: np.ndarray, weight: np.ndarray,
                     link_density: np.ndarray) -> Candidates:
    """Readability's candidate scores: paragraph points spread over five ancestors, added to
    each scored element's start (its tag's score and its class/id ``weight``)."""
    els = doc.elements
    raw_parents, _, first, end = els.arrays
    owner = doc.numbers.element
    several_runs = (end - first)[owner] > 1  # the block is one text run of several in its element
    picked = np.flatnonzero(points > 0)
    ancestor = np.where(several_runs, owner, parents[owner])[picked]
    own = points[picked]
    total = np.zeros(len(els))
    touched = np.zeros(len(els), bool)
    for level in range(ANCESTOR_LEVELS):
        divider = 1 if level == 0 else 2 if level == 1 else level * 3
        real = raw_parents[ancestor] >= 0  # Readability skips the document itself
        np.add.at(total, ancestor[real], own[real] / divider)
        touched[ancestor[real]] = True
        ancestor = parents[ancestor]
    scored = np.flatnonzero(touched)
    tags = els.tags
    start = np.zeros(len(els))
    start[scored] = [TAG_SCORES.get(tags[i], 0) for i in scored.tolist()]
    return Candidates(touched, np.where(touched, (start + weight + total) * (1.0 - link_density), 0.0))


def climb(top: int, candidates: Candidates, raw_parents: np.ndarray, tags) -> int:
    """Readability's move up from the best candidate: to the first scored ancestor that beats
    it (stopping where scores fall below a third of the first), then through parents of which
    it is the only child element. Iterative, at most the element's depth steps each."""
    score, touched = candidates.score, candidates.touched
    floor, last = score[top] / 3, score[top]
    parent = int(raw_parents[top])
    while parent >= 0 and tags[parent] != "body":
        if touched[parent]:
            if score[parent] < floor:
                break
            if score[parent] > last:
                top = parent
                break
            last = score[parent]
        parent = int(raw_parents[parent])
    children = np.bincount(raw_parents[raw_parents >= 0], minlength=len(raw_parents))
    parent = int(raw_parents[top])
    while parent >= 0 and tags[parent] != "body" and children[parent] == 1:
        top, parent = parent, int(raw_parents[parent])
    return top


def _prose_paragraph(doc: Document, element: int, chars: float, link_density: float) -> bool:
    """Readability's test for a sibling ``<p>`` that joins the article on its own merits."""
    if chars > 80:
        return link_density < 0.25
    if chars <= 0 or link_density > 0:
        return False
    els = doc.elements
    text = " ".join(b.text for b in doc.blocks[els.first_blocks[element]:els.end_blocks[element]])
    return re.search(r"\.( |$)", text) is not None


def article_blocks(doc: Document, top: int, candidates: Candidates, raw_parents: np.ndarray,
                   chars: np.ndarray, link_density: np.ndarray, removed: np.ndarray) -> np.ndarray:
    """The blocks of the top candidate and of the siblings Readability adds to it."""
    els = doc.elements
    first, end = els.first_blocks, els.end_blocks
    article = np.zeros(len(doc.blocks), bool)
    article[first[top]:end[top]] = True
    parent = int(raw_parents[top])
    if parent < 0:
        return article
    top_class = els.attrs[top].get("class")
    threshold = max(MIN_SIBLING_SCORE, candidates.score[top] * SIBLING_SHARE)
    for sibling in np.flatnonzero(raw_parents == parent).tolist():
        if sibling == top or first[sibling] == end[sibling]:
            continue
        same_class = bool(top_class) and els.attrs[sibling].get("class") == top_class
        bonus = candidates.score[top] * SIBLING_SHARE if same_class else 0.0
        joins = candidates.touched[sibling] and candidates.score[sibling] + bonus >= threshold
        if not joins and els.tags[sibling] == "p" and not removed[sibling]:
            joins = _prose_paragraph(doc, sibling, chars[sibling], link_density[sibling])
        if joins:
            article[first[sibling]:end[sibling]] = True
    return article


NAMES = ("rd_paragraph", "rd_in_top", "rd_in_article", "rd_ancestor_best", "rd_parent_score",
         "rd_top_share")


def candidate_columns(doc: Document, facts: F.TreeFacts) -> F.Columns:
    """Readability's view of each block: its paragraph points (log), whether it lies in the
    best candidate and in the article (the best candidate and the siblings that join it), the
    best score among its element and four ancestors and its parent's score (both over the
    best candidate's), and the best candidate's share of the page's text."""
    els = doc.elements
    n = len(doc.blocks)
    raw_parents, depths = els.arrays.parents, els.arrays.depths
    paragraph = paragraph_blocks(doc)
    bits = holding_bits(doc, facts, paragraph)
    cues = element_cues(els.tags, facts.roles, bits[facts.id_slot], bits[facts.class_slot])
    removed = inherited(cues.unlikely | facts.hidden, facts.parents, depths)
    points = paragraph_scores(doc, paragraph, removed)
    chars = facts.subtree_chars
    link_density = facts.subtree_link_chars / np.maximum(1.0, chars)
    candidates = score_candidates(doc, points, facts.parents, cues.weight, link_density)
    owner = doc.numbers.element
    columns = {"rd_paragraph": np.log1p(points)}
    if not candidates.touched.any():
        zeros = np.zeros(n)
        columns |= dict.fromkeys(NAMES[1:], zeros)
        return F.Columns.of({k: columns[k] for k in NAMES}, n)
    top = climb(int(np.argmax(candidates.score)), candidates, raw_parents, els.tags)
    top_score = max(1e-6, float(candidates.score[top]))
    in_top = np.zeros(n, bool)
    in_top[els.first_blocks[top]:els.end_blocks[top]] = True
    best, element = np.zeros(n), owner
    for _ in range(ANCESTOR_LEVELS):
        best = np.maximum(best, candidates.score[element] / top_score)
        element = facts.parents[element]
    columns |= {"rd_in_top": in_top,
                "rd_in_article": article_blocks(doc, top, candidates, raw_parents, chars, link_density, removed),
                "rd_ancestor_best": best, "rd_parent_score": candidates.score[facts.parents[owner]] / top_score,
                "rd_top_share": np.full(n, chars[top] / max(1.0, float(chars[0])))}
    return F.Columns.of({k: columns[k] for k in NAMES}, n)
