"""XML: thresher's own schema, and TEI (``xmltei``).

``xml`` (thresher's schema)::

    <doc title=".." author=".." date=".." url=".." hostname=".." sitename=".."
         description=".." language=".." image=".." pagetype=".." tags="a,b" algorithm="..">
      <main>
        <head rend="h2">Heading</head>
        <p>Text with <hi rend="#b">bold</hi>, <hi rend="#i">italic</hi>, <ref target="url">a link</ref>
           and <graphic src="url" alt=".."/></p>
        <list><item>..</item></list>
        <table><row><cell role="head">..</cell><cell>..</cell></row></table>
        <quote>..</quote>
        <code>..</code>
      </main>
      <comments>(the same elements, for the page's comments)</comments>
    </doc>

Only known metadata becomes attributes; ``<comments>`` is there with ``include_comments``
when the page has comments (``Result.comment_entries``).
``<hi>`` needs ``formatting``, ``<ref>`` ``links``, ``<graphic>`` ``images``.

``xmltei`` is a TEI document (``TEI`` > ``teiHeader`` and ``text/body``) with the main
content in ``<div type="entry">`` and comments in ``<div type="comments">``; headings
inside a division are ``<ab type="header" rend="h2">`` (TEI allows ``<head>`` only at
a division's start), quotations are wrapped in ``<p>``, code is ``<ab type="code">``,
images ``<graphic url>`` and tables (the corpus DTD has no table module) a
``<list type="table">`` with an item per row, so the document validates against the TEI
corpus DTD.

Both are built with :mod:`xml.etree.ElementTree`; text is stripped of the characters
XML 1.0 cannot hold.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from typing import Any

from ..document.blocks import Block, Document
from .comments import comment_view
from .common import (
    BOLD,
    CODE,
    ITALIC,
    Layout,
    code_run_end,
    code_text,
    heading_level,
    is_cell,
    is_code,
    layout,
    runs,
    safe_url,
    split_space,
)
from .extraction import Extraction
from .front_matter import hostname

TEI_NAMESPACE = "http://www.tei-c.org/ns/1.0"
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# (attribute, Metadata field) of <doc>, in the order they are written.
DOC_ATTRIBUTES = (("title", "title"), ("author", "author"), ("date", "date"), ("url", "url"),
                  ("hostname", "hostname"), ("sitename", "site_name"), ("description", "description"),
                  ("language", "language"), ("image", "image"), ("pagetype", "page_type"))


def clean(text: str) -> str:
    return _NOT_XML.sub("", text)


class Style:
    """What the inline writer emits: formatting, links and images, and the TEI variant."""

    def __init__(self, links: bool, images: bool, formatting: bool, tei: bool) -> None:
        self.links, self.images, self.formatting, self.tei = links, images, formatting, tei


def _append_text(parent: ET.Element, text: str) -> None:
    """Text after ``parent``'s last child (or as its text when it has none)."""
    text = clean(text)
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def _wrapper(parent: ET.Element, kinds: Sequence[str], href: str, base: str | None, style: Style) -> ET.Element:
    """The element a run's text goes in: ``<ref>`` and ``<hi>`` as the style asks."""
    target = parent
    url = safe_url(href, base) if style.links and "a" in kinds else ""
    if url:
        target = ET.SubElement(target, "ref", {"target": clean(url)})
    if style.formatting:
        for rend, marks in (("#b", BOLD), ("#i", ITALIC), ("#t", CODE)):
            if any(k in marks for k in kinds):
                target = ET.SubElement(target, "hi", {"rend": rend})
    return target


def fill_inline(parent: ET.Element, doc: Document, lay: Layout, block: Block, style: Style) -> None:
    """The block's runs of text as ``parent``'s content."""
    for run in runs(doc, lay, block):
        if run.br:
            ET.SubElement(parent, "lb")
            continue
        lead, core, trail = split_space(run.text)
        target = _wrapper(parent, run.kinds, run.href, doc.url, style)
        if target is parent:
            _append_text(parent, lead + core + trail)
        else:
            _append_text(parent, lead)
            target.text = clean(core)
            _append_text(parent, trail)


