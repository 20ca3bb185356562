"""Atheris fuzz target: any bytes through ``thresher.extract`` raise only ``InputError`` or give a string.

The first input byte picks the output format (its low two bits) and the
algorithm (the rest); the remaining bytes are the page. Besides libFuzzer's
byte-level mutations, a structure-aware mutator edits the page as HTML: it
inserts tag soup, nests a tag thousands deep, floods a tag with attributes,
declares charsets (web encodings and codecs that are none), adds JSON-LD nested
deep or left open, adds hostile link targets, and re-encodes the page in
another encoding with or without a byte-order mark. Nothing here recurses.

    python fuzz/fuzz_extract.py -max_total_time=600 -timeout=30 fuzz/corpus

See fuzz/README.md.
"""
from __future__ import annotations

import random
import sys
from typing import Callable

import atheris

with atheris.instrument_imports(include=["thresher"]):
    import thresher
    from thresher import algorithms
    from thresher.errors import InputError, ModelError
    from thresher.render import html as _html, json_out as _json, markdown as _markdown, text as _text  # noqa: F401

FORMATS = ("text", "markdown", "html", "json")
TAGS = (b"html", b"head", b"body", b"title", b"meta", b"script", b"style", b"template", b"noscript", b"svg",
        b"math", b"table", b"tr", b"td", b"select", b"option", b"textarea", b"pre", b"plaintext", b"xmp",
        b"iframe", b"a", b"p", b"div", b"li", b"ul", b"ol", b"h1", b"br", b"img", b"article", b"nav", b"code",
        b"b", b"i", b"span", b"blockquote", b"frameset", b"x-y", b"foo:bar")
CHARSETS = (b"utf-8", b"latin1", b"x-sjis", b"gb2312", b"koi8-r", b"utf-16", b"utf-16be", b"iso-2022-jp",
            b"x-user-defined", b"replacement", b"punycode", b"idna", b"rot13", b"base64", b"utf-7", b"hex",
            b"zlib", b"bz2", b"uu", b"quopri", b"unicode_escape", b"cp037", b"utf-32", b"\"", b"")
ENCODINGS = ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "cp1252", "shift_jis", "gb18030", "koi8-r",
             "iso2022_jp", "cp037", "utf-7")
