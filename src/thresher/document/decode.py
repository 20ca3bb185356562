"""Bytes to text.

Order of evidence, as browsers and the HTML standard apply it:

1. a byte-order mark, or for UTF-16 saved without one, the pattern of its zero bytes;
2. the charset of an HTTP ``Content-Type`` header, when the caller has one;
3. ``<meta charset>`` / ``<meta http-equiv="Content-Type">`` in the first bytes;
4. UTF-8, when the bytes are UTF-8 or nearly so (:func:`mostly_utf8`);
5. charset-normalizer's statistical guess.

Declared or nearly valid UTF-8 is decoded with repairs (:func:`repaired_utf8`):
each byte that is no part of a valid UTF-8 sequence becomes one character, the
byte read as windows-1252 (U+FFFD when that code page has none). So a stray
byte costs one character, not the whole page's encoding, and a page mixing
UTF-8 and Latin-1 keeps both readable.

A declared charset (2, 3) counts only when its label is one of the WHATWG
Encoding Standard's (:mod:`thresher.document.encoding_labels`); ``punycode``,
``rot13``, ``utf-7`` and other codecs that are no web page encoding are
ignored, as browsers ignore them.

``str`` input is returned as is when it has markup; a ``str`` without any is
refused (it is most often a file's path or a URL passed for the page), while
bytes without markup are read as a plain-text page. Inputs that are plainly not
HTML (empty, binary, PDF and other well-known binary formats) raise
:class:`InputError`.
"""
from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass
from typing import NamedTuple

from .. import _core
from ..errors import InputError
from .encoding_labels import codec_for_label

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_HEAD_BYTES = 16384
_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)
# The patterns below are strings compiled at their first use (re's cache keeps them): the common
# extraction, of bytes without a Content-Type, never needs them.
_HEADER_CHARSET = r"""(?i)charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})"""
_MAGIC = (
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or an office document)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "gzip-compressed data (decompress it first)"),
    (b"\x7fELF", "an executable"),
    (b"RIFF", "a RIFF media file"),
)
# Control characters that never occur in real text pages.
_BINARY_BYTES = bytes(set(range(0, 9)) | {11, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31})
_BINARY_TABLE = bytes.maketrans(b"", b"")
# What "surrogateescape" turns each invalid byte into: U+DC80..U+DCFF.
_ESCAPED = "[\udc80-\udcff]+"


class Decoded:
    """Text of a page and how it was obtained; immutable.

    ``source``: "str", "bom", "zeros" (UTF-16 without a BOM), "http", "meta", "utf-8" or
    "detected". ``utf8``: the input itself when it is exactly ``text`` in UTF-8 (strictly
    decoded). Such a page is decoded only when ``text`` is first read: the core parses the
    bytes, and the common extraction never reads the ``str``. ``length`` is ``len(text)``
    and ``all_space`` is ``text.isspace()``, known without it."""

    __slots__ = ("_text", "all_space", "encoding", "length", "source", "utf8")
    _text: str | None
    encoding: str
    source: str
    utf8: bytes | None
    length: int
    all_space: bool

    def __init__(self, text: str, encoding: str, source: str) -> None:
        self._set(text, encoding, source, None, len(text), text.isspace())

    @classmethod
    def of_utf8(cls, data: bytes, source: str, length: int, all_space: bool) -> Decoded:
        """Strict UTF-8 ``data`` of ``length`` characters, decoded when ``text`` is first read."""
        decoded = cls.__new__(cls)
        decoded._set(None, "utf-8", source, data, length, all_space)
        return decoded

    def _set(self, text: str | None, encoding: str, source: str, utf8: bytes | None, length: int,
             all_space: bool) -> None:
        for name, value in (("_text", text), ("encoding", encoding), ("source", source), ("utf8", utf8),
                            ("length", length), ("all_space", all_space)):
            object.__setattr__(self, name, value)

    @property
    def text(self) -> str:
        text = self._text
        if text is None:  # strict UTF-8 bytes (``of_utf8``): decoding cannot fail
            text = (self.utf8 or b"").decode("utf-8")
            object.__setattr__(self, "_text", text)
        return text

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Decoded is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decoded):
            return NotImplemented
        return (self.encoding, self.source, self.utf8, self.text) == \
            (other.encoding, other.source, other.utf8, other.text)

    def __hash__(self) -> int:
        return hash((self.encoding, self.source, self.text))

    def __repr__(self) -> str:
        return f"Decoded(encoding={self.encoding!r}, source={self.source!r}, length={self.length})"


