"""The author: declared author lists (JSON-LD, meta, card labels), then bylines read near the headline."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from ..document.blocks import Document
from .cues import _ITEMPROP_AUTHOR, MAX_AUTHOR_CHARS, MAX_CUES, _element_parts, _itemprop_author, _Scan
from .sources import (
    _MONTH,
    MAX_AUTHORS,
    MetaIndex,
    _articles_first,
    _clean,
    _first,
    _ld_names,
    _LinkedData,
    _meta_first,
    _meta_values,
)

MAX_BYLINE_WORDS = 10  # a byline read off the page with more words is prose
_AUTHOR_META = ("author", "article:author", "parsely-author", "dc.creator", "dc:creator",
                "dcterms.creator", "dcterms:creator",
                "sailthru.author", "byl", "citation_author", "dc.contributor")
_AUTHOR_LABELS = frozenset(("written by", "author", "by", "authors"))
# "By", "Written by:", "Author:" ... and "ByJane" (runs glued together), but not "Byron".
_BY_PREFIX = re.compile(
    r"^(?:(?:written|posted|published|reviewed|authored|words|story|text|article)\s+)?"
    r"by(?:\s*[:\-]\s*|\s+|$)"
    r"|^(?-i:By(?=[A-Z][a-z]))"
    r"|^(?:authors?|autor(?:in)?|auteur|von|par|door|di|por)\s*:\s*",
    re.IGNORECASE)
# Texts that author/byline-classed elements hold when they are not names.
_UI_WORDS = frozenset((
    "home", "menu", "search", "share", "comment", "comments", "reply", "article", "articles",
    "review", "reviews", "product", "products", "post", "posts", "blog", "news", "more", "read more",
    "login", "log in", "sign in", "sign up", "subscribe", "follow", "contact", "about", "profile",
    "website", "email", "author", "authors", "editor", "staff", "team", "view profile",
    "username", "user", "member"))
_CONNECTOR = re.compile(r"\s*(?:,|&|and|und|et|y|e|og|och|en)?\s*", re.IGNORECASE)
# Where a byline stops being a name: separators, dates, "updated".
_BYLINE_TAIL = re.compile(
    r"\s*(?:[|·•\n]|\s[-–—]\s|\s(?:on|at)(?:\s+(?:\w+day|\d)|$)"
    r"|\b(?:last\s+)?(?:updated|published|posted|modified)\b"
    r"|\b" + _MONTH + r"\.?\s+\d|\d{1,4}[/.-]\d{1,2}|\b\d{1,2}(?:st|nd|rd|th)?,?\s+" + _MONTH +
    r"|\b(?:19|20)\d{2}\b)",
    re.IGNORECASE)
# A job title after a name read off the page ("Ann Lee Staff Writer").
_ROLE_TAIL = re.compile(
    r"\s*\b(?:senior\s+|staff\s+|contributing\s+|guest\s+)?(?:writer|editor|reporter|correspondent"
    r"|founder|contributor|journalist)\b.*",
    re.IGNORECASE)
_NOT_A_NAME = re.compile(
    r"^(?:by|par|von|por|door|written by|posted by|authors?|view .*|read more.*"
    r"|more (?:from|by) .*|about( the)? authors?.*|share\b.*|follow\b.*"
    r"|admin|administrator|unknown|anonymous|guest|[\W\d_]+)$",
    re.IGNORECASE)
_URLISH = re.compile(r"^(?:https?:)?//|^www\.|\.\w{2,}/", re.IGNORECASE)


def clean_author(text: str) -> str:
    """A byline reduced to the name(s): no "By", no trailing date or role, "" when implausible."""
    text = _BY_PREFIX.sub("", _clean(text))
    text = _BYLINE_TAIL.split(text, 1)[0]
    text = text.strip(" ,;|-–—:·•/")
    if not _is_plausible_name(text):
        return ""
    return text


def _looks_like_url(text: str) -> bool:
    return bool(_URLISH.search(text))


def _is_plausible_name(text: str) -> bool:
    return (0 < len(text) < MAX_AUTHOR_CHARS and any(ch.isalpha() for ch in text)
            and not _looks_like_url(text) and not _NOT_A_NAME.match(text))


def _is_plausible_byline(text: str) -> bool:
    """Stricter test for names read off the page: a short capitalised phrase, no UI word."""
    words = text.split()
    return (bool(words) and len(words) <= MAX_BYLINE_WORDS and not text[0].isdigit()
            and not (len(words) > 1 and text[0].islower())
            and text.lower() not in _UI_WORDS and not text.endswith(("?", "!", ":")))


def _author(doc: Document, meta: MetaIndex, ld: _LinkedData, scan: Callable[[], _Scan]) -> str:
    found = _first(_declared_authors(meta, ld))
    if found:
        return found
    on_page = (clean_author(_ROLE_TAIL.sub("", value)) for value in _page_authors(doc, scan()))
    return _first(name for name in on_page if _is_plausible_byline(name))


def _declared_authors(meta: MetaIndex, ld: _LinkedData) -> Iterator[str]:
    """Cleaned author lists from JSON-LD (Article-like objects first), then meta."""
    for obj in _articles_first(ld):
        yield _join_names(_ld_names(ld, obj.get("author") or obj.get("creator")))
    for name in _AUTHOR_META:
        yield _join_names(_meta_values(meta, name))
    yield clean_author(_labelled_twitter_data(meta, _AUTHOR_LABELS))


def _join_names(values: Iterable[str]) -> str:
    """Each value cleaned on its own (so a long list survives), duplicates dropped, ", "-joined."""
    names = dict.fromkeys(name for name in map(clean_author, values) if name)
    return ", ".join(list(names)[:MAX_AUTHORS])


def _labelled_twitter_data(meta: MetaIndex, labels: frozenset[str]) -> str:
    """Slack/Twitter card pairs: ``twitter:label1`` "Written by" + ``twitter:data1`` value."""
    for n in range(1, 5):
        if _meta_first(meta, (f"twitter:label{n}",)).lower() in labels:
            return _meta_first(meta, (f"twitter:data{n}",))
    return ""


def _page_authors(doc: Document, scan: _Scan) -> Iterator[str]:
    """Byline texts of the page's author cues, strongest cue first."""
    for cue in scan.authors[:MAX_CUES]:
        if cue.value:
            yield cue.value
        elif cue.rank == _ITEMPROP_AUTHOR:
            yield _itemprop_author(doc, cue.element)
        else:
            yield _byline_text(_element_parts(doc, cue.element))


def _byline_text(parts: list[str]) -> str:
    """The name runs of a byline: a leading "By" run skipped, names joined by connectors kept.

    ``["By", "Ann", ",", "Bob", "and", "Cy", "Staff writer"]`` gives "Ann , Bob and Cy";
    a role or date in a run of its own after the names is left out.
    """
    kept: list[str] = []
    expect_name = True
    for part in parts:
        if not kept and _BY_PREFIX.fullmatch(part):
            continue
        if _CONNECTOR.fullmatch(part):
            if not kept:
                continue
            kept.append(part)
            expect_name = True
        elif expect_name:
            kept.append(part)
            expect_name = False
        else:
            break
    while kept and _CONNECTOR.fullmatch(kept[-1]):
        kept.pop()
    return " ".join(kept)
