"""Language identification and stop lists.

Stop lists come from ``stopwordsiso`` (stopwords-iso, 58 languages, MIT);
language identification from ``py3langid`` (its model ships inside the wheel,
nothing is downloaded). Both loaders are memoised pure functions over
read-only package data.
"""
from __future__ import annotations

from functools import cache, lru_cache

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


@cache
def stopwords(language: str) -> frozenset[str]:
    """Lower-cased stop words of an ISO 639-1 language; empty when unknown."""
    import stopwordsiso

    code = (language or "").lower().split("-")[0]
    if not code or not stopwordsiso.has_lang(code):
        return frozenset()
    return frozenset(word.lower() for word in stopwordsiso.stopwords(code))


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
    import stopwordsiso

    return IDENTIFIED_LANGUAGES | frozenset(stopwordsiso.langs())


def primary_subtag(code: str) -> str:
    """The language of a tag: ``"en-GB"``, ``"EN_gb"`` and ``" en "`` are all ``"en"``."""
    return code.strip().lower().replace("_", "-").split("-")[0]


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=False)


def load_identifier() -> None:
    """Load py3langid's model now (about half a second) rather than on the first page whose
    language is not plainly English (see :func:`thresher.preload`)."""
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


def is_markup(text: str) -> bool:
    """Text that reads as markup (escaped HTML in a ``<noscript>``, say): it has no language."""
    return text.lstrip().startswith("<")


def sample_text(texts, limit: int = _SAMPLE_CHARS) -> str:
    """The longest texts first, up to ``limit`` characters: prose identifies best."""
    out, size = [], 0
    for text in sorted(texts, key=len, reverse=True):  # markup is skipped as met: most texts never are
        if is_markup(text):
            continue
        out.append(text)
        size += len(text)
        if size >= limit:
            break
    return "\n".join(out)


def page_language(doc, requested: str | None = None) -> str:
    """The caller's language, else identification over the page's longest blocks.

    The page's own ``lang`` attribute is a fallback only: it is often a CMS
    default that does not match the text.
    """
    if requested:
        return requested.lower().split("-")[0]
    detected = identify(sample_text(block.text for block in doc.blocks))
    return detected or doc.lang or ""