@dataclass(frozen=True)
class Utf8Params:
    """When bytes that are not strictly UTF-8 are still read as UTF-8 with repairs.

    A valid sequence is a non-ASCII character encoded correctly; an invalid byte
    is a byte that belongs to none. Windows-1252 text almost never forms a valid
    UTF-8 sequence (it would take "Ã©"-like letter pairs), so its valid share is
    near 0, while a UTF-8 page with a few stray Latin-1 bytes is near 1.
    """

    # Undeclared bytes: valid sequences / (valid sequences + invalid bytes) at least this.
    min_valid_share: float = 0.9
    # Declared UTF-8: the declaration is trusted unless invalid bytes dominate ...
    declared_min_valid_share: float = 0.5
    # ... and is always trusted with this many invalid bytes or fewer.
    declared_max_strays: int = 8


class Utf8Counts(NamedTuple):
    """Valid non-ASCII sequences and invalid bytes of a UTF-8 reading."""

    valid: int
    invalid: int

    @property
    def valid_share(self) -> float:
        total = self.valid + self.invalid
        return self.valid / total if total else 1.0


def normalize_encoding(label: str | None) -> str | None:
    """Python codec name for a declared charset label, or None when the label is not one of the
    WHATWG Encoding Standard's (browsers ignore those: ``punycode``, ``rot13``, ``base64`` ...)."""
    if not label:
        return None
    return codec_for_label(label.strip().strip("\"'"))


