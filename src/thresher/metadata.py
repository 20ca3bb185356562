"""Page metadata: title, author, publication date, site name and friends.

Everything is read from the already-built :class:`~thresher.blocks.Document`
(head meta pairs, JSON-LD objects, element columns and blocks); the page is
never parsed again. Each field takes the first usable value of its sources:

* **title**: the page's ``<h1>`` when it agrees with a declared title (word
  overlap of at least :data:`H1_MIN_SIMILARITY`, or equal to the first
  segment of one), else ``og:title``, ``twitter:title``, the JSON-LD
  ``headline``/``name`` of the main Article-like object, then ``<title>``.
  Site-name segments (" | Site", " - Site", " — Site") are removed when
  they name the site (site names, host labels, acronyms) or are short.
* **author**: JSON-LD ``author``/``creator`` (string, object, ``@id``
  reference or list, joined with ", "), ``author``/``article:author``/
  ``parsely-author``/``dc.creator``-style meta, a "Written by" Twitter card
  label, then bylines near the headline: ``rel=author`` links,
  ``itemprop=author``, author/byline class tokens, links to author pages and
  "By ..." lines. Values are cleaned of "By", trailing dates and roles.
* **date** (publication): JSON-LD ``datePublished``, publication-date meta,
  then ``itemprop=datePublished``, ``<time>`` and dates written near the
  headline, as ISO ``YYYY-MM-DD``. ``htmldate`` is an opt-in fallback
  (``use_htmldate=True`` with the decoded ``html``): it parses the page again
  with lxml, about 10 ms a page against well under 1 ms for all of this.
* **site_name**: ``og:site_name``, ``application-name``, JSON-LD
  ``publisher.name`` / ``WebSite`` name, else the URL host without "www.".
* **language**: the caller's, else ``<html lang>``, else declared meta.
* **description**, **url** (``og:url``, canonical link, else the document's),
  **image**, **tags** (``article:tag``, keywords) and **page_type** (the main
  JSON-LD object's ``@type``, else ``og:type``).

In-page cues are only looked for within :data:`CUE_WINDOW` blocks of the
first h1: further away, a name or date belongs to a comment, a teaser or a
sidebar far more often than to the page.
"""
from __future__ import annotations

import html as _html
import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass
from datetime import date as _date, datetime, timezone
from functools import cache, partial
from typing import Callable, Iterable, Iterator, NamedTuple
from urllib.parse import urlsplit

from .blocks import Document


@dataclass(frozen=True)
class Metadata:
    """Facts about a page; every field is "" (or ``()``) when unknown."""

    title: str = ""
    author: str = ""
    date: str = ""  # publication date, ISO YYYY-MM-DD
    site_name: str = ""
    language: str = ""
    url: str = ""
    description: str = ""
    image: str = ""
    tags: tuple[str, ...] = ()
    page_type: str = ""  # raw JSON-LD @type of the main object, else og:type


# ------------------------------------------------------------------ limits

MAX_AUTHOR_CHARS = 100  # a longer "name" is prose
MAX_AUTHORS = 20  # names kept from a declared author list
MAX_BYLINE_WORDS = 10  # a byline read off the page with more words is prose
MAX_TAGS = 20
MAX_TITLE_SUFFIX_WORDS = 4  # a suffix this short is taken for a site name
H1_MIN_SIMILARITY = 0.4  # word-set Jaccard between an h1 and a declared title
MAX_H1_CANDIDATES = 3
# In-page bylines and dates are looked for this many blocks before / after the first h1
# (from the top of the page when there is none): further away they belong to other items.
CUE_WINDOW = (5, 20)
MAX_CUES = 12  # in-page cues tried per field, strongest first
MAX_CUE_ELEMENTS = 2000  # descendants and ...
MAX_CUE_BLOCKS = 4  # ... blocks read for one cue's text
MAX_DATE_LINE_CHARS = 120  # longer blocks are prose; a date in them is not the page's
MIN_YEAR, MAX_YEAR = 1990, 2100

# -------------------------------------------------------------- vocabularies

