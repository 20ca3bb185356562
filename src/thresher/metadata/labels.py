"""The page's labels: tags and keywords, its type, its language, its description and image."""
from __future__ import annotations

from ..document.blocks import Document
from .sources import MetaIndex, _clean, _LinkedData, _meta_first, _meta_values, _norm, _types

MAX_TAGS = 20
_DESCRIPTION_META = ("og:description", "description", "twitter:description", "dc.description")
_IMAGE_META = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image",
               "twitter:image:src")
_TAG_META = ("article:tag", "keywords", "news_keywords", "parsely-tags")


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