def sniff_binary(data: bytes) -> str | None:
    """Describe why ``data`` is not a text page, or None when it may be one."""
    for magic, what in _MAGIC:
        if data.startswith(magic):
            return what
    sample = data[:4096]
    if _looks_utf16(sample):
        return None
    controls = len(sample) - len(sample.translate(_BINARY_TABLE, _BINARY_BYTES))
    return "binary data" if controls > max(8, len(sample) // 100) else None


def _looks_utf16(sample: bytes) -> bool:
    return sample[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _try(data: bytes, encoding: str | None) -> str | None:
    if encoding is None:
        return None
    try:
        return data.decode(encoding)
    except (UnicodeError, LookupError):
        return None


def _from_bom(data: bytes) -> Decoded | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return Decoded(data[len(bom):].decode(encoding, errors="replace"), encoding, "bom")
    return None


def bomless_utf16(sample: bytes, ascii_share: float = 0.2, stray_share: float = 0.02) -> str | None:
    """The UTF-16 codec of markup saved without a byte-order mark, read off its zero bytes, else None.

    ASCII, which markup is full of, has UTF-16 code units with a zero high byte: the odd
    bytes of little-endian text, the even bytes of big-endian. At least ``ascii_share`` of
    one half must be zero, at most ``stray_share`` of the other, and the text must hold a
    ``<``. Binary data has zeros in both halves or few anywhere; single-byte and UTF-8
    text has none."""
    pairs = len(sample) // 2
    if pairs < 8:
        return None
    even, odd = sample[0:2 * pairs:2].count(0), sample[1:2 * pairs:2].count(0)
    for codec, zeros, strays in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if zeros >= ascii_share * pairs and strays <= stray_share * pairs \
                and "<" in sample[:2 * pairs].decode(codec, errors="replace"):
            return codec
    return None


def _from_zero_bytes(data: bytes) -> Decoded | None:
    codec = bomless_utf16(data[:4096])
    return Decoded(data.decode(codec, errors="replace"), codec, "zeros") if codec else None


def _declared(data: bytes, content_type: str | None) -> list[tuple[str, str]]:
    found = []
    if content_type:
        match = re.search(_HEADER_CHARSET, content_type)
        if match:
            found.append((match.group(1), "http"))
    meta = _META_CHARSET.search(data[:_HEAD_BYTES])
    if meta:
        found.append((meta.group(1).decode("ascii", "replace"), "meta"))
    return found


def _detected(data: bytes) -> Decoded:
    from charset_normalizer import from_bytes

    matches = from_bytes(data[:262144])
    best = matches.best()
    encoding = _python_codec(best.encoding) if best is not None else None
    if best is not None and _western_is_as_good(matches, best):
        encoding = "cp1252"
    text = _decode_replacing(data, encoding) if encoding else None
    if encoding is None or text is None:
        return Decoded(data.decode("cp1252", errors="replace"), "cp1252", "detected")
    return Decoded(text, encoding, "detected")


def _python_codec(name: str | None) -> str | None:
    """Canonical name of a codec the detector names (it uses Python's names), or None."""
    try:
        return codecs.lookup(name).name if name else None
    except LookupError:
        return None


def _decode_replacing(data: bytes, encoding: str) -> str | None:
    """``data`` decoded with bad bytes replaced, or None for a codec that fails anyway
    (some non-web codecs raise whatever the error handler)."""
    try:
        return data.decode(encoding, errors="replace")
    except (UnicodeError, LookupError):
        return None


def _western_is_as_good(matches, best, margin: float = 0.05) -> bool:
    """On short Latin text the detector may prefer a Baltic or Central European code page by a
    hair; windows-1252 is by far the most common single-byte encoding on the web, so a near tie
    goes to it."""
    for match in matches:
        if _python_codec(match.encoding) == "cp1252":
            return match.chaos <= best.chaos + margin
    return False


def _escaped_bytes_as_cp1252(match: re.Match) -> str:
    return match.group(0).encode("utf-8", "surrogateescape").decode("cp1252", errors="replace")


def utf8_reading(data: bytes) -> tuple[str, Utf8Counts]:
    """``data`` as UTF-8 with each invalid byte escaped (U+DC80 + byte), and its counts."""
    escaped = data.decode("utf-8", "surrogateescape")
    invalid = sum(len(run) for run in re.findall(_ESCAPED, escaped))
    non_ascii = len(escaped) - len(escaped.encode("ascii", "ignore"))
    return escaped, Utf8Counts(non_ascii - invalid, invalid)


def repaired_utf8(escaped: str) -> str:
    """An escaped UTF-8 reading (:func:`utf8_reading`) with each invalid byte read as windows-1252."""
    return re.sub(_ESCAPED, _escaped_bytes_as_cp1252, escaped)


def mostly_utf8(counts: Utf8Counts, declared: bool, params: Utf8Params = Utf8Params()) -> bool:
    """Whether bytes with ``counts`` are UTF-8 with a few stray bytes (see :class:`Utf8Params`)."""
    if declared:
        return counts.invalid <= params.declared_max_strays or \
            counts.valid_share >= params.declared_min_valid_share
    return counts.valid > 0 and counts.valid_share >= params.min_valid_share


def _utf8(data: bytes, source: str, declared: bool) -> Decoded | None:
    """``data`` as UTF-8 (strict, decoded when first read; else repaired when
    :func:`mostly_utf8`), or None."""
    facts = _core.utf8_facts(data)
    if facts is not None:
        return Decoded.of_utf8(data, source, *facts)
    escaped, counts = utf8_reading(data)
    if not mostly_utf8(counts, declared):
        return None
    return Decoded(repaired_utf8(escaped), "utf-8", source)


# A tag, comment, doctype or processing instruction opening: what makes a str a page.
_MARKUP = r"<[A-Za-z!/?]"
_URL = r"(?i)(?:https?|ftp)://\S+$"


def _named_file(text: str) -> bool:
    try:
        return os.path.isfile(text)
    except (OSError, ValueError):  # a name the file system cannot hold
        return False


def without_markup(text: str) -> str:
    """Why a ``str`` without markup is not taken as a page, naming the likely mistake."""
    head = text.strip()
    if "\n" not in head and len(head) <= 4096:
        if re.match(_URL, head):
            return (f"got a URL, not a page: fetch it first (the command line does: "
                    f"thresher extract -u {head[:200]})")
        if _named_file(head):
            return (f"got the path of a file, not a page: read the file first, "
                    f"thresher.extract(pathlib.Path({head[:200]!r}).read_bytes())")
    return ("a str page must be HTML, and this one has no markup: if it is a file's path, read the file "
            "first and pass its bytes (bytes without markup are read as a plain-text page)")


def decode(data: bytes | str, content_type: str | None = None) -> Decoded:
    """Decode a page to text; raise :class:`InputError` for input that is not a page."""
    if isinstance(data, str):
        if not data or data.isspace():
            raise InputError("empty input")
        if re.search(_MARKUP, data) is None:
            raise InputError(without_markup(data))
        return Decoded(data, "str", "str")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InputError(f"expected bytes or str, got {type(data).__name__}")
    data = bytes(data)
    if not data or data.isspace():
        raise InputError("empty input")
    unicode = _from_bom(data) or _from_zero_bytes(data)
    if unicode is not None:
        return unicode
    reason = sniff_binary(data)
    if reason:
        raise InputError(f"not an HTML page: {reason}")
    for label, source in _declared(data, content_type):
        codec = _declared_codec(label)
        if codec is None:
            continue
        if codec == "utf-8":
            decoded = _utf8(data, source, declared=True)
            if decoded is not None:
                return decoded
            continue
        text = _try(data, codec)
        if text is not None:
            return Decoded(text, codec, source)
    return _utf8(data, "utf-8", declared=False) or _detected(data)


def _declared_codec(label: str) -> str | None:
    codec = normalize_encoding(label)
    # A page that declares UTF-16 in ASCII-compatible bytes is lying: browsers use UTF-8 then.
    return "utf-8" if codec and codec.replace("_", "-").startswith("utf-16") else codec
