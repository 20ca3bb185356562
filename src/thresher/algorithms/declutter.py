"""Declutter (2014 write-up "Simple HTML decluttering"): prune, shake, purify.

Three passes over the document's element columns, never over a re-parsed DOM
and never recursively:

1. **prune** (pre-order): an element is dropped with its whole subtree when a
   decision function looking at that element alone says so: script-like and
   furniture tags (``nav``, ``aside``, ``footer``), inline-style-hidden
   elements, boilerplate ARIA roles, and ``id``/``class`` tokens that contain
   a poison word ("comments", "promo", "sidebar", "ad", ...). Tokens are split
   into parts at non-alphanumerics and camelCase humps (hash-like parts with
   inner digits are ignored), and poison words match whole parts (or, for
   :attr:`Params.poison_prefixes`, the start of a part), so "ad" hits
   ``ad-slot``, ``adSlot`` and ``ads`` but never ``header``, ``load``,
   ``shadow``, ``read`` or ``de4e8c2ad6``. Layout/state tokens
   (``has-sidebar``, ``sidebar-collapsed``) never poison, and an element
   with a content-container token (``main``, ``content``, ``article``,
   ``body``) is never pruned for its tokens.
2. **shake** (post-order: the element columns in reverse index order). Every
   surviving element gets ``Words`` (non-link words of its subtree),
   ``LinkWords`` (words under an ``<a>``), ``Tags`` (elements in its subtree)
   and ``Keep`` (a descendant was explicitly kept). At *block tags* only
   (:attr:`Params.block_tags`) the score

       Score = Words - 2 * LinkWords - Tags

   decides: ``>= 0`` sets ``Keep`` (which propagates up and protects every
   ancestor), a negative score removes the subtree unless ``Keep`` is already
   set below it. Counts propagate up as if nothing had been removed, so each
   decision is independent. *Blessed* elements (author/byline-looking
   ``id``/``class``/``itemprop``/``rel``) are checked at every element: they set
   ``Keep`` and protect all their descendants from removal.
3. **purify** is the shared HTML output stage, not part of classification:
   :mod:`thresher.render.html` flattens kept blocks to a whitelist of tags
   and attributes (``ALLOWED_TAGS`` / ``ALLOWED_ATTRIBUTES``).

A block is main content when some of its text lies in an element that is
neither pruned nor removed nor below one that is (so a block whose path from
the root crosses a pruned or shaken element is dropped, and so is a block
whose only text is in a pruned inline element such as ``<span class=share>``).
Reasons name the pass and the element that dropped the block.

What the write-up leaves open (the poison and blessed word lists, the block
tag set, which tags are "script-like") is chosen here and documented on
:class:`Params`; the score weights are the published ones. The lists were
chosen by looking at which prune triggers cost main content: whole-part
matching, layout modifiers, content-container words and dropping the
``hidden`` / ``aria-hidden`` signals each cut the pruning of real content
sharply (docs/design-measurements.md); the write-up's formula is unchanged.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import NamedTuple

from ..document.blocks import Document, hidden_signals
from .base import Algorithm, Classification, Context

# Tags whose content is never article text (the "low-hanging fruit").
SCRIPT_LIKE_TAGS = frozenset(
    "script style noscript template iframe frame frameset object embed applet svg math canvas "
    "video audio map head meta link button input select option optgroup textarea datalist "
    "dialog".split())

# HTML5 elements that only ever hold page furniture.
POISON_TAGS = frozenset("nav aside footer".split())

# id/class parts that mark boilerplate when they equal a whole part.
POISON_WORDS = frozenset(
    "ad ads adv advert adverts advertisement advertisements advertising adsbygoogle adslot adunit "
    "adbox adbanner adsense adwrap adwrapper adzone adcontainer dfp gpt sponsor sponsored sponsors "
    "taboola outbrain comment comments commentlist disqus promo promos popup popups modal "
    "share shares sharing sharebar sidebar sidebars banner banners social socials related "
    "recommended recirculation cookie cookies consent gdpr newsletter subscribe subscription "
    "signup footer nav navbar navigation menu menus breadcrumb breadcrumbs pagination pager "
    "masthead toolbar tagcloud trending popular skip".split())

# id/class parts that mark boilerplate when a part starts with them
# ("sidebarwidget", "socialicons"). Words that also name main content on
# discussion pages ("commentbody", "commentforum") are whole-part matches only.
POISON_PREFIXES = ("advert", "sponsor", "sidebar", "social", "cookie", "newsletter",
                   "breadcrumb", "navbar", "popup", "subscri")

# Parts never poisonous, guarding prefix matches (also when a caller adds
# prefixes such as "comment" or "promo": "commentary" is journalism, Drupal
# marks front-page articles "node--promoted").
POISON_EXCEPTIONS = frozenset("commentary commentaries promoted promotion promotions".split())

# Parts that turn a token into a layout/state modifier ("has-sidebar",
# "no-comments", "sidebar-collapsed", "wsite-not-footer", "under-menu",
# "panel-two-col-sidebar-right"): such tokens describe the page layout or a
# state, not a piece of furniture.
MODIFIER_PARTS = frozenset(
    "has with without no not is enabled disabled collapsed layout inline under "
    "col cols column columns grid".split())

# Parts that mark an element as a content container: an element with one of
# these anywhere in its id/class ("main right-sidebar", "content-sidebar-wrap")
# is not pruned for its tokens (the shake pass still judges it). Readability's
# "maybe a candidate" words, less "column" (a modifier here) and "shadow".
SAFE_PARTS = frozenset("article body content main".split())

# ARIA landmark roles that are boilerplate by definition.
POISON_ROLES = frozenset(
    "navigation complementary contentinfo banner search menu menubar dialog alertdialog "
    "tooltip".split())

# Elements the shake pass decides about: the block-level containers of the
# document model. Headings are left out: they stand or fall with their
# section (measured: making them decision points changes nothing).
BLOCK_TAGS = frozenset(
    "div section article main aside header footer nav p td th table tbody thead tfoot tr "
    "ul ol li dl dd dt form fieldset blockquote figure figcaption center details".split())

# id/class/itemprop/rel parts that bless an element (and its subtree).
BLESSED_WORDS = frozenset(
    "author authors byline bylines dateline writer contributor contributors".split())

# Elements never pruned whatever their tokens say: pages put page-level
# classes on them ("single-post has-sidebar", Drupal's "node--promoted",
# "related" markers on the main <article>).
NEVER_PRUNED = frozenset("html body main article".split())

_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])")
_WORD_PART = re.compile(r"([a-z]+)\d*")


@dataclass(frozen=True)
class Params:
    """Declutter's decision lists and score weights.

    word_weight / link_word_weight / tag_weight: the shake score
        ``Words*1 + LinkWords*(-2) + Tags*(-1)`` (published defaults).
    prune_tags: script-like tags pruned with their subtree.
    poison_tags: HTML5 furniture tags pruned with their subtree.
    poison_words / poison_prefixes / poison_exceptions: id/class parts that
        prune an element (whole-part match / prefix match / never poison).
    modifier_parts: a token with one of these parts is a layout/state
        modifier and never poisons (``has-sidebar``, ``sidebar-collapsed``).
    safe_parts: an element with one of these parts in any id/class token is
        never pruned for its tokens (``class="main right-sidebar"``).
    poison_roles: ARIA roles that prune.
    prune_hidden: prune elements hidden by an inline ``display:none`` /
        ``visibility:hidden`` style (see :func:`is_hidden`).
    never_pruned: tags exempt from pruning.
    block_tags: where the shake pass makes decisions.
    blessed_words: id/class/itemprop/rel parts that bless (author, byline...).
    """

    word_weight: float = 1.0
    link_word_weight: float = -2.0
    tag_weight: float = -1.0
    prune_tags: frozenset[str] = SCRIPT_LIKE_TAGS
    poison_tags: frozenset[str] = POISON_TAGS
    poison_words: frozenset[str] = POISON_WORDS
    poison_prefixes: tuple[str, ...] = POISON_PREFIXES
    poison_exceptions: frozenset[str] = POISON_EXCEPTIONS
    modifier_parts: frozenset[str] = MODIFIER_PARTS
    safe_parts: frozenset[str] = SAFE_PARTS
    poison_roles: frozenset[str] = POISON_ROLES
    prune_hidden: bool = True
    never_pruned: frozenset[str] = NEVER_PRUNED
    block_tags: frozenset[str] = BLOCK_TAGS
    blessed_words: frozenset[str] = BLESSED_WORDS


# ------------------------------------------------------------------ tokens

def token_parts(token: str) -> tuple[str, ...]:
    """Lower-cased word parts of one id/class token.

    The token is split at non-alphanumerics and camelCase humps; trailing
    digits are dropped and parts with inner digits (hashes such as
    ``de4e8c2ad6``) are skipped: ``"adSlot2-top_x9f3"`` -> (ad, slot, top).
    """
    parts = []
    for piece in _SPLIT.split(token):
        match = _WORD_PART.fullmatch(piece.lower())
        if match:
            parts.append(match.group(1))
    return tuple(parts)


def _attr_tokens(attrs: Mapping[str, str], names: Sequence[str]) -> list[str]:
    tokens: list[str] = []
    for name in names:
        value = attrs.get(name)
        if value:
            tokens.extend(value.split())
    return tokens


def _is_poison_part(part: str, p: Params) -> bool:
    if part in p.poison_exceptions:
        return False
    return part in p.poison_words or part.startswith(p.poison_prefixes)


class TokenVerdict(NamedTuple):
    """What one id/class/itemprop/rel token says about its element."""

    poison: str  # the poison word part, "" for none
    safe: bool  # a content-container token (cancels poison on the element)
    blessed: bool


def token_verdict(token: str, p: Params) -> TokenVerdict:
    parts = token_parts(token)
    modifier = any(part in p.modifier_parts for part in parts)
    poison = "" if modifier else next((part for part in parts if _is_poison_part(part, p)), "")
    return TokenVerdict(poison, any(part in p.safe_parts for part in parts),
                        any(part in p.blessed_words for part in parts))


def _verdicts(attrs: Mapping[str, str], names: Sequence[str], p: Params,
              memo: dict[str, TokenVerdict]) -> list[TokenVerdict]:
    """Verdicts of the tokens of ``attrs[names]``; ``memo`` caches them for one page."""
    out = []
    for token in _attr_tokens(attrs, names):
        verdict = memo.get(token)
        if verdict is None:
            verdict = memo[token] = token_verdict(token, p)
        out.append(verdict)
    return out


# ------------------------------------------------------------------ prune

def is_hidden(attrs: Mapping[str, str]) -> bool:
    """An inline ``display:none`` or ``visibility:hidden`` style: the style signal of the core's
    hidden-element rule (:func:`thresher.document.blocks.hidden_signals`).

    The ``hidden`` attribute and ``aria-hidden`` are deliberately not signals:
    pages stream their content into hidden containers (React ``<div hidden
    id="S:1">``), collapse accordions and tabs with them, and hide decorative
    copies of headings from screen readers: pruning them costs more main
    content than boilerplate.
    """
    return "style" in hidden_signals(attrs)


def prune_trigger(tag: str, attrs: Mapping[str, str], p: Params, memo: dict[str, TokenVerdict]) -> str:
    """The prune decision for one element, looking at nothing but the element.

    Returns what triggered it ("tag", "hidden", "role navigation", "class
    sidebar", ...) or "" when the element stays. ``memo`` caches token verdicts
    within one page.
    """
    if tag in p.prune_tags or tag in p.poison_tags:
        return "tag"
    if tag in p.never_pruned or not attrs:
        return ""
    if p.prune_hidden and is_hidden(attrs):
        return "hidden"
    role = (attrs.get("role") or "").strip().lower()
    if role in p.poison_roles:
        return f"role {role}"
    verdicts = _verdicts(attrs, ("id", "class"), p, memo)
    if any(v.safe for v in verdicts):
        return ""
    trigger = next((v.poison for v in verdicts if v.poison), "")
    return f"poison word {trigger!r}" if trigger else ""


def is_blessed(attrs: Mapping[str, str], p: Params, memo: dict[str, TokenVerdict]) -> bool:
    """The heuristic override: does the element look like an author/byline block?"""
    if not attrs:
        return False
    return any(v.blessed for v in _verdicts(attrs, ("id", "class", "itemprop", "rel"), p, memo))


def prune(doc: Document, p: Params, memo: dict[str, TokenVerdict]) -> list[str]:
    """Per element, what prunes it on its own account ("" for nothing)."""
    tags, attrs = doc.elements.tags, doc.elements.attrs
    return [prune_trigger(tags[i], attrs[i], p, memo) for i in range(len(tags))]


def _inherit(flags: Sequence[bool], parents: Sequence[int]) -> list[bool]:
    """``flags`` OR-ed down the tree (pre-order, so parents come first)."""
    out = list(flags)
    for i, parent in enumerate(parents):
        if parent >= 0 and out[parent]:
            out[i] = True
    return out


# ------------------------------------------------------------------ shake

class Shake(NamedTuple):
    """Per-element results of the shake pass."""

    words: list[int]
    link_words: list[int]
    tags: list[int]
    scores: list[float]  # meaningful at decision elements only
    decided: list[bool]  # a block tag outside any pruned subtree
    removed: list[bool]
    blessed: list[bool]  # blessed on its own account


def _own_word_counts(doc: Document, in_link: Sequence[bool]) -> tuple[list[int], list[int]]:
    n = len(doc.elements)
    words, link_words = [0] * n, [0] * n
    for block in doc.blocks:
        for text, element in block.spans:
            count = len(text.split())
            if count:
                if in_link[element]:
                    link_words[element] += count
                else:
                    words[element] += count
    return words, link_words


def shake(doc: Document, p: Params, gone: Sequence[bool], memo: dict[str, TokenVerdict]) -> Shake:
    """The post-order pass; ``gone`` marks elements inside pruned subtrees."""
    els = doc.elements
    n, tags, parents = len(els), els.tags, els.parents
    in_link = _inherit([tag == "a" for tag in tags], parents)
    words, link_words = _own_word_counts(doc, in_link)
    size = [0 if gone[i] else 1 for i in range(n)]
    blessed = [not gone[i] and is_blessed(els.attrs[i], p, memo) for i in range(n)]
    protected = _inherit(blessed, parents)  # Blessed propagates downwards
    keep = list(blessed)  # Keep propagates upwards
    scores = [0.0] * n
    decided = [False] * n
    removed = [False] * n
    for i in range(n - 1, -1, -1):
        if gone[i]:
            continue
        if tags[i] in p.block_tags:
            decided[i] = True
            score = p.word_weight * words[i] + p.link_word_weight * link_words[i] + p.tag_weight * size[i]
            scores[i] = score
            if score >= 0:
                keep[i] = True
            elif not keep[i] and not protected[i]:
                removed[i] = True
        parent = parents[i]
        if parent >= 0:
            words[parent] += words[i]
            link_words[parent] += link_words[i]
            size[parent] += size[i]
            keep[parent] = keep[parent] or keep[i]
    return Shake(words, link_words, size, scores, decided, removed, blessed)


# ------------------------------------------------------------------ labels

def describe(doc: Document, element: int) -> str:
    """``<div id=x class=a b>``, shortened, for reasons."""
    el = doc.elements[element]
    bits = [el.tag]
    if el.id:
        bits.append(f"id={el.id[:30]}")
    if el.classes:
        bits.append("class=" + " ".join(el.classes[:3])[:40])
    return "<" + " ".join(bits) + ">"


def _causes(parents: Sequence[int], flags: Sequence[bool]) -> list[int]:
    """Per element, the outermost flagged element at or above it (-1: none)."""
    cause = [-1] * len(parents)
    for i, parent in enumerate(parents):
        if parent >= 0 and cause[parent] >= 0:
            cause[i] = cause[parent]
        elif flags[i]:
            cause[i] = i
    return cause


def _nearest_decision(parents: Sequence[int], decided: Sequence[bool]) -> list[int]:
    nearest = [-1] * len(parents)
    for i, parent in enumerate(parents):
        nearest[i] = i if decided[i] else (nearest[parent] if parent >= 0 else -1)
    return nearest


def _block_cause(block, cause: Sequence[int]) -> int:
    """-1 when some text of ``block`` lies in a live element, else what dropped its first text."""
    first = -1
    for text, element in block.spans:
        if text and not text.isspace():
            if cause[element] < 0:
                return -1
            if first < 0:
                first = cause[element]
    return first


def run(doc: Document, p: Params, context: Context) -> Classification:
    parents = doc.elements.parents
    memo: dict[str, TokenVerdict] = {}  # for this page only
    triggers = prune(doc, p, memo)
    pruned = [bool(t) for t in triggers]
    shaken = shake(doc, p, _inherit(pruned, parents), memo)
    pruned_at = _causes(parents, pruned)
    removed_at = _causes(parents, shaken.removed)
    # Pruning explains a drop better than a shake decision above it.
    cause = [a if a >= 0 else b for a, b in zip(pruned_at, removed_at)]
    nearest = _nearest_decision(parents, shaken.decided)
    blessed_at = _causes(parents, shaken.blessed)
    name = lru_cache(maxsize=None)(partial(describe, doc))  # many blocks share a cause
    labels, scores, reasons = [], [], []
    for block in doc.blocks:
        dropped_by = _block_cause(block, cause)
        decider = nearest[block.element]
        labels.append(dropped_by < 0)
        scores.append(shaken.scores[decider] if decider >= 0 else 0.0)
        if dropped_by >= 0:
            reasons.append(_drop_reason(name, shaken, triggers, dropped_by))
        else:
            reasons.append(_keep_reason(name, shaken, decider, blessed_at[block.element]))
    return Classification.from_labels(labels, reasons, scores)


def _drop_reason(name: Callable[[int], str], shaken: Shake, triggers: Sequence[str], element: int) -> str:
    if triggers[element]:
        return f"pruned by {name(element)} ({triggers[element]})"
    return f"shaken: score {shaken.scores[element]:g} at {name(element)}"


def _keep_reason(name: Callable[[int], str], shaken: Shake, decider: int, blessed: int) -> str:
    if blessed >= 0:
        return f"kept: blessed by {name(blessed)}"
    if decider < 0:
        return "kept: no block tag above"
    score = shaken.scores[decider]
    why = "" if score >= 0 else ", a descendant is kept"
    return f"kept: score {score:g} at {name(decider)}{why}"


ALGORITHM = Algorithm(
    name="declutter", params_type=Params, run_fn=run, needs_language=False,
    summary="declutter: prune poison-word subtrees, shake out blocks scoring Words - 2*LinkWords - Tags < 0",
    source="Simple HTML decluttering (prune, shake, purify), blog write-up, 24 Oct 2014")