def block_images(doc: Document, kept: Sequence[Block]) -> dict[int, list[int]]:
    """Kept block index -> the ``img`` elements written after it: each image goes with the
    first kept block inside its nearest block-level ancestor."""
    from ..document.blocks import BLOCK_TAGS

    tags, parents = doc.elements.tags, doc.elements.parents
    first_blocks, end_blocks = doc.elements.first_blocks, doc.elements.end_blocks
    kept_indices = sorted(block.index for block in kept)
    out: dict[int, list[int]] = {}
    for i, tag in enumerate(tags):
        if tag != "img":
            continue
        holder = parents[i]
        while holder >= 0 and tags[holder] not in BLOCK_TAGS:
            holder = parents[holder]
        if holder < 0:
            continue
        first = next((b for b in kept_indices if first_blocks[holder] <= b < end_blocks[holder]), None)
        if first is not None:
            out.setdefault(first, []).append(i)
    return out


def _graphic(parent: ET.Element, doc: Document, element: int, tei: bool) -> None:
    """TEI's ``<graphic url>`` (no alt: the corpus DTD has none), else ``<graphic src alt>``."""
    attrs = doc.elements.attrs[element]
    src = safe_url(attrs.get("src") or attrs.get("data-src"), doc.url)
    if not src:
        return
    if tei:
        ET.SubElement(parent, "graphic", {"url": clean(src)})
        return
    values = {"src": clean(src)}
    alt = clean(" ".join((attrs.get("alt") or "").split()))
    if alt:
        values["alt"] = alt
    ET.SubElement(parent, "graphic", values)


class Writer:
    """Writes kept blocks as elements under a container (``<main>`` or a TEI ``<div>``)."""

    def __init__(self, doc: Document, style: Style, images: dict[int, list[int]]) -> None:
        self.doc, self.style, self.images, self.lay = doc, style, images, layout(doc)

    def paragraph(self, parent: ET.Element, tag: str, block: Block, attrs: dict[str, str] | None = None) -> None:
        element = ET.SubElement(parent, tag, attrs or {})
        fill_inline(element, self.doc, self.lay, block, self.style)
        self.graphics(element, block)

    def graphics(self, element: ET.Element, block: Block) -> None:
        if self.style.images:
            for image in self.images.get(block.index, ()):
                _graphic(element, self.doc, image, self.style.tei)

    def heading(self, parent: ET.Element, block: Block, level: int) -> None:
        if self.style.tei:
            self.paragraph(parent, "ab", block, {"type": "header", "rend": f"h{level}"})
        else:
            self.paragraph(parent, "head", block, {"rend": f"h{level}"})

    def wrapped(self, parent: ET.Element, tag: str) -> ET.Element:
        """A TEI ``<p>`` around phrase-level ``tag`` (quote); the plain schema writes ``tag`` alone."""
        return ET.SubElement(ET.SubElement(parent, "p"), tag) if self.style.tei else ET.SubElement(parent, tag)

    def code(self, parent: ET.Element, blocks: Sequence[Block]) -> None:
        element = ET.SubElement(parent, "ab", {"type": "code"}) if self.style.tei else ET.SubElement(parent, "code")
        element.text = clean(code_text(blocks))

    def table(self, parent: ET.Element, cells: Sequence[Block]) -> None:
        if self.style.tei:
            self.tei_table(parent, cells)
            return
        table = ET.SubElement(parent, "table")
        row_element, row = None, None
        for block in cells:
            source_row = self.lay.row[block.element]
            if row is None or source_row != row_element or source_row < 0:
                row, row_element = ET.SubElement(table, "row"), source_row
            attrs = {"role": "label"} if block.tag == "th" else {}
            self.paragraph(row, "cell", block, attrs)

    def tei_table(self, parent: ET.Element, cells: Sequence[Block]) -> None:
        """The corpus DTD has no table module: a ``<list type="table">``, an item per row
        with its cells' text joined by " | "."""
        table = ET.SubElement(parent, "list", {"type": "table"})
        rows: list[list[str]] = []
        row_element = None
        for block in cells:
            source_row = self.lay.row[block.element]
            if not rows or source_row != row_element or source_row < 0:
                rows.append([])
                row_element = source_row
            rows[-1].append(block.text)
        for row in rows:
            ET.SubElement(table, "item").text = clean(" | ".join(row))

    def items(self, parent: ET.Element, blocks: Sequence[Block]) -> None:
        listing = ET.SubElement(parent, "list")
        for block in blocks:
            self.paragraph(listing, "item", block)

    def write(self, parent: ET.Element, blocks: Sequence[Block]) -> None:
        i = 0
        while i < len(blocks):
            i = self._write_from(parent, blocks, i)

    def _write_from(self, parent: ET.Element, blocks: Sequence[Block], i: int) -> int:
        """Write the group of blocks starting at ``i``; the index after it."""
        block, lay = blocks[i], self.lay
        if is_code(lay, block):
            end = code_run_end(lay.pre, blocks, i)
            self.code(parent, blocks[i:end])
            return end
        if is_cell(block):
            end = self._run_end(blocks, i, lambda b: is_cell(b) and lay.table[b.element] == lay.table[block.element])
            self.table(parent, blocks[i:end])
            return end
        if lay.li[block.element] >= 0 and not block.is_heading:
            holder = lay.lists[block.element]
            end = self._run_end(blocks, i, lambda b: lay.li[b.element] >= 0 and not b.is_heading
                                and lay.lists[b.element] == holder and not is_cell(b) and not is_code(lay, b))
            self.items(parent, blocks[i:end])
            return end
        level = heading_level(self.doc, lay, block)
        if level:
            self.heading(parent, block, level)
        elif lay.quote[block.element] >= 0:
            quote = self.wrapped(parent, "quote")
            fill_inline(quote, self.doc, lay, block, self.style)
            self.graphics(quote, block)
        else:
            self.paragraph(parent, "p", block)
        return i + 1

    @staticmethod
    def _run_end(blocks: Sequence[Block], start: int, same: Callable[[Block], bool]) -> int:
        end = start + 1
        while end < len(blocks) and same(blocks[end]):
            end += 1
        return end


