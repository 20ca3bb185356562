"""The parser's bounds, and the HTML facts the Python layer shares with the native core.

Parsing itself happens in the native core (``thresher._core``, crate ``thresher-core``):
html5ever's tokenizer and tree builder, writing into an arena DOM. Three real-world
patterns would make a standard parser slow or lossy; the core keeps each linear:

* **Deep nesting** (10^5 open elements): the standard's tree-building steps search the
  stack of open elements, so every tag would cost as much as the depth. Browsers cap the
  tree's depth and attach deeper elements at the cap, keeping their text; the core does
  the same between tokenizer and tree builder, judging depth on the tree it builds, so
  elements the standard closes implicitly (``<p>``, ``<li>``, ``<option>``, ``<td>``) never
  count as nesting.
* **Attribute floods** (one start tag with 10^5 attributes): the tokenizer checks each new
  attribute against the earlier ones. The core keeps the first ``max_attributes`` of each
  tag before tokenizing, in one pass over the tags.
* **Option floods** and **long runs of unclosed elements** need nothing special: the tree
  builder handles them in linear time.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split())


@dataclass(frozen=True)
class ParseLimits:
    """Bounds that keep parsing linear on hostile pages.

    max_attributes: attributes kept per start tag (browsers keep all; no real
        page needs more than a few dozen).
    max_depth: depth of the deepest element the tree may hold; start tags that
        would open a deeper one are dropped (their text is kept), as browsers do
        past their own cap (Blink's is 512).
    """

    max_attributes: int = 256
    max_depth: int = 400

    def __post_init__(self) -> None:
        if self.max_attributes < 1 or self.max_depth < 2:
            raise ValueError("ParseLimits needs max_attributes >= 1 and max_depth >= 2")


# Root elements of XML vocabularies that reach an HTML extractor by mistake: feeds, sitemaps,
# vector images, outlines. Their elements mean nothing to an HTML parser, which would glue
# their texts together.
XML_ROOTS = frozenset("rss feed rdf:rdf svg urlset sitemapindex opml kml gpx".split())
# The first element of a document, after an XML declaration, comments and a doctype.
_FIRST_ELEMENT = re.compile(
    r"\A[\s\ufeff]*(?:<\?xml[^>]*>\s*)?(?:(?:<!--.*?-->|<!DOCTYPE[^>]*>|<\?[^>]*>)\s*)*<([A-Za-z][\w:.-]*)",
    re.DOTALL | re.IGNORECASE)
_HTML_ROOT = r"(?i)<(?:html|body)[\s>/]"  # compiled at its first use (an XML-like page only)
_SNIFF = 4096  # characters of the start of a page in which its first element is looked for


def xml_root(text: str) -> str | None:
    """The root element's name when ``text`` is an XML document of a non-HTML vocabulary (RSS,
    Atom, a sitemap, SVG ...) and holds no ``<html>`` or ``<body>``; None for anything else."""
    match = _FIRST_ELEMENT.match(text[:_SNIFF])
    if match is None or match.group(1).lower() not in XML_ROOTS:
        return None
    return None if re.search(_HTML_ROOT, text) else match.group(1)


def xml_root_of_utf8(data: bytes, text: Callable[[], str]) -> str | None:
    """:func:`xml_root` of strict UTF-8 ``data`` whose decoded text ``text()`` gives, read only
    when the start looks like XML: the first element lies in the first ``_SNIFF`` characters,
    at most 4 bytes each, and the start holding ``<html>`` or ``<body>`` settles it too."""
    if xml_root(data[:4 * _SNIFF].decode("utf-8", "ignore")) is None:
        return None
    return xml_root(text())
