"""The declared sources every field reads: head meta pairs and JSON-LD objects, and the shared text helpers."""
from __future__ import annotations

import html as _html
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..document.blocks import Document

MAX_AUTHORS = 20  # names kept from a declared author list
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
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_SPACE = re.compile(r"\s+")


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


# Meta key token -> every non-empty cleaned content of that key, in page order.
MetaIndex = Mapping[str, tuple[str, ...]]


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


def _articles_first(ld: _LinkedData) -> list[dict]:
    articles = list(ld.articles())
    return articles + [obj for obj in ld.objects if not _is_article(obj)]
