"""thresher.document.decode: bytes to text, in the browser's order of evidence, and refusal of non-pages."""
from __future__ import annotations

import codecs
import random

import pytest
from hypothesis import given, strategies as st

from thresher import _core
from thresher.document.blocks import document_of
from thresher.document.decode import Decoded, bomless_utf16, decode, normalize_encoding, sniff_binary
from thresher.errors import InputError

RUSSIAN = ("Москва — столица России, крупнейший по численности населения город страны. "
           "Это главный политический, экономический и культурный центр.")
JAPANESE = ("東京は日本の首都であり、世界最大級の都市圏を形成している。"
            "多くの企業の本社が置かれ、経済と文化の中心地となっている。")
FRENCH = ("Le café était très agréable, à côté de la forêt où l'on s'arrête souvent. "
          "Déjà vu, garçon, naïve, hôtel, bientôt, élève.")


def page(body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body><p>{body}</p><p>{body}</p></body></html>"


# ------------------------------------------------------------------ BOMs

def test_utf8_bom_is_stripped_and_wins_over_a_meta_declaration():
    data = codecs.BOM_UTF8 + page(FRENCH, '<meta charset="windows-1251">').encode("utf-8")
    result = decode(data)
    assert (result.encoding, result.source) == ("utf-8", "bom")
    assert FRENCH in result.text
    assert not result.text.startswith("\ufeff")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_bom(codec):
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    result = decode(bom + page(RUSSIAN).encode(codec))
    assert (result.encoding, result.source) == (codec, "bom")
    assert RUSSIAN in result.text


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", [RUSSIAN, JAPANESE, FRENCH])
def test_utf16_without_a_bom_is_read_off_its_zero_bytes(codec, text):
    result = decode(page(text).encode(codec))
    assert (result.encoding, result.source) == (codec, "zeros")
    assert text in result.text


@pytest.mark.parametrize("data", [page(FRENCH).encode("utf-8"), page(FRENCH).encode("cp1252"),
                                  page(JAPANESE).encode("utf-8"), b"\x00" * 64, b"<p>" + b"\x00\x00a" * 40])
def test_text_and_zero_runs_are_not_taken_for_utf16(data):
    assert bomless_utf16(data) is None


def test_bom_wins_over_http_header():
    data = codecs.BOM_UTF8 + page(RUSSIAN).encode("utf-8")
    assert decode(data, "text/html; charset=windows-1251").source == "bom"


# ------------------------------------------------------------ declarations

def test_http_charset_wins_over_meta():
    data = page(RUSSIAN, '<meta charset="utf-8">').encode("cp1251")
    result = decode(data, "text/html; charset=windows-1251")
    assert (result.encoding, result.source) == ("cp1251", "http")
    assert RUSSIAN in result.text


def test_http_charset_is_used_even_when_the_bytes_are_also_valid_utf8():
    # "Ã©" in cp1252 is the UTF-8 encoding of "é": the header decides.
    data = page("caf\u00e9 au lait").encode("utf-8")
    result = decode(data, 'text/html; charset="iso-8859-1"')
    assert result.source == "http"
    assert result.encoding == "cp1252"  # WHATWG maps latin-1 labels to windows-1252
    assert "caf\u00c3\u00a9" in result.text


def test_meta_charset():
    data = page(RUSSIAN, '<meta charset="windows-1251">').encode("cp1251")
    result = decode(data)
    assert (result.encoding, result.source) == ("cp1251", "meta")
    assert RUSSIAN in result.text


def test_meta_http_equiv():
    text = RUSSIAN.replace("\u2014", "-")  # koi8-r has no em dash
    head = '<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'
    result = decode(page(text, head).encode("koi8-r"))
    assert result.source == "meta"
    assert codecs.lookup(result.encoding) == codecs.lookup("koi8-r")
    assert text in result.text


def test_header_without_charset_falls_through_to_meta():
    data = page(RUSSIAN, '<meta charset="windows-1251">').encode("cp1251")
    assert decode(data, "text/html").source == "meta"


def test_unknown_declared_label_is_ignored():
    data = page(FRENCH, '<meta charset="x-no-such-charset">').encode("utf-8")
    result = decode(data)
    assert (result.encoding, result.source) == ("utf-8", "utf-8")
    assert FRENCH in result.text


def test_utf16_declared_in_ascii_bytes_means_utf8():
    data = page(FRENCH, '<meta charset="utf-16">').encode("utf-8")
    result = decode(data)
    assert result.encoding == "utf-8"
    assert FRENCH in result.text


# ------------------------------------------------------- undeclared bytes

def test_strict_utf8_without_declaration():
    result = decode(page(JAPANESE).encode("utf-8"))
    assert (result.encoding, result.source) == ("utf-8", "utf-8")
    assert JAPANESE in result.text


@pytest.mark.parametrize("data, kept", [
    (page(JAPANESE).encode("utf-8"), True),  # strict UTF-8
    (page(FRENCH, '<meta charset="utf-8">').encode("utf-8"), True),  # declared and valid
    (page(FRENCH, '<meta charset="windows-1252">').encode("cp1252"), False),
    (codecs.BOM_UTF8 + page(FRENCH).encode("utf-8"), False),  # the text lacks the BOM
    (page(RUSSIAN).encode("cp1251"), False),  # detected
])
def test_the_input_bytes_are_kept_exactly_when_they_are_the_text_in_utf8(data, kept):
    result = decode(data)
    assert (result.utf8 is not None) is kept
    if kept:
        assert result.utf8 == result.text.encode("utf-8")
    assert decode(result.text).utf8 is None  # str input: nothing to keep


@pytest.mark.parametrize("text,codec", [(RUSSIAN, "cp1251"), (JAPANESE, "shift_jis")])
def test_charset_normalizer_fallback_without_declaration(text, codec):
    result = decode(page(text).encode(codec))
    assert result.source == "detected"
    assert text in result.text


def test_wrong_declared_charset_still_decodes_without_error():
    """Declares UTF-8, is latin-1: the declaration fails, detection takes over."""
    data = page(FRENCH, '<meta charset="utf-8">').encode("latin-1")
    result = decode(data)
    assert isinstance(result, Decoded)
    assert result.source == "detected"
    assert "\ufffd" not in result.text
    # The ASCII part of the page survives whatever single-byte codec is picked.
    assert "Le caf" in result.text and "vu, gar" in result.text


def test_wrong_declared_charset_gives_sensible_latin_text():
    data = page(FRENCH, '<meta charset="utf-8">').encode("latin-1")
    assert FRENCH in decode(data).text


# ----------------------------------------------------------------- str and refusals

def test_str_passes_through_untouched():
    text = page(JAPANESE, '<meta charset="windows-1251">')
    result = decode(text)
    assert result.text is text
    assert (result.encoding, result.source) == ("str", "str")


@pytest.mark.parametrize("data", [b"", b"   \n\t  ", bytearray(b"")])
def test_empty_input_is_refused(data):
    with pytest.raises(InputError, match="empty"):
        decode(data)


def test_pdf_is_refused():
    with pytest.raises(InputError, match="PDF"):
        decode(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")


@pytest.mark.parametrize("magic", [b"\x89PNG\r\n\x1a\n", b"PK\x03\x04", b"\x1f\x8b\x08\x00"])
def test_other_binary_formats_are_refused(magic):
    with pytest.raises(InputError):
        decode(magic + b"<html><body>not really</body></html>" * 5)


def test_random_binary_is_refused():
    rng = random.Random(0)
    with pytest.raises(InputError, match="binary"):
        decode(bytes(rng.randrange(256) for _ in range(4096)))


def test_non_bytes_input_is_refused():
    with pytest.raises(InputError):
        decode(12345)  # type: ignore[arg-type]


def test_memoryview_is_accepted():
    assert FRENCH in decode(memoryview(page(FRENCH).encode("utf-8"))).text


# ------------------------------------------------------------------ helpers

@pytest.mark.parametrize("label,codec", [
    ("ISO-8859-1", "cp1252"), ("latin1", "cp1252"), ("US-ASCII", "cp1252"),
    ("UTF-8", "utf-8"), ("Shift_JIS", "shift_jis"), (" 'windows-1251' ", "cp1251"),
    ("no-such-thing", None), ("", None), (None, None),
])
def test_normalize_encoding(label, codec):
    assert normalize_encoding(label) == codec


def test_sniff_binary_accepts_text_with_a_few_control_characters():
    assert sniff_binary(b"<p>form\x0cfeed, a tab\t and a return\r</p>" * 20 + b"\x07") is None


def test_sniff_binary_refuses_text_full_of_control_characters():
    assert sniff_binary(b"<p>a bell\x07 and an escape\x1b</p>" * 20) == "binary data"


# ------------------------------------------------------- WHATWG labels only

NOT_WEB_ENCODINGS = ["punycode", "idna", "rot13", "rot_13", "base64", "utf-7", "utf_7", "hex", "zlib", "bz2",
                     "uu", "quopri", "unicode_escape", "raw_unicode_escape", "mbcs", "cp037", "utf-32",
                     "iso-2022-kr", "replacement", "hz-gb-2312"]


@pytest.mark.parametrize("label", NOT_WEB_ENCODINGS)
def test_a_declared_codec_that_is_no_web_encoding_is_ignored(label):
    for data, content_type in ((f'<meta charset="{label}"><p>hello</p>'.encode(), None),
                               (b"<p>hello</p>", f"text/html; charset={label}")):
        result = decode(data, content_type)
        assert (result.encoding, result.source) == ("utf-8", "utf-8")
        assert "hello" in result.text


@pytest.mark.parametrize("label", ["punycode", "idna", "rot13", "base64", "utf-7", "hex", "zlib"])
def test_extract_ignores_a_declared_codec_that_is_no_web_encoding(label):
    import thresher

    page_bytes = f'<meta charset="{label}"><p>hello</p>'.encode()
    for output in ("text", "markdown", "html", "json"):
        assert "hello" in thresher.extract(page_bytes, output=output)


@pytest.mark.parametrize("label,codec", [
    ("x-sjis", "shift_jis"), ("ms_kanji", "shift_jis"), ("ascii", "cp1252"), ("ansi_x3.4-1968", "cp1252"),
    ("l1", "cp1252"), ("iso-8859-9", "cp1254"), ("latin2", "iso8859-2"), ("gb2312", "gb18030"),
    ("big5", "big5hkscs"), ("euc-kr", "cp949"), ("koi8", "koi8-r"), ("tis-620", "cp874"),
    ("x-mac-roman", "mac-roman"), ("unicode11utf8", "utf-8"), ("\tUTF8 ", "utf-8"), ("x-user-defined", "cp1252"),
])
def test_whatwg_labels_map_to_their_encoding(label, codec):
    assert normalize_encoding(label) == codec


def test_every_label_in_the_table_names_a_working_codec():
    from thresher.document.encoding_labels import ENCODINGS, LABEL_CODECS

    for _, codec, labels in ENCODINGS:
        assert codecs.lookup(codec).name == codec
        assert "<p>abc</p>".encode(codec).decode(codec) == "<p>abc</p>"
        assert all(label == label.strip().lower() and LABEL_CODECS[label] == codec for label in labels)


# ----------------------------------------------------------------- UTF-8 with stray bytes

CURLY = "It\u2019s a café, isn\u2019t it? Straße, naïve, “quoted”. " * 3


def test_declared_utf8_with_one_invalid_byte_costs_one_character():
    good = page(CURLY, '<meta charset="utf-8">').encode("utf-8")
    data = good.replace(b"<body>", b"<body>\x81", 1)
    result = decode(data)
    assert (result.encoding, result.source) == ("utf-8", "meta")
    assert CURLY in result.text and "â€" not in result.text
    assert result.text.count("\ufffd") == 1
    assert len(result.text) == len(good.decode("utf-8")) + 1


def test_http_declared_utf8_with_one_invalid_byte_stays_utf8():
    data = page(CURLY).encode("utf-8").replace(b"<body>", b"<body>\xff", 1)
    result = decode(data, "text/html; charset=UTF-8")
    assert (result.encoding, result.source) == ("utf-8", "http")
    assert CURLY in result.text and "<body>\u00ff<p>" in result.text


def test_mixed_utf8_and_latin1_keeps_both_readable():
    data = page(CURLY, '<meta charset="utf-8">').encode("utf-8") + "<p>Le café où l'élève</p>".encode("latin-1")
    result = decode(data)
    assert result.source == "meta"
    assert CURLY in result.text and "Le café où l'élève" in result.text


def test_undeclared_mostly_utf8_is_repaired_not_detected():
    data = page(CURLY * 4).encode("utf-8").replace(b"<body>", b"<body>\xe9", 1)
    result = decode(data)
    assert (result.encoding, result.source) == ("utf-8", "utf-8")
    assert CURLY in result.text and "<body>é<p>" in result.text


def test_undeclared_cp1252_is_still_detected():
    result = decode(page(FRENCH).encode("cp1252"))
    assert result.source == "detected" and FRENCH in result.text


def test_a_truncated_sequence_costs_one_character_per_byte():
    data = page("a" * 40, '<meta charset="utf-8">').encode("utf-8").replace(b"<body>", b"<body>\xe2\x80", 1)
    assert "<body>\u00e2\u20ac<p>" in decode(data).text


# ----------------------------------------------------------------- strict UTF-8, read lazily

@given(st.text())
def test_the_core_reads_strict_utf8_as_python_does(text):
    assert _core.utf8_facts(text.encode("utf-8")) == (len(text), text.isspace())


@given(st.binary(max_size=64))
def test_the_core_refuses_exactly_the_bytes_python_refuses(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        assert _core.utf8_facts(data) is None
    else:
        assert _core.utf8_facts(data) == (len(text), text.isspace())


def test_strict_utf8_keeps_its_bytes_and_decodes_them_when_read():
    data = page(RUSSIAN).encode("utf-8")
    result = decode(data)
    assert (result.encoding, result.source, result.utf8) == ("utf-8", "utf-8", data)
    assert result.text == data.decode("utf-8") and result.length == len(result.text)
    assert not result.all_space
    assert result == decode(data) and hash(result) == hash(decode(data))
    with pytest.raises(AttributeError):
        result.encoding = "latin-1"  # type: ignore[misc]


def test_a_utf8_page_is_parsed_from_its_bytes_with_the_str_checks():
    decoded = decode(page(JAPANESE).encode("utf-8"))
    doc = document_of(decoded)
    assert JAPANESE[:10] in " ".join(b.text for b in doc.blocks)
    assert doc.source_length == len(decoded.text)
    # Unicode white space only is an empty page, as a str of it is.
    with pytest.raises(InputError, match="empty input"):
        document_of(decode("\u3000\u00a0 \u2003".encode("utf-8")))
    # An XML start is refused unless the page holds <html> or <body>, past the first bytes too.
    feed = '<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title></channel></rss>'
    with pytest.raises(InputError, match="XML document"):
        document_of(decode(feed.encode("utf-8")))
    late_html = "<svg><title>logo</title></svg>" + " " * 20000 + "<html><body><p>Text of the page.</p></body></html>"
    assert "Text of the page." in [b.text for b in document_of(decode(late_html.encode("utf-8"))).blocks]