_ARTICLE_TYPES = frozenset(t.lower() for t in (
    "Article NewsArticle BlogPosting SocialMediaPosting DiscussionForumPosting LiveBlogPosting "
    "ReportageNewsArticle AnalysisNewsArticle OpinionNewsArticle ReviewNewsArticle "
    "BackgroundNewsArticle AskPublicNewsArticle SatiricalArticle TechArticle ScholarlyArticle "
    "MedicalScholarlyArticle Report APIReference AdvertiserContentArticle Review CriticReview "
    "UserReview EmployerReview Recipe HowTo Question Answer Guide Thesis Chapter Legislation "
    "PodcastEpisode Episode Clip Course Event JobPosting Book Movie CreativeWork").split())
# Types that describe the site or page furniture, never the main content.
_FURNITURE_TYPES = frozenset(t.lower() for t in (
    "WebSite Organization Corporation NewsMediaOrganization EducationalOrganization "
    "LocalBusiness Person BreadcrumbList ListItem ImageObject SearchAction EntryPoint "
    "SiteNavigationElement WPHeader WPFooter WPSideBar PostalAddress Place GeoCoordinates "
    "ContactPoint Brand Offer AggregateOffer AggregateRating Rating ReadAction "
    "Country VideoObject Thing").split())

_AUTHOR_META = ("author", "article:author", "parsely-author", "dc.creator", "dc:creator",
                "dcterms.creator", "dcterms:creator",
                "sailthru.author", "byl", "citation_author", "dc.contributor")
_DATE_META = ("article:published_time", "og:published_time", "og:article:published_time",
              "datepublished", "published_time", "article.published", "parsely-pub-date",
              "sailthru.date", "citation_publication_date", "citation_date", "dc.date.issued",
              "dcterms.issued", "dc.date", "dcterms.date", "dcterms.created", "date", "pubdate",
              "publishdate", "publish-date", "publish_date", "article_date_original",
              "originalpublicationdate", "release_date", "dc.date.created", "created")
_SITE_META = ("og:site_name", "application-name", "apple-mobile-web-app-title")
_DESCRIPTION_META = ("og:description", "description", "twitter:description", "dc.description")
_IMAGE_META = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image",
               "twitter:image:src")
_TAG_META = ("article:tag", "keywords", "news_keywords", "parsely-tags")
_AUTHOR_LABELS = frozenset(("written by", "author", "by", "authors"))
_BYLINE_TOKENS = frozenset(("author", "authors", "byline", "byl", "username", "bigusername", "poster"))
# Last part of a class token that marks an author's picture, bio or container, not the name.
_NOT_BYLINE_TOKENS = frozenset((
    "avatar", "image", "img", "photo", "pic", "picture", "bio", "description", "desc", "box",
    "about", "label", "title", "social", "follow", "more", "list", "wrapper", "wrap", "posts",
    "icon", "section", "card", "headshot", "container", "block", "area", "details", "content",
    "comment", "comments", "reply", "say", "says"))
_TOKEN_PARTS = re.compile(r"[-_]+")
_AUTHOR_PATH = re.compile(r"/(?:authors?|writers?|contributors?|columnists?|byline|journalists?)/[^/?#]",
                          re.IGNORECASE)
_BY_LINE = re.compile(r"(?:(?:written|posted|published)\s+)?by\s*[:\s]\s*\w|(?-i:By[A-Z][a-z])",
                      re.IGNORECASE)
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
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
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
_SEPARATOR_CHARS = " |-–—:·•»/\\"
_TITLE_SEPARATORS = re.compile(r"\s+(?:[|\-–—:·•»/\\]|::)\s+")
_URLISH = re.compile(r"^(?:https?:)?//|^www\.|\.\w{2,}/", re.IGNORECASE)
_MONTHS = {name: number for number, name in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}
_TEXT_DATES = (
    (re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)"), "ymd"),
    (re.compile(r"\b(" + _MONTH + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)",
                re.IGNORECASE), "mdy"),
    (re.compile(r"(?<!\d)(\d{1,2})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?(" + _MONTH + r")\.?,?\s+(\d{4})(?!\d)",
                re.IGNORECASE), "dmy"),
    (re.compile(r"(?<!\d)(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?!\d)"), "aby"),
)
_COMPACT_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T|$)")
_EPOCH = re.compile(r"^\d{10}(?:\d{3})?$")
_FOUR_DIGITS = re.compile(r"\d{4}")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


# ------------------------------------------------------------------ helpers

