"""Page-level signals of a whole page: what the page-type classifier reads.

One function, :func:`page_signals`, computes them for training and for inference alike, from
facts the core already computes: the blocks' counts (:attr:`Document.numbers`), the element
tags, the tree facts (id/class tokens, sibling repetition), the head's JSON-LD and OpenGraph
types, the ``generator`` meta tag, the URL's path and a few text cues (prices, replies). It
returns

* ``row``: one float per name of :data:`PAGE_FEATURES` (the tree model's layout), and
* ``words``: the page's words, each prefixed by where it was seen (``u:`` the URL's path,
  ``t:`` the title, ``h:`` a heading, ``c:`` an id or class token, ``j:`` a declared JSON-LD
  or OpenGraph type), for the bag-of-words model.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit

from .. import _core
from .._lazy import LazyModule
from ..document.blocks import Document
from .head import page_types
from .tree import tree_facts

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays

# Element tags counted on the page (log of one plus the count).
COUNTED_TAGS = ("a", "p", "form", "input", "button", "select", "option", "textarea", "label", "table", "tr",
                "li", "ul", "ol", "dl", "pre", "code", "article", "nav", "aside", "header", "footer", "main",
                "section", "time", "img", "figure", "video", "iframe", "blockquote", "h1", "h2", "h3", "h4",
                "span", "svg", "address", "details", "kbd", "var", "samp", "dt", "dd")
# Tags that delimit blocks, by the share of blocks they delimit.
BLOCK_TAG_SHARES = ("p", "li", "td", "th", "div", "pre", "dd", "dt", "blockquote", "a", "span")
# id/class tokens: how many elements carry each (log of one plus the count).
CUE_TOKENS = tuple(sorted(set(
    "comment comments reply replies post posts thread threads topic topics forum message messages author user "
    "username avatar vote votes answer answers question questions accepted signature quote "
    "price prices cart basket buy product products sku stock rating ratings review reviews quantity qty "
    "checkout shop variant variants swatch gallery add wishlist "
    "card cards grid tile tiles teaser teasers list listing listings item items result results search filter "
    "filters facet pagination pager category categories archive collection "
    "toc docs doc documentation sidebar api code highlight syntax hljs sphinx version edit "
    "article entry byline date published meta tag tags share related single "
    "hero cta testimonial testimonials pricing contact service services feature features team faq "
    "plan plans banner job jobs event events location map".split())))
# JSON-LD @type and og:type values (lower-cased) that each get a flag.
DECLARED_TYPES = ("article", "newsarticle", "blogposting", "techarticle", "scholarlyarticle", "report",
                  "product", "productgroup", "offer", "aggregateoffer", "aggregaterating", "review",
                  "discussionforumposting", "socialmediaposting", "qapage", "question", "answer", "comment",
                  "faqpage", "howto", "recipe", "collectionpage", "itemlist", "searchresultspage", "website",
                  "webpage", "aboutpage", "contactpage", "profilepage", "organization", "localbusiness",
                  "corporation", "service", "professionalservice", "breadcrumblist", "event", "jobposting",
                  "softwareapplication", "softwaresourcecode", "videoobject", "person", "place", "book",
                  "course", "medicalwebpage", "apireference")
# Words of the URL's path that each get a flag.
URL_TOKENS = tuple(sorted(set(
    "blog blogs news article articles post posts story stories a p t en "
    "forum forums thread threads topic topics community discuss discussion discussions questions question "
    "board boards viewtopic showthread r comments answers "
    "product products shop store item items dp buy sku collections collection catalog "
    "category categories c tag tags search list lists archive archives browse page "
    "docs doc documentation api reference guide guides manual wiki learn tutorial tutorials help support kb "
    "latest stable v1 v2 html htm php aspx md "
    "services service about contact pricing solutions solution company team careers features index home "
    "events jobs people".split())))
# Generators named in a ``generator`` meta tag (lower-cased substrings).
GENERATORS = ("wordpress", "drupal", "joomla", "discourse", "phpbb", "vbulletin", "xenforo", "invision",
              "mybb", "smf", "sphinx", "docusaurus", "mkdocs", "hugo", "jekyll", "gatsby", "next.js", "ghost",
              "shopify", "woocommerce", "magento", "prestashop", "wix", "squarespace", "webflow", "hubspot",
              "mediawiki", "vitepress", "gitbook", "readthedocs")
_WORD = re.compile(r"[a-z0-9]+")
_ANY_WORD = re.compile(r"[^\W_]+")
_YEAR = re.compile(r"(?:^|/)(?:19|20)\d\d(?:/|$)")
_NUMBER_SEGMENT = re.compile(r"(?:^|[/\-_.])\d{4,}(?:$|[/\-_.])")
# Text cues, counted over the page's text (lower-cased) by the core (:func:`text_cue_counts`).
# Each is a pattern that Python's ``re`` and the core's regex engine read alike
# (``crates/core/src/features/cues.rs`` says where their classes differ). Python's whitespace is
# spelled ``[\s\x1c-\x1f]``: the core's ``\s`` lacks those four separators.
TEXT_CUES = (
    ("price", r"(?:[$€£¥₹][\s\x1c-\x1f]?\d|\d(?:[.,]\d\d)?[\s\x1c-\x1f]?(?:€|eur|usd|gbp|kr|zł)\b)"),
    ("cart", r"\b(?:add to (?:cart|bag|basket)|buy now|in stock|out of stock|add to wishlist|"
          r"free shipping|sku)\b"),
    ("reply", r"\b(?:reply|replies|quote|posted|joined|member|members|moderator|views|"
          r"upvotes?|votes?|answered|asked|permalink|thread)\b"),
    ("time_ago", r"\b\d+[\s\x1c-\x1f]+(?:minutes?|hours?|days?|weeks?|months?|years?)[\s\x1c-\x1f]+ago\b"),
    ("read_more", r"\b(?:read more|continue reading|learn more|view all|see all|show more)\b"),
    ("byline", r"\b(?:by|written by|posted by|published|updated)\b"),
    ("docs", r"\b(?:parameters|returns|example|examples|syntax|install|installation|"
          r"configuration|deprecated|note|warning|arguments?)\b"),
    ("service", r"\b(?:contact us|get a quote|our services|our team|book (?:a|an|now)|"
          r"free consultation|call us|request a|get started|testimonials?)\b"),
    ("date", r"\b(?:19|20)\d\d[-/.]\d\d?[-/.]\d\d?\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
          r"nov|dec)[a-z]*\.? \d\d?,? (?:19|20)\d\d\b"),
)
# Groups of the flags above, each flag of a group read as one (a group is seen on more pages
# than any of its members): (name, URL words, declared types, generators, id/class tokens).
GROUPS = (
    ("article", "blog blogs news article articles post posts story stories",
     "article newsarticle blogposting techarticle scholarlyarticle report", "wordpress ghost",
     "byline published entry"),
    ("forum", "forum forums thread threads topic topics community discuss discussion discussions questions question "
     "board boards viewtopic showthread r comments answers t",
     "discussionforumposting socialmediaposting qapage question answer comment",
     "discourse phpbb vbulletin xenforo invision mybb smf",
     "thread threads topic topics forum username avatar vote votes answer answers accepted signature quote "
     "reply replies"),
    ("product", "product products shop store item items dp buy sku p",
     "product productgroup offer aggregateoffer aggregaterating review", "shopify woocommerce magento prestashop",
     "price prices cart basket buy sku stock quantity qty checkout variant variants swatch wishlist"),
    ("listing", "category categories c tag tags search list lists archive archives browse page collections "
     "collection catalog", "collectionpage itemlist searchresultspage", "",
     "card cards grid tile tiles teaser teasers listing listings result results filter filters facet pagination pager "
     "archive collection"),
    ("docs", "docs doc documentation api reference guide guides manual wiki learn tutorial tutorials help support kb "
     "latest stable v1 v2 md", "techarticle apireference softwaresourcecode howto",
     "sphinx docusaurus mkdocs mediawiki vitepress gitbook readthedocs hugo",
     "toc docs doc documentation api code highlight syntax hljs sphinx version edit"),
    ("service", "services service about contact pricing solutions solution company team careers features home",
     "organization localbusiness corporation service professionalservice aboutpage contactpage",
     "wix squarespace webflow hubspot", "hero cta testimonial testimonials pricing contact service services feature "
     "features team faq plan plans banner"),
)
# Characters of text the cues read (the start of the page: enough to see what it is).
TEXT_CUE_CHARS = 200_000


def _names() -> tuple[str, ...]:
    names = ["blocks", "chars", "words", "elements", "link_density", "linked_block_share", "linked_char_share",
             "words_per_block", "median_block_words", "short_block_share", "long_block_char_share",
             "longest_block_words", "top1_char_share", "top5_char_share", "headings", "heading_share",
             "words_per_heading", "max_repeat", "repeated_elements", "repeated_char_share",
             "repeated_block_share", "hidden_share", "title_words", "json_ld_objects", "declared_types",
             "url_depth", "url_year", "url_number", "url_query", "url_slug_words", "url_root", "url_segment_chars"]
    names += [f"tag_{t}" for t in COUNTED_TAGS]
    names += [f"block_tag_{t}" for t in BLOCK_TAG_SHARES]
    names += [f"cue_{t}" for t in CUE_TOKENS]
    names += [f"type_{t}" for t in DECLARED_TYPES]
    names += [f"url_{t}" for t in URL_TOKENS]
    names += [f"generator_{g}" for g in GENERATORS]
    for group, *_ in GROUPS:
        names += [f"group_url_{group}", f"group_type_{group}", f"group_generator_{group}", f"group_cue_{group}"]
    names += [f"text_{name}" for name, _ in TEXT_CUES]
    names += [f"text_{name}_per_kword" for name, _ in TEXT_CUES]
    return tuple(names)


PAGE_FEATURES: tuple[str, ...] = _names()


def _log(value: float) -> float:
    return math.log1p(max(0.0, value))


def _url_features(url: str | None) -> dict[str, float]:
    try:
        parts = urlsplit(url or "")
    except ValueError:
        parts = urlsplit("")
    path = parts.path.lower()
    segments = [s for s in path.split("/") if s]
    words = set(_WORD.findall(path))
    last = segments[-1] if segments else ""
    out = {"url_depth": float(len(segments)), "url_year": float(bool(_YEAR.search(path))),
           "url_number": float(bool(_NUMBER_SEGMENT.search(path))), "url_query": float(bool(parts.query)),
           "url_slug_words": float(len(_WORD.findall(last))), "url_root": float(not segments),
           "url_segment_chars": float(len(last))}
    out.update({f"url_{t}": float(t in words) for t in URL_TOKENS})
    return out


class PageSignals(NamedTuple):
    """A page's signals: its feature row and its prefixed words."""

    row: np.ndarray  # float64, one value per name of PAGE_FEATURES
    words: frozenset[str]


