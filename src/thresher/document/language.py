"""Language identification and stop lists.

Stop lists come from ``stopwordsiso`` (stopwords-iso, 58 languages, MIT);
language identification from ``py3langid`` (its model ships inside the wheel,
nothing is downloaded; :mod:`thresher.document.identifier` loads it). Both are
read on first use and memoised: importing this module loads neither.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

# Enough text to identify a language reliably; more only costs time (measured in
# docs/design-measurements.md).
_SAMPLE_CHARS = 1000

# English function words. A sample of at least _MARKED_MIN_WORDS words of which this share
# or more are among them is English without running the identifier; the share keeps a margin
# above the highest share any non-English page reached (docs/design-measurements.md).
_ENGLISH_MARKERS = frozenset(
    "the and of to is in that for with are was this it on as be by at from have has not or an "
    "which but their they you we".split())
_ENGLISH_SHARE = 0.15
_MARKED_MIN_WORDS = 20
# stopwordsiso's data file: every language's list, in one JSON object.
_STOP_LISTS_FILE = "stopwords-iso.json"


@lru_cache(maxsize=1)
def _stop_lists_file() -> str | None:
    """stopwordsiso's data file as text, read without importing the package, whose import reads
    its version from the installed metadata (tens of milliseconds); None when the file is not
    where it used to be."""
    # The path finder alone (importlib.util.find_spec would import threading for nothing); a
    # package it does not find is read through its API below.
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec("stopwordsiso")
    for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
        try:
            with open(f"{folder}/{_STOP_LISTS_FILE}", encoding="utf-8") as file:
                return file.read()
        except (OSError, ValueError):
            continue
    return None


@lru_cache(maxsize=1)
def _stop_lists() -> Mapping[str, list[str]]:
    """Language code -> stopwordsiso's list: the whole data file (through the package's API when
    the file is not where it used to be)."""
    text = _stop_lists_file()
    if text is not None:
        try:
            lists: dict[str, list[str]] = json.loads(text)
            return lists
        except ValueError:
            pass
    import stopwordsiso

    return {code: sorted(stopwordsiso.stopwords(code)) for code in stopwordsiso.langs()}


def _stop_list(code: str) -> list[str]:
    """stopwordsiso's list of one language. The data file is one JSON object of lists of strings,
    so ``"code"`` after the object's ``{`` or a ``,`` and before a ``:`` can only be the name of
    one of its members (a quote inside a string is escaped): only that list is decoded, not the
    58 (a first extraction needs one). The whole file is read when the member is missing or is
    not a list of strings."""
    if not code:
        return []
    text = _stop_lists_file()
    name = f'"{code}"'
    at = text.find(name) if text is not None else -1
    while text is not None and at >= 0:
        before = at - 1
        while before >= 0 and text[before].isspace():
            before -= 1
        after = at + len(name)
        while after < len(text) and text[after].isspace():
            after += 1
        if before >= 0 and text[before] in "{," and text.startswith(":", after):
            value = _json_value(text, after + 1)
            if isinstance(value, list) and all(isinstance(word, str) for word in value):
                return value
            break
        at = text.find(name, at + 1)
    return _stop_lists().get(code, [])


def _json_value(text: str, at: int) -> Any:
    """The JSON value that starts at ``at`` (after spaces), or None when there is none."""
    while at < len(text) and text[at].isspace():
        at += 1
    try:
        return json.JSONDecoder().raw_decode(text, at)[0]
    except ValueError:
        return None


@cache
def stopwords(language: str) -> frozenset[str]:
    """Lower-cased stop words of an ISO 639-1 language; empty when unknown."""
    code = (language or "").lower().split("-")[0]
    return frozenset(word.lower() for word in _stop_list(code))


# The codes py3langid 0.4's model identifies (its ``nb_classes``, tests/test_language.py checks
# them against the installed model without "zxx", no linguistic content): every language a page
# can be found to be in. Stop lists exist for the 58 of them that stopwords-iso covers.
IDENTIFIED_LANGUAGES = frozenset("""
    ace af am an ar ary arz as az ba bcl be bg bn br bs ca crh cs cy da de dz el en eo es et eu ext fa fi
    fo fr fuv fy ga gcf gcr gd gl gom grc gu gug guw ha hbo he hi hr ht hu hy id ig is it ja jv ka kab kik
    kk km kn ko ku ky la lb lg lij ln lo lt ltg lv mg mk ml mn mr ms mt my ne nl nn no nso oc om or pa pcm
    pl ps pt qu ro ru rw sa sdh se si sk sl sn so sq sr st sv sw ta te tg th tk tl tr tt ug uk ur uz uzs
    vec vi vo wa wuu xh yo yue zh zu""".split())


@cache
def supported_languages() -> frozenset[str]:
    """The language codes thresher knows: those it can identify and those it has stop lists for."""
    return IDENTIFIED_LANGUAGES | frozenset(_stop_lists())


def primary_subtag(code: str) -> str:
    """The language of a tag: ``"en-GB"``, ``"EN_gb"`` and ``" en "`` are all ``"en"``."""
    return code.strip().lower().replace("_", "-").split("-")[0]


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from .identifier import load_identifier as load

    return load()


def load_identifier() -> None:
    """Load py3langid's model now rather than on the first page whose language is not plainly
    English (see :func:`thresher.preload`): tens of milliseconds from thresher's uncompressed
    copy, about half a second the first time, which makes that copy
    (:mod:`thresher.document.identifier`)."""
    _identifier()


def reads_as_english(sample: str) -> bool:
    """Enough words, and enough of them English function words, to call ``sample`` English."""
    words = sample.lower().split()
    if len(words) < _MARKED_MIN_WORDS:
        return False
    return sum(map(_ENGLISH_MARKERS.__contains__, words)) >= _ENGLISH_SHARE * len(words)


def identify(text: str) -> str:
    """ISO 639-1 code of the language ``text`` is written in ("" for no text).

    Plainly English samples skip the identifier (see ``reads_as_english``): it is
    the costlier path, about 1 ms per page.
    """
    sample = text[:_SAMPLE_CHARS]
    if reads_as_english(sample):
        return "en"
    if not any(ch.isalpha() for ch in sample):
        return ""
    code, _score = _identifier().classify(sample)
    return code


def page_language(doc, requested: str | None = None) -> str:
    """The caller's language, else identification over the page's longest blocks.

    The page's own ``lang`` attribute is a fallback only: it is often a CMS
    default that does not match the text.
    """
    if requested:
        return requested.lower().split("-")[0]
    # The core takes the sample from the page's blocks (the longest first, markup skipped: prose
    # identifies best), and no block is made in Python for it.
    detected = identify(doc.native.language_sample(_SAMPLE_CHARS))
    return detected or doc.lang or ""