def _unescape(text: str) -> str:
    """Character references left in values (double-escaped pages, JSON-LD) resolved."""
    return _html.unescape(text) if "&" in text else text


def _clean(text: object) -> str:
    """A string value unescaped and whitespace-collapsed; anything else is ""."""
    return " ".join(_unescape(text).split()) if isinstance(text, str) else ""


def _norm(text: str) -> str:
    """Comparison key: NFKC, case-folded, whitespace-collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def _first(values: Iterable[str]) -> str:
    for value in values:
        if value:
            return value
    return ""


def _types(obj: dict) -> tuple[str, ...]:
    raw = obj.get("@type")
    if isinstance(raw, str):
        return (raw,)
    if isinstance(raw, list):
        return tuple(t for t in raw if isinstance(t, str))
    return ()


def _type_key(type_name: str) -> str:
    return type_name.rsplit("/", 1)[-1].rsplit(":", 1)[-1].lower()


def _is_article(obj: dict) -> bool:
    return any(_type_key(t) in _ARTICLE_TYPES or _type_key(t).endswith(("article", "posting"))
               for t in _types(obj))


def _is_furniture(obj: dict) -> bool:
    types = _types(obj)
    return not types or all(_type_key(t) in _FURNITURE_TYPES for t in types)


def _is_website(obj: dict) -> bool:
    return any(_type_key(t) == "website" for t in _types(obj))


def _looks_like_url(text: str) -> bool:
    return bool(_URLISH.search(text))


MetaIndex = dict  # meta key token -> tuple of non-empty cleaned contents, in page order


def _index_meta(doc: Document) -> MetaIndex:
    """The head's meta pairs by key; a space-separated key ("dc:creator og:x") counts for each."""
    index: dict[str, list[str]] = {}
    for key, value in doc.meta:
        value = _clean(value)
        if value:
            for token in key.split():
                index.setdefault(token, []).append(value)
    return {key: tuple(values) for key, values in index.items()}


def _meta_values(meta: MetaIndex, name: str) -> tuple[str, ...]:
    """Every non-empty content of the named meta tags, in document order."""
    return meta.get(name, ())


def _meta_first(meta: MetaIndex, names: Iterable[str]) -> str:
    """The content of the first name (in priority order) that the page has."""
    for name in names:
        values = meta.get(name)
        if values:
            return values[0]
    return ""


# ------------------------------------------------------------------ JSON-LD

@dataclass(frozen=True)
class _LinkedData:
    """The page's JSON-LD objects, an ``@id`` index and the main object."""

    objects: tuple[dict, ...]
    by_id: dict
    main: dict | None

    def resolve(self, value: object) -> object:
        """Follow an ``{"@id": ...}`` reference to the full object when the page has it."""
        if isinstance(value, dict) and "@id" in value and len(value) <= 2:
            return self.by_id.get(value["@id"], value)
        return value

    def articles(self) -> Iterator[dict]:
        return (obj for obj in self.objects if _is_article(obj))


def _linked_data(doc: Document) -> _LinkedData:
    objects = tuple(_with_main_entities(doc.json_ld_objects()))
    by_id = {obj["@id"]: obj for obj in objects
             if isinstance(obj.get("@id"), str) and len(obj) > 1 and "@type" in obj}
    main = _first_of(obj for obj in objects if _is_article(obj))
    if main is None:
        main = _first_of(obj for obj in objects if not _is_furniture(obj))
    return _LinkedData(objects, by_id, main)


def _with_main_entities(objects: list[dict]) -> Iterator[dict]:
    """The objects, each followed by its single nested ``mainEntity`` (QAPage, WebPage, ...).

    A list of main entities (an FAQ's questions) describes parts, not the page.
    """
    for obj in objects:
        yield obj
        nested = obj.get("mainEntity")
        if isinstance(nested, dict) and "@type" in nested:
            yield nested


def _first_of(items: Iterable[dict]) -> dict | None:
    return next(iter(items), None)


def _ld_text(value: object) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    if isinstance(value, dict):
        value = value.get("@value") or value.get("name") or ""
    return _clean(value)


