"""A sanitised copy of the original page for the report's page view, kept text outlined.

The page is re-serialised from :class:`html.parser.HTMLParser` events: scripts, styles'
external references, event handlers, frames, objects, forms' targets and every attribute
that loads a resource are dropped; the rest of the markup stays so the page looks roughly
as it did. The report shows it in an ``<iframe sandbox srcdoc=...>`` whose content
security policy forbids any request, so what slips through here still cannot run or load.

Text runs are matched to blocks in reading order (each run is looked for in the blocks'
joined text from where the previous one was found); a run inside a kept block is wrapped
in ``<mark class="thresher-keep" data-b=N>``, inside a dropped one in ``<span
class="thresher-drop" data-b=N>``.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser

DROPPED_ELEMENTS = frozenset(
    "script iframe frame frameset object embed applet base link meta noscript template "
    "audio video source track portal".split())
VOID = frozenset("area br col hr img input wbr param keygen".split())
RESOURCE_ATTRIBUTES = frozenset(
    "src srcset href action formaction background poster data codebase cite longdesc "
    "manifest ping lowsrc dynsrc xlink:href".split())
_CSS_URL = re.compile(r"url\s*\([^)]*\)|@import[^;]*;?|expression\s*\(", re.IGNORECASE)
_SEARCH_WINDOW = 20_000  # characters ahead of the last match a run is looked for in
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
OUTLINE_CSS = (".thresher-keep{background:rgba(46,160,67,.18);outline:2px solid #2ea043;color:inherit}"
               ".thresher-drop{opacity:.55}")


@dataclass(frozen=True)
class BlockText:
    """The blocks' texts joined with newlines, and where each block starts in it."""

    joined: str
    starts: tuple[int, ...]

    @staticmethod
    def of(texts: Sequence[str]) -> BlockText:
        starts, position = [], 0
        for text in texts:
            starts.append(position)
            position += len(text) + 1
        return BlockText("\n".join(texts), tuple(starts))

    def block_at(self, position: int) -> int:
        return max(0, bisect_right(self.starts, position) - 1)


def clean_css(css: str) -> str:
    """CSS without ``url(...)``, ``@import`` or ``expression(...)``."""
    return _CSS_URL.sub("", css)


class _Sanitiser(HTMLParser):
    def __init__(self, blocks: BlockText, labels: Sequence[bool]) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks, self.labels = blocks, labels
        self.out: list[str] = []
        self.skipping: list[str] = []  # open dropped elements whose content is dropped too
        self.in_style = False
        self.cursor = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping or tag in DROPPED_ELEMENTS:
            if tag not in VOID and tag not in ("base", "link", "meta", "source", "track"):
                self.skipping.append(tag)
            return
        self.in_style = tag == "style"
        self.out.append(f"<{tag}{_attributes(attrs)}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.skipping and tag not in DROPPED_ELEMENTS:
            self.out.append(f"<{tag}{_attributes(attrs)}>")

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
            return
        if tag in DROPPED_ELEMENTS or tag in VOID:
            return
        self.in_style = False
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.in_style:
            self.out.append(clean_css(data).replace("</", "<\\/"))
            return
        self.out.append(self._marked(data))

    def _marked(self, data: str) -> str:
        needle = " ".join(data.split())
        if len(needle) < 2 or not self.labels:
            return escape(data, quote=False)
        found = self.blocks.joined.find(needle, self.cursor, self.cursor + _SEARCH_WINDOW + len(needle))
        if found < 0:
            return escape(data, quote=False)
        self.cursor = found + len(needle)
        block = self.blocks.block_at(found)
        kind, tag = ("thresher-keep", "mark") if self.labels[block] else ("thresher-drop", "span")
        return f'<{tag} class="{kind}" data-b="{block}">{escape(data, quote=False)}</{tag}>'


def _attributes(attrs: list[tuple[str, str | None]]) -> str:
    parts = []
    for name, value in attrs:
        name = name.lower()
        if name.startswith("on") or name in RESOURCE_ATTRIBUTES or not re.fullmatch(r"[a-z][a-z0-9_:.-]*", name):
            continue
        if name == "style":
            value = clean_css(value or "")
        parts.append(f' {name}="{escape(value or "", quote=True)}"' if value else f" {name}")
    return "".join(parts)


def sanitised_page(source: str, texts: Sequence[str], labels: Sequence[bool]) -> str:
    """``source`` made inert, with each block's text runs marked kept or dropped, and a
    content security policy that forbids every request."""
    parser = _Sanitiser(BlockText.of(texts), labels)
    parser.feed(source)
    parser.close()
    head = (f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
            f"<style>{OUTLINE_CSS}</style>")
    return head + "".join(parser.out)