def split_kept(result: Extraction) -> tuple[list[Block], list[Block]]:
    """(main, comments): the kept blocks, and with ``include_comments`` the page's comments."""
    view = comment_view(result)
    return result.kept, view.kept if view is not None else []


def metadata_values(result: Extraction) -> list[tuple[str, str]]:
    """(attribute, value) of every known metadata field, with the algorithm last."""
    meta, doc = result.metadata, result.document
    values = []
    for key, name in DOC_ATTRIBUTES:
        value = hostname(meta, doc.url) if name == "hostname" else str(getattr(meta, name, "") or "")
        if name == "url" and not value:
            value = doc.url or ""
        if value:
            values.append((key, clean(" ".join(value.split()))))
    tags = tuple(getattr(meta, "tags", ()) or ())
    if tags:
        values.append(("tags", clean(",".join(tags))))
    return values


def _style(result: Extraction, links: bool, images: bool, formatting: bool | None, tei: bool) -> Style:
    chosen = result.options.formatting if formatting is None else formatting
    return Style(links, images, chosen, tei)


# Elements holding only elements: a line break after each child keeps the output readable
# without touching mixed content (paragraphs keep their text exactly).
CONTAINERS = frozenset({"doc", "main", "comments", "list", "table", "row", "TEI", "teiHeader", "fileDesc",
                        "titleStmt", "publicationStmt", "sourceDesc", "profileDesc", "abstract", "langUsage",
                        "encodingDesc", "appInfo", "application", "text", "body", "div", "textClass"})


def serialize(root: ET.Element) -> str:
    for element in root.iter():
        if element.tag in CONTAINERS and len(element):
            element.text = "\n"
            for child in element:
                child.tail = "\n"
    return ET.tostring(root, encoding="unicode")


def build_xml(result: Extraction, *, links: bool = False, images: bool = False,
              formatting: bool | None = None) -> ET.Element:
    """The ``<doc>`` element of ``result``."""
    main, comments = split_kept(result)
    doc = result.document
    writer = Writer(doc, _style(result, links, images, formatting, tei=False), block_images(doc, result.kept))
    root = ET.Element("doc", dict([*metadata_values(result), ("algorithm", result.algorithm)]))
    writer.write(ET.SubElement(root, "main"), main)
    if comments:
        writer.write(ET.SubElement(root, "comments"), comments)
    return root


def render(result: Extraction, *, links: bool = False, images: bool = False, formatting: bool | None = None,
           **_options: Any) -> str:
    """``result`` in thresher's XML schema (see the module docstring)."""
    return serialize(build_xml(result, links=links, images=images, formatting=formatting))