def _ld_names(ld: _LinkedData, value: object) -> list[str]:
    """Names out of a JSON-LD person value: string, object, reference or list of them."""
    items = value[:MAX_AUTHORS] if isinstance(value, list) else [value]
    names: list[str] = []
    for item in items:
        item = ld.resolve(item)
        name = _clean(item.get("name")) if isinstance(item, dict) else _clean(item)
        if isinstance(item, dict) and not name:
            name = _clean(" ".join(str(item.get(k) or "") for k in ("givenName", "familyName")))
        names.append(name)
    return names


# --------------------------------------------------------------- page cues

class _Cue(NamedTuple):
    """One piece of in-page evidence: a lower rank is stronger evidence."""

    rank: int
    element: int
    value: str = ""  # the attribute value when the cue carries one (content, datetime)


class _Scan(NamedTuple):
    """The cues found in the blocks ``[block_from, block_to)`` around the headline."""

    authors: tuple[_Cue, ...]
    dates: tuple[_Cue, ...]
    block_from: int
    block_to: int


# Author cue ranks.
_REL_AUTHOR, _ITEMPROP_AUTHOR, _BYLINE_CLASS, _AUTHOR_LINK, _BY_TEXT = range(5)
# Date cue ranks.
_ITEMPROP_DATE, _TIME_ELEMENT = range(2)


def _scan_page(doc: Document) -> _Scan:
    """One pass over the element columns collecting byline and date cues."""
    tags, attrs, first_blocks = doc.elements.tags, doc.elements.attrs, doc.elements.first_blocks
    block_from, block_to = _headline_range(doc, CUE_WINDOW)
    start, end = bisect_left(first_blocks, block_from), bisect_left(first_blocks, block_to)
    authors: list[_Cue] = []
    dates: list[_Cue] = []
    for index in range(start, end):
        element_attrs = attrs[index]
        if not element_attrs:
            continue
        itemprop = element_attrs.get("itemprop")
        if itemprop:
            _itemprop_cue(index, itemprop.lower(), element_attrs, authors, dates)
        tag = tags[index]
        if tag == "a":
            _link_cue(index, element_attrs, authors)
        elif tag == "time":
            dates.append(_Cue(_TIME_ELEMENT, index, element_attrs.get("datetime") or ""))
        if _is_byline_class(element_attrs.get("class")):
            authors.append(_Cue(_BYLINE_CLASS, index))
    authors.extend(_Cue(_BY_TEXT, block.element, block.text)
                   for block in doc.blocks[block_from:block_to] if _is_by_line(block.text))
    return _Scan(tuple(sorted(authors)), tuple(sorted(dates)), block_from, block_to)


def _itemprop_cue(index: int, itemprop: str, attrs: dict, authors: list, dates: list) -> None:
    props = itemprop.split()
    if "author" in props or "creator" in props:
        authors.append(_Cue(_ITEMPROP_AUTHOR, index, attrs.get("content") or ""))
    elif "datepublished" in props or "datecreated" in props:
        dates.append(_Cue(_ITEMPROP_DATE, index, attrs.get("content") or attrs.get("datetime") or ""))


def _link_cue(index: int, attrs: dict, authors: list) -> None:
    rel = attrs.get("rel")
    if rel and "author" in rel.lower().split():
        authors.append(_Cue(_REL_AUTHOR, index))
    elif _AUTHOR_PATH.search(attrs.get("href") or ""):
        authors.append(_Cue(_AUTHOR_LINK, index))


def _is_byline_class(classes: str | None) -> bool:
    """A class token naming an author or byline, but not its avatar, bio or box."""
    if not classes:
        return False
    lowered = classes.lower()
    if ("author" not in lowered and "byl" not in lowered and "username" not in lowered
            and "poster" not in lowered):  # cheap test before tokenising
        return False
    for token in lowered.split():
        parts = _TOKEN_PARTS.split(token)
        if (_BYLINE_TOKENS.intersection(parts) or any(p.startswith(("author", "byline")) for p in parts)) \
                and parts[-1] not in _NOT_BYLINE_TOKENS:
            return True
    return False


def _is_by_line(text: str) -> bool:
    return len(text) < MAX_AUTHOR_CHARS and _BY_LINE.match(text) is not None


def _page_authors(doc: Document, scan: _Scan) -> Iterator[str]:
    """Byline texts of the page's author cues, strongest cue first."""
    for cue in scan.authors[:MAX_CUES]:
        if cue.value:
            yield cue.value
        elif cue.rank == _ITEMPROP_AUTHOR:
            yield _itemprop_author(doc, cue.element)
        else:
            yield _byline_text(_element_parts(doc, cue.element))


