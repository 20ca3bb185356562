"""Finding pages to extract: RSS and Atom feeds, XML sitemaps and sitemap indexes.

Feeds and sitemaps are parsed with defusedxml (no entity expansion, no external
resources, no DTD tricks), gzipped sitemaps are unpacked under a size cap, and a
sitemap index is walked breadth-first with a queue (no recursion), each sitemap once,
up to :data:`MAX_SITEMAPS` sitemaps and :data:`MAX_URLS` page URLs.
"""
from __future__ import annotations

import gzip
import io
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..errors import ThresherError

MAX_SITEMAPS = 1000
MAX_URLS = 100_000
MAX_UNPACKED_BYTES = 50 * 1024 * 1024  # sitemaps.org's own limit for one sitemap file
_GZIP_MAGIC = b"\x1f\x8b"


class DiscoveryError(ThresherError):
    """A feed or sitemap could not be read."""


@dataclass(frozen=True)
class Sitemap:
    """What one sitemap file lists: page URLs and, for an index, more sitemaps."""

    pages: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()


def local_name(tag: object) -> str:
    """An element's tag without its namespace, lower-cased ("" for comments and the like)."""
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


def parse_xml(content: bytes, what: str) -> Any:
    """``content`` parsed safely; :class:`DiscoveryError` when it is not (safe) XML."""
    import defusedxml
    import defusedxml.ElementTree as safe

    try:
        return safe.fromstring(content)
    except safe.ParseError as exc:
        raise DiscoveryError(f"{what}: not valid XML ({exc})") from None
    except (ValueError, defusedxml.DefusedXmlException) as exc:  # entities, external references, DTDs
        raise DiscoveryError(f"{what}: refused unsafe XML ({type(exc).__name__})") from None


def unpack(content: bytes, what: str, limit: int = MAX_UNPACKED_BYTES) -> bytes:
    """``content`` gunzipped when it is gzip data (by its magic bytes), at most ``limit`` bytes."""
    if not content.startswith(_GZIP_MAGIC):
        return content
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(content)) as stream:
            data = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise DiscoveryError(f"{what}: not valid gzip data ({exc})") from None
    if len(data) > limit:
        raise DiscoveryError(f"{what}: more than {limit:,} bytes unpacked")
    return data


def _absolute(link: str, base: str) -> str:
    link = link.strip()
    if not link:
        return ""
    absolute = urljoin(base, link) if base else link
    return absolute if urlsplit(absolute).scheme in ("http", "https") else ""


def _unique(urls: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(url for url in urls if url))


def _atom_link(element) -> str:
    """An Atom ``<link>``'s target when it points at the entry's page."""
    rel = (element.get("rel") or "alternate").strip().lower()
    return element.get("href") or "" if rel == "alternate" else ""


def feed_links(content: bytes, base_url: str = "") -> tuple[str, ...]:
    """The page URLs of an RSS (0.9x, 1.0, 2.0) or Atom feed, in feed order, each once."""
    root = parse_xml(content, base_url or "feed")
    found: list[str] = []
    for item in root.iter():
        kind = local_name(item.tag)
        if kind not in ("item", "entry"):
            continue
        links = [child for child in item if local_name(child.tag) == "link"]
        candidates = [(_atom_link(link) if link.get("href") is not None else (link.text or "")) for link in links]
        if not any(c.strip() for c in candidates):
            candidates = [child.text or "" for child in item
                          if local_name(child.tag) == "guid" and child.get("isPermaLink", "true") != "false"]
        if not any(c.strip() for c in candidates) and kind == "item":
            candidates = [item.get("{http://www.w3.org/1999/02/22-rdf-syntax-ns#}about") or ""]
        link = next((c for c in candidates if c.strip()), "")
        found.append(_absolute(link, base_url))
    if not found and local_name(root.tag) not in ("rss", "feed", "rdf"):
        raise DiscoveryError(f"{base_url or 'feed'}: not an RSS or Atom feed")
    return _unique(found)


def parse_sitemap(content: bytes, base_url: str = "") -> Sitemap:
    """The ``<loc>`` URLs of a sitemap (``urlset``) or sitemap index (``sitemapindex``),
    gzipped or not."""
    what = base_url or "sitemap"
    root = parse_xml(unpack(content, what), what)
    kind = local_name(root.tag)
    if kind not in ("urlset", "sitemapindex"):
        raise DiscoveryError(f"{what}: not a sitemap (root element {kind or '?'})")
    entry = "url" if kind == "urlset" else "sitemap"
    locations = [_absolute(child.text or "", base_url) for element in root.iter()
                 if local_name(element.tag) == entry for child in element if local_name(child.tag) == "loc"]
    return Sitemap(pages=_unique(locations)) if kind == "urlset" else Sitemap(sitemaps=_unique(locations))


@dataclass
class Walk:
    """The outcome of walking a sitemap: pages found, and sitemaps that failed (url, message)."""

    pages: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)


def walk_sitemaps(start: str, get: Callable[[str], bytes], *, max_sitemaps: int = MAX_SITEMAPS,
                  max_urls: int = MAX_URLS) -> Walk:
    """Every page listed by the sitemap at ``start`` and the sitemaps it indexes, breadth-first.

    ``get(url) -> bytes`` fetches one sitemap (raising :class:`ThresherError` on failure).
    A sitemap that cannot be fetched or read is recorded in ``errors``; the others still count.
    """
    walk, queue, seen, pages = Walk(), deque([start]), {start}, set()
    read = 0
    while queue and read < max_sitemaps and len(walk.pages) < max_urls:
        url = queue.popleft()
        read += 1
        try:
            sitemap = parse_sitemap(get(url), url)
        except ThresherError as exc:
            walk.errors.append((url, str(exc)))
            continue
        for child in sitemap.sitemaps:
            if child not in seen:
                seen.add(child)
                queue.append(child)
        for page in sitemap.pages:
            if page not in pages and len(walk.pages) < max_urls:
                pages.add(page)
                walk.pages.append(page)
    return walk