BOMS = (b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00")
SNIPPETS = (b"<!--", b"-->", b"<![CDATA[", b"]]>", b"<?x?>", b"<!x>", b"</", b"<", b">", b"&", b"&#0;",
            b"&#xD800;", b"&#x110000;", b"&notin", b"\x00", b"\r\n", b"\xef\xbb\xbf", b"\xff", b"\"", b"'",
            b"<p>Some words of paragraph text, enough of them to look like prose.</p>")
URLS = (b"javascript:alert(1)", b"java&#9;script:x", b"http://a/\n(b)) <x> \"q\"", b"%zz%", b"//", b"http://[::1",
        b"data:text/html,x", b"http://a/\xe2\x80\xae\xc2\xa0", b"  ", b"&#1;")


def _algorithm_names() -> tuple[str, ...]:
    """Registered algorithms whose models are installed."""
    usable = []
    for name in algorithms.names():
        try:
            thresher.extract("<p>A tiny page to load the model with.</p>", algorithm=name)
        except ModelError:
            continue
        usable.append(name)
    return tuple(usable)


ALGORITHMS = _algorithm_names()


def test_one_input(data: bytes) -> None:
    if not data:
        return
    output = FORMATS[data[0] & 3]
    algorithm = ALGORITHMS[(data[0] >> 2) % len(ALGORITHMS)]
    try:
        out = thresher.extract(data[1:], "https://example.com/a/page.html", algorithm=algorithm,
                               output=output, links=True)
    except InputError:
        return
    if not isinstance(out, str):
        raise TypeError(f"extract gave {type(out).__name__}, not str")


# ------------------------------------------------------------------ the structure-aware mutator

def _position(rng: random.Random, page: bytes) -> int:
    """A random place in the page, most often just before a tag."""
    at = rng.randrange(len(page) + 1)
    if rng.random() < 0.7:
        tag = page.find(b"<", at)
        return tag if tag >= 0 else at
    return at


def _insert(rng: random.Random, page: bytes, piece: bytes) -> bytes:
    at = _position(rng, page)
    return page[:at] + piece + page[at:]


def _attributes(rng: random.Random, count: int) -> bytes:
    names = (b"class", b"id", b"href", b"style", b"hidden", b"type", b"charset", b"lang", b"a")
    return b"".join(b" %s%d=\"%s\"" % (rng.choice(names), i, rng.choice(URLS + CHARSETS)) for i in range(count))


def _tag(rng: random.Random) -> bytes:
    return b"<%s%s>" % (rng.choice(TAGS), _attributes(rng, rng.randrange(3)))


def _soup(rng: random.Random, page: bytes) -> bytes:
    pieces = [rng.choice((_tag(rng), b"</%s>" % rng.choice(TAGS), rng.choice(SNIPPETS)))
              for _ in range(rng.randrange(1, 8))]
    return _insert(rng, page, b"".join(pieces))


def _deep(rng: random.Random, page: bytes) -> bytes:
    tag, depth = rng.choice(TAGS), rng.choice((10, 100, 1000, 20000))
    closing = b"</%s>" % tag * rng.choice((0, depth))
    return _insert(rng, page, b"<%s>" % tag * depth + rng.choice(SNIPPETS) + closing)


def _flood(rng: random.Random, page: bytes) -> bytes:
    return _insert(rng, page, b"<%s%s>" % (rng.choice(TAGS), _attributes(rng, rng.choice((50, 1000, 20000)))))


def _charset(rng: random.Random, page: bytes) -> bytes:
    label = rng.choice(CHARSETS)
    meta = rng.choice((b"<meta charset=\"%s\">" % label,
                       b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=%s\">" % label))
    return meta + page if rng.random() < 0.5 else _insert(rng, page, meta)


def _json_ld(rng: random.Random, page: bytes) -> bytes:
    depth = rng.choice((1, 5, 63, 64, 65, 1000, 100000))
    kinds = [rng.random() < 0.5 for _ in range(rng.randrange(1, 4))]
    levels = [kinds[i % len(kinds)] for i in range(depth)]
    opens = b"".join(b"{\"@graph\": " if kind else b"[" for kind in levels)
    closes = b"".join(b"}" if kind else b"]" for kind in reversed(levels))
    leaf = rng.choice((b"{\"@type\": \"Article\", \"headline\": \"H\", \"author\": {\"name\": \"A\"}}", b"\"\\\"]}\"",
                       b"1" * 5000, b"\"unterminated", b"null", b""))
    body = opens + leaf + closes[:rng.choice((len(closes), rng.randrange(len(closes) + 1)))]
    return _insert(rng, page, b"<script type=\"application/ld+json\">" + body + b"</script>")


def _link(rng: random.Random, page: bytes) -> bytes:
    return _insert(rng, page, b"<a href=\"%s\">link text</a>" % rng.choice(URLS))


def _reencode(rng: random.Random, page: bytes) -> bytes:
    text = page.decode("utf-8", errors="replace")
    return rng.choice(BOMS) + text.encode(rng.choice(ENCODINGS), errors="replace")


def _splice(rng: random.Random, page: bytes) -> bytes:
    if not page:
        return page
    start = rng.randrange(len(page))
    end = min(len(page), start + rng.randrange(1, 256))
    return _insert(rng, page, page[start:end] * rng.randrange(1, 4))


def _bytes(rng: random.Random, page: bytes) -> bytes:
    return atheris.Mutate(page, max(1, len(page) + 64))


EDITS: tuple[Callable[[random.Random, bytes], bytes], ...] = (
    _soup, _deep, _flood, _charset, _json_ld, _link, _reencode, _splice, _bytes, _bytes, _bytes)


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    rng = random.Random(seed)
    head = data[:1] if data and rng.random() < 0.9 else bytes([rng.randrange(256)])
    page = data[1:]
    for _ in range(rng.randrange(1, 4)):
        page = rng.choice(EDITS)(rng, page)
    return (head + page)[:max_size]


def main() -> None:
    atheris.Setup(sys.argv, test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