def _page_dates(doc: Document, scan: _Scan, dayfirst: bool) -> Iterator[str]:
    """ISO dates from itemprop/``<time>`` markup, then dates written near the headline."""
    for cue in scan.dates[:MAX_CUES]:
        if cue.value:
            yield normalize_date(cue.value, dayfirst=dayfirst)
        else:
            yield find_date_in_text(_element_text(doc, cue.element), dayfirst=dayfirst)
    for block in doc.blocks[scan.block_from:scan.block_to]:
        if block.char_count <= MAX_DATE_LINE_CHARS:
            yield find_date_in_text(block.text, dayfirst=dayfirst)


def _headline_block(doc: Document) -> int:
    """Index of the first h1 block, -1 when the page has none."""
    return next(_h1_blocks(doc), -1)


def _headline_range(doc: Document, window: tuple[int, int]) -> tuple[int, int]:
    """Block range from ``window[0]`` blocks before the first h1 to ``window[1]`` after it.

    Without an h1 the range starts at the top of the page.
    """
    h1 = _headline_block(doc)
    if h1 < 0:
        return 0, window[0] + window[1]
    return max(0, h1 - window[0]), h1 + window[1] + 1


def _itemprop_author(doc: Document, element: int) -> str:
    """The ``itemprop=name`` inside an ``itemprop=author`` element, else all its text."""
    attrs = doc.elements.attrs
    for index in range(element + 1, _subtree_end(doc, element)):
        if (attrs[index].get("itemprop") or "").lower() == "name":
            return attrs[index].get("content") or _element_text(doc, index)
    return _element_text(doc, element)


def _subtree_end(doc: Document, element: int) -> int:
    """One past the last descendant of ``element`` (pre-order keeps subtrees contiguous).

    The walk stops after :data:`MAX_CUE_ELEMENTS` descendants: no byline is
    that large, and a hostile page must not make each cue cost the whole page.
    """
    depths = doc.elements.depths
    depth = depths[element]
    end = element + 1
    limit = min(len(depths), element + 1 + MAX_CUE_ELEMENTS)
    while end < limit and depths[end] > depth:
        end += 1
    return end


def _element_parts(doc: Document, element: int) -> list[str]:
    """The non-blank text runs inside ``element``'s subtree, whitespace-collapsed.

    Only the first :data:`MAX_CUE_BLOCKS` blocks are read: a byline or date is short.
    """
    el = doc.elements[element]
    end = _subtree_end(doc, element)
    last = min(el.end_block, el.first_block + MAX_CUE_BLOCKS)
    parts = (_clean(text)
             for block in doc.blocks[el.first_block:last]
             for text, owner in block.spans if element <= owner < end)
    return [part for part in parts if part]


def _element_text(doc: Document, element: int) -> str:
    """Text inside ``element``'s subtree; runs of different elements are space-separated."""
    return " ".join(_element_parts(doc, element))


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


def _find_tags(doc: Document, tag: str) -> Iterator[int]:
    """Indices of the elements with ``tag``, found with C-level tuple scans."""
    tags = doc.elements.tags
    start = 0
    while True:
        try:
            index = tags.index(tag, start)
        except ValueError:
            return
        yield index
        start = index + 1


# ------------------------------------------------------------------- title

def _split_title(title: str) -> list[str]:
    return [part for part in _TITLE_SEPARATORS.split(title) if part.strip()]


def _site_key(text: str) -> str:
    return "".join(ch for ch in _norm(text) if ch.isalnum())


def site_keys(site_names: Iterable[str], host: str = "") -> tuple[str, ...]:
    """Comparison keys of the site's names and of its host's labels (no "www", no TLD)."""
    keys = [_site_key(name) for name in site_names]
    labels = host.lower().split(".")
    keys.extend(label for label in labels[:-1] if label != "www")
    return tuple(dict.fromkeys(key for key in keys if len(key) >= 2))


def _is_site_part(part: str, keys: tuple[str, ...]) -> bool:
    """``part`` names the site: equal to a key, mostly overlapping one, or its acronym."""
    key = _site_key(part)
    if not key:
        return False
    initials = "".join(word[0] for word in _WORD.findall(part.casefold()))
    for name in keys:
        if key == name or (len(initials) >= 3 and initials == name):
            return True
        short, long_ = sorted((key, name), key=len)
        if short in long_ and 2 * len(short) >= len(long_):
            return True
    return False