def _token_counts(doc: Document) -> tuple[Counter, np.ndarray, np.ndarray, float]:
    """Elements per id/class token (lower-cased), each element's count of same siblings, its
    parent, and the share of elements hidden."""
    facts = tree_facts(doc)
    # Elements per distinct id or class value: the slots number tokens_of's keys in order.
    values = list(facts.tokens_of)
    held = np.bincount(np.concatenate([facts.id_slot, facts.class_slot]), minlength=len(values))
    tokens: Counter = Counter()
    for slot in np.flatnonzero(held).tolist():
        value = values[slot]
        if value:
            count = int(held[slot])
            for token in {t.lower() for t in facts.tokens_of[value]}:
                tokens[token] += count
    hidden = float(np.mean(facts.hidden)) if len(facts.hidden) else 0.0
    return tokens, np.asarray(facts.same_sibling_count), np.asarray(facts.parents), hidden


@lru_cache(maxsize=1)
def _text_cues() -> _core.TextCues:
    return _core.TextCues([pattern for _, pattern in TEXT_CUES])


def text_cue_counts(text: str) -> list[int]:
    """Per cue of :data:`TEXT_CUES`, its non-overlapping matches in ``text``."""
    return _text_cues().counts(text)


def _words(doc: Document, tokens: Counter, declared: set[str]) -> frozenset[str]:
    try:
        path = urlsplit(doc.url or "").path.lower()
    except ValueError:
        path = ""
    words = {f"u:{w}" for w in _ANY_WORD.findall(path)}
    words.update(f"t:{w}" for w in _ANY_WORD.findall(doc.title.lower()))
    words.update(f"c:{t}" for t in tokens)
    for block in doc.blocks:
        if block.is_heading:
            words.update(f"h:{w}" for w in _ANY_WORD.findall(block.text.lower()))
    words.update(f"j:{t}" for t in declared)
    return frozenset(words)


