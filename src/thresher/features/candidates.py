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
lower-cased values, one non-overlapping scan per distinct value (the longest pattern
at each position); ``hid`` counts only as a whole white-space separated word.

The core computes the columns (``crates/core/src/features/candidates.rs``).

What the columns bought, and the variants tried: docs/design-measurements.md.
"""
from __future__ import annotations

from .. import _core, features as F
from ..document.blocks import Document

NAMES: tuple[str, ...] = tuple(_core.CANDIDATE_COLUMNS)


def candidate_columns(doc: Document) -> F.Columns:
    """Readability's view of each block: its paragraph points (log), whether it lies in the
    best candidate and in the article (the best candidate and the siblings that join it), the
    best score among its element and four ancestors and its parent's score (both over the
    best candidate's), and the best candidate's share of the page's text."""
    return F.Columns(NAMES, doc.native.candidate_columns(F.tree_params()))