def strip_site_name(title: str, keys: tuple[str, ...] = (), *, short_suffix: bool = True) -> str:
    """``title`` without its site-name segments.

    Trailing segments after " | ", " - ", " — " (and similar) go while they
    name the site (see :func:`site_keys`); otherwise, with ``short_suffix``,
    one trailing segment of at most :data:`MAX_TITLE_SUFFIX_WORDS` words
    that is shorter than the rest goes. A leading segment goes only when it
    names the site.
    """
    stripped = _strip_site_suffixes(title, keys)
    if stripped == title and short_suffix:
        parts = _split_title(title)
        if len(parts) >= 2 and _short_suffix(title, parts[-1]):
            stripped = _cut_tail(title, parts[-1])
    parts = _split_title(stripped)
    if len(parts) >= 2 and _is_site_part(parts[0], keys):
        stripped = stripped[len(parts[0]):].lstrip(_SEPARATOR_CHARS).strip() or stripped
    return stripped


def _strip_site_suffixes(title: str, keys: tuple[str, ...]) -> str:
    parts = _split_title(title)
    while len(parts) >= 2 and _is_site_part(parts[-1], keys):
        title = _cut_tail(title, parts[-1])
        parts = _split_title(title)
    return title


def _cut_tail(title: str, tail: str) -> str:
    return title[:title.rfind(tail)].rstrip(_SEPARATOR_CHARS).strip() or title


def _short_suffix(title: str, tail: str) -> bool:
    rest = len(title) - len(tail)
    return len(tail.split()) <= MAX_TITLE_SUFFIX_WORDS and len(tail) < rest


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.casefold()))


def _similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' word sets."""
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


def _headline(doc: Document, declared: tuple[str, ...], raw: tuple[str, ...],
              keys: tuple[str, ...]) -> str:
    """The page's visible headline: the h1 (among the first few) that matches a declared title.

    An h1 matches when its words mostly agree with a declared title's
    (:data:`H1_MIN_SIMILARITY`) or when it is the first segment of a raw one.
    """
    leads = {_norm(_split_title(title)[0]) for title in raw if title}
    best, best_score = "", 0.0
    for text in _h1_texts(doc):
        text = strip_site_name(text, keys, short_suffix=False)
        score = max((_similarity(text, title) for title in declared if title), default=0.0)
        if _norm(text) in leads:
            score = max(score, H1_MIN_SIMILARITY)
        if score > best_score:
            best, best_score = text, score
    return best if best_score >= H1_MIN_SIMILARITY else ""


def _h1_blocks(doc: Document) -> Iterator[int]:
    """Indices of the blocks delimited by an h1, in page order (found by C-level tag scans)."""
    blocks, last = doc.blocks, -1
    for element in _find_tags(doc, "h1"):
        el = doc.elements[element]
        for index in range(max(el.first_block, last + 1), el.end_block):
            if blocks[index].tag == "h1":
                last = index
                yield index
                break


def _h1_texts(doc: Document) -> Iterator[str]:
    found = 0
    for index in _h1_blocks(doc):
        text = _clean(doc.blocks[index].text)
        if text:
            yield text
            found += 1
            if found == MAX_H1_CANDIDATES:
                return


def _title(doc: Document, meta: MetaIndex, ld: _LinkedData, keys: tuple[str, ...]) -> str:
    """h1 when it agrees with a declared title, else og:title, twitter:title, JSON-LD, <title>."""
    main = ld.main if ld.main is not None and _is_article(ld.main) else None
    raw = (
        _meta_first(meta, ("og:title",)),
        _meta_first(meta, ("twitter:title",)),
        _ld_text(main.get("headline") or main.get("name")) if main else "",
        _clean(doc.title),
    )
    declared = tuple(strip_site_name(title, keys) for title in raw)
    return _headline(doc, declared, raw, keys) or _first(declared)


# ------------------------------------------------------------------ author

