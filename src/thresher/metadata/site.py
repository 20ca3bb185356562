"""The site: its declared names, its host, and the page's canonical URL."""
from __future__ import annotations

from urllib.parse import urlsplit

from ..document.blocks import Document
from .cues import _find_tags
from .sources import MetaIndex, _clean, _is_website, _LinkedData, _meta_first, _type_key, _types

_SITE_META = ("og:site_name", "application-name", "apple-mobile-web-app-title")


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