def page_signals(doc: Document) -> PageSignals:
    """The page's row of :data:`PAGE_FEATURES` and its prefixed words."""
    numbers = doc.numbers
    chars, words, links = numbers.chars, numbers.words, numbers.link_chars
    n_blocks = len(chars)
    total_chars, total_words = float(chars.sum()), float(words.sum())
    density = numbers.link_density
    linked = density > 0.5
    tags = Counter(doc.elements.tags)
    block_tags = Counter(b.tag for b in doc.blocks)
    tokens, same, parents, hidden = _token_counts(doc)
    repeated = same >= 3
    element = numbers.element.astype(np.int64)
    if n_blocks and len(same):
        in_repeat = repeated[element] | repeated[np.clip(parents[element], 0, len(same) - 1)]
    else:
        in_repeat = np.zeros(n_blocks, bool)
    ordered = np.sort(chars)[::-1]
    declared = page_types(doc)
    generator = doc.meta_content("generator").lower()
    text = " ".join(b.text for b in doc.blocks).lower()[:TEXT_CUE_CHARS]
    kwords = max(1.0, total_words / 1000.0)
    f: dict[str, float] = {
        "blocks": _log(n_blocks), "chars": _log(total_chars), "words": _log(total_words),
        "elements": _log(len(doc.elements)),
        "link_density": float(links.sum()) / total_chars if total_chars else 0.0,
        "linked_block_share": float(linked.mean()) if n_blocks else 0.0,
        "linked_char_share": float(chars[linked].sum()) / total_chars if total_chars else 0.0,
        "words_per_block": total_words / n_blocks if n_blocks else 0.0,
        "median_block_words": float(np.median(words)) if n_blocks else 0.0,
        "short_block_share": float((words < 5).mean()) if n_blocks else 0.0,
        "long_block_char_share": float(chars[words >= 50].sum()) / total_chars if total_chars else 0.0,
        "longest_block_words": _log(float(words.max()) if n_blocks else 0.0),
        "top1_char_share": float(ordered[:1].sum()) / total_chars if total_chars else 0.0,
        "top5_char_share": float(ordered[:5].sum()) / total_chars if total_chars else 0.0,
        "headings": _log(float(numbers.is_heading.sum())),
        "heading_share": float(numbers.is_heading.mean()) if n_blocks else 0.0,
        "words_per_heading": total_words / max(1.0, float(numbers.is_heading.sum())),
        "max_repeat": _log(float(same.max()) if len(same) else 0.0),
        "repeated_elements": _log(float(repeated.sum())),
        "repeated_char_share": float(chars[in_repeat].sum()) / total_chars if total_chars else 0.0,
        "repeated_block_share": float(in_repeat.mean()) if n_blocks else 0.0,
        "hidden_share": hidden, "title_words": float(len(doc.title.split())),
        "json_ld_objects": _log(len(doc.json_ld_objects())), "declared_types": float(len(declared)),
    }
    f.update(_url_features(doc.url))
    f.update({f"tag_{t}": _log(tags.get(t, 0)) for t in COUNTED_TAGS})
    f.update({f"block_tag_{t}": block_tags.get(t, 0) / n_blocks if n_blocks else 0.0 for t in BLOCK_TAG_SHARES})
    f.update({f"cue_{t}": _log(tokens.get(t, 0)) for t in CUE_TOKENS})
    f.update({f"type_{t}": float(t in declared or f"og:{t}" in declared) for t in DECLARED_TYPES})
    f.update({f"generator_{g}": float(g in generator) for g in GENERATORS})
    words_in_url = {t for t in URL_TOKENS if f[f"url_{t}"]}
    for group, urls, types, generators, cues in GROUPS:
        f[f"group_url_{group}"] = float(len(words_in_url & set(urls.split())))
        f[f"group_type_{group}"] = float(len(declared & set(types.split())))
        f[f"group_generator_{group}"] = float(any(g in generator for g in generators.split()))
        f[f"group_cue_{group}"] = _log(sum(tokens.get(t, 0) for t in set(cues.split())))
    for (name, _), count in zip(TEXT_CUES, text_cue_counts(text)):
        f[f"text_{name}"] = _log(count)
        f[f"text_{name}_per_kword"] = count / kwords
    row = np.fromiter((f[name] for name in PAGE_FEATURES), np.float64, count=len(PAGE_FEATURES))
    return PageSignals(row, _words(doc, tokens, declared))