def clean_author(text: str) -> str:
    """A byline reduced to the name(s): no "By", no trailing date or role, "" when implausible."""
    text = _BY_PREFIX.sub("", _clean(text))
    text = _BYLINE_TAIL.split(text, 1)[0]
    text = text.strip(" ,;|-–—:·•/")
    if not _is_plausible_name(text):
        return ""
    return text


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


def _articles_first(ld: _LinkedData) -> list[dict]:
    articles = list(ld.articles())
    return articles + [obj for obj in ld.objects if not _is_article(obj)]


def _labelled_twitter_data(meta: MetaIndex, labels: frozenset[str]) -> str:
    """Slack/Twitter card pairs: ``twitter:label1`` "Written by" + ``twitter:data1`` value."""
    for n in range(1, 5):
        if _meta_first(meta, (f"twitter:label{n}",)).lower() in labels:
            return _meta_first(meta, (f"twitter:data{n}",))
    return ""


# -------------------------------------------------------------------- date

def normalize_date(text: str, *, dayfirst: bool = False) -> str:
    """A declared date value (meta, JSON-LD, ``datetime``) as ISO ``YYYY-MM-DD``, or ""."""
    text = _clean(text)
    if not text:
        return ""
    if _EPOCH.match(text):
        seconds = int(text[:10])
        return _iso(datetime.fromtimestamp(seconds, tz=timezone.utc).date())
    match = _COMPACT_DATE.match(text)
    if match:
        return _ymd(*(int(group) for group in match.groups()))
    return find_date_in_text(text, dayfirst=dayfirst) or _parse_with_dateutil(text, dayfirst)


def find_date_in_text(text: str, *, dayfirst: bool = False) -> str:
    """The first complete date written in ``text`` (ISO, numeric or English month names)."""
    if not _FOUR_DIGITS.search(text):  # every pattern has a four-digit year
        return ""
    best_at, best = len(text) + 1, ""
    for pattern, order in _TEXT_DATES:
        for match in pattern.finditer(text):
            if match.start() >= best_at:
                break
            found = _date_from_match(match, order, dayfirst)
            if found:
                best_at, best = match.start(), found
                break
    return best


def _date_from_match(match: re.Match, order: str, dayfirst: bool) -> str:
    groups = dict(zip(order, match.groups()))
    year = int(groups["y"])
    if "m" in groups and not groups["m"].isdigit():
        return _ymd(year, _MONTHS[groups["m"][:3].lower()], int(groups["d"]))
    if order == "aby":  # numeric day and month, order unknown
        first, second = int(groups["a"]), int(groups["b"])
        if first > 12 or (dayfirst and second <= 12):
            return _ymd(year, second, first)
        return _ymd(year, first, second)
    return _ymd(year, int(groups["m"]), int(groups["d"]))


def _ymd(year: int, month: int, day: int) -> str:
    try:
        return _iso(_date(year, month, day))
    except ValueError:
        return ""


def _iso(value: _date) -> str:
    return value.isoformat() if MIN_YEAR <= value.year <= MAX_YEAR else ""


def _parse_with_dateutil(text: str, dayfirst: bool) -> str:
    """dateutil for the odd declared formats; only tried when a year is written."""
    if not _YEAR.search(text):
        return ""
    from dateutil import parser

    try:
        parsed = parser.parse(text, fuzzy=True, dayfirst=dayfirst, default=datetime(2000, 1, 1))
    except (ValueError, OverflowError, TypeError):
        return ""
    return _iso(parsed.date())


def _publication_date(doc: Document, meta: MetaIndex, ld: _LinkedData,
                      scan: Callable[[], _Scan], dayfirst: bool) -> str:
    declared = (normalize_date(value, dayfirst=dayfirst) for value in _date_candidates(meta, ld))
    return _first(declared) or _first(_page_dates(doc, scan(), dayfirst))


def _date_candidates(meta: MetaIndex, ld: _LinkedData) -> Iterator[str]:
    """Declared publication dates, best source first (JSON-LD, then meta)."""
    articles = list(ld.articles())
    for obj in _articles_first(ld):
        yield _ld_text(obj.get("datePublished"))
    for obj in articles:
        yield _ld_text(obj.get("dateCreated"))
    for name in _DATE_META:
        yield _meta_first(meta, (name,))


