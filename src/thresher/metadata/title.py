"""The title: the page's h1 when it agrees with a declared title, without site-name segments."""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..document.blocks import Document
from .cues import _h1_blocks
from .sources import MetaIndex, _clean, _first, _is_article, _ld_text, _LinkedData, _meta_first, _norm

MAX_TITLE_SUFFIX_WORDS = 4  # a suffix this short is taken for a site name
H1_MIN_SIMILARITY = 0.4  # word-set Jaccard between an h1 and a declared title
MAX_H1_CANDIDATES = 3
_SEPARATOR_CHARS = " |-–—:·•»/\\"
_TITLE_SEPARATORS = re.compile(r"\s+(?:[|\-–—:·•»/\\]|::)\s+")
_WORD = re.compile(r"\w+")


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
