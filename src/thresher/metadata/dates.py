"""The publication date: declared dates (JSON-LD, meta), then dates marked up or written near the headline."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date as _date, datetime, timezone

from ..document.blocks import Document
from .cues import MAX_CUES, _element_text, _Scan
from .sources import _MONTH, MetaIndex, _articles_first, _clean, _first, _ld_text, _LinkedData, _meta_first

MAX_DATE_LINE_CHARS = 120  # longer blocks are prose; a date in them is not the page's
MIN_YEAR, MAX_YEAR = 1990, 2100
_DATE_META = ("article:published_time", "og:published_time", "og:article:published_time",
              "datepublished", "published_time", "article.published", "parsely-pub-date",
              "sailthru.date", "citation_publication_date", "citation_date", "dc.date.issued",
              "dcterms.issued", "dc.date", "dcterms.date", "dcterms.created", "date", "pubdate",
              "publishdate", "publish-date", "publish_date", "article_date_original",
              "originalpublicationdate", "release_date", "dc.date.created", "created")
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


def _date_with_htmldate(html: str, url: str | None) -> str:
    """htmldate's answer for the raw page (it parses the HTML again with lxml)."""
    try:
        from htmldate import find_date
    except ImportError:
        from ..errors import ThresherError

        raise ThresherError("use_htmldate needs htmldate: pip install 'thresher[dates]'") from None
    try:
        found = find_date(html, url=url, original_date=True, extensive_search=False)
    except Exception:  # noqa: BLE001 - htmldate raises assorted errors on hostile input
        return ""
    return normalize_date(found or "")