def _date_with_htmldate(html: str, url: str | None) -> str:
    """htmldate's answer for the raw page (it parses the HTML again with lxml)."""
    try:
        from htmldate import find_date
    except ImportError:
        from .errors import ThresherError

        raise ThresherError("use_htmldate needs htmldate: pip install 'thresher[dates]'") from None
    try:
        found = find_date(html, url=url, original_date=True, extensive_search=False)
    except Exception:  # htmldate raises assorted errors on hostile input
        return ""
    return normalize_date(found or "")


# ------------------------------------------------------------ other fields

def _site_names(meta: MetaIndex, ld: _LinkedData) -> tuple[str, ...]:
    """Every site name the page declares, best first."""
    names = [_meta_first(meta, (name,)) for name in _SITE_META]
    if ld.main is not None:
        publisher = ld.resolve(ld.main.get("publisher"))
        if isinstance(publisher, dict):
            names.append(_clean(publisher.get("name")))
    names.extend(_clean(obj.get("name")) for obj in ld.objects if _is_website(obj))
    return tuple(dict.fromkeys(name for name in names if name))


def _organisation_names(ld: _LinkedData) -> tuple[str, ...]:
    """Names of JSON-LD organisations: often the site, so title segments naming them go."""
    return tuple(_clean(obj.get("name")) for obj in ld.objects
                 if any(_type_key(t) == "organization" for t in _types(obj)))


def _host(url: str | None) -> str:
    if not url:
        return ""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host[4:] if host.startswith("www.") else host


def _canonical_url(doc: Document, meta: MetaIndex) -> str:
    """og:url, else a canonical link (``canonical`` meta pair from the head, or a body link)."""
    for name in ("og:url", "canonical"):
        declared = _meta_first(meta, (name,))
        if declared.startswith(("http://", "https://")):
            return declared
    attrs = doc.elements.attrs
    for index in _find_tags(doc, "link"):
        rel = (attrs[index].get("rel") or "").lower().split()
        href = _clean(attrs[index].get("href"))
        if "canonical" in rel and href:
            return href
    return doc.url or ""


def _tags(meta: MetaIndex) -> tuple[str, ...]:
    found: dict[str, str] = {}
    for name in _TAG_META:
        for value in _meta_values(meta, name):
            pieces = value.split(",") if name != "article:tag" else [value]
            for piece in pieces:
                piece = _clean(piece)
                if piece and _norm(piece) not in found:
                    found[_norm(piece)] = piece
    return tuple(found.values())[:MAX_TAGS]


def _page_type(meta: MetaIndex, ld: _LinkedData) -> str:
    if ld.main is not None and _types(ld.main):
        return ", ".join(_types(ld.main))
    return _meta_first(meta, ("og:type",))


def _language(doc: Document, meta: MetaIndex, language: str) -> str:
    if language:
        return language
    if doc.lang:
        return doc.lang
    declared = _meta_first(meta, ("content-language", "og:locale", "dc.language"))
    return declared.replace("_", "-").split("-")[0].split(",")[0].strip().lower()


# -------------------------------------------------------------------- entry

def extract_metadata(doc: Document, language: str = "", *, use_htmldate: bool = False,
                     html: str | None = None) -> Metadata:
    """Metadata of ``doc``; ``language`` (ISO 639-1) overrides the page's own.

    With ``use_htmldate`` and the page's ``html`` (the decoded text), htmldate
    supplies the date when the document itself has none. It parses the page a
    second time, so it is off by default.
    """
    meta = _index_meta(doc)
    ld = _linked_data(doc)
    scan = cache(partial(_scan_page, doc))  # scanned on first need only, at most once
    site_names = _site_names(meta, ld)
    keys = site_keys(site_names + _organisation_names(ld), _host(doc.url))
    lang = _language(doc, meta, language)
    date = _publication_date(doc, meta, ld, scan, dayfirst=bool(lang) and lang != "en")
    if not date and use_htmldate and html:
        date = _date_with_htmldate(html, doc.url)
    return Metadata(
        title=_title(doc, meta, ld, keys),
        author=_author(doc, meta, ld, scan),
        date=date,
        site_name=_first(site_names) or _host(doc.url),
        language=lang,
        url=_canonical_url(doc, meta),
        description=_meta_first(meta, _DESCRIPTION_META),
        image=_meta_first(meta, _IMAGE_META),
        tags=_tags(meta),
        page_type=_page_type(meta, ld),
    )
