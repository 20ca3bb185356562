"""TEI XML (``xmltei``): a TEI document of the page's metadata and kept blocks.

``TEI`` > ``teiHeader`` (title, author, publisher, the source's URL and date, the
description as an abstract, the language) and ``text/body`` with the main content in
``<div type="entry">`` and, with ``include_comments``, the page's comments in
``<div type="comments">``. The body's elements are :mod:`thresher.render.xml`'s, in
their TEI variant, so the document validates against the TEI corpus DTD.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from .._version import __version__
from .extraction import Extraction
from .xml import Style, Writer, block_images, clean, metadata_values, serialize, split_kept

TEI_NAMESPACE = "http://www.tei-c.org/ns/1.0"


def _text(parent: ET.Element, tag: str, text: str, attrs: dict[str, str] | None = None) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs or {})
    element.text = clean(text)
    return element


def header(result: Extraction) -> ET.Element:
    """The ``teiHeader`` of ``result``'s metadata."""
    values = dict(metadata_values(result))
    head = ET.Element("teiHeader")
    file_desc = ET.SubElement(head, "fileDesc")
    title_stmt = ET.SubElement(file_desc, "titleStmt")
    _text(title_stmt, "title", values.get("title", ""), {"type": "main"})
    if values.get("author"):
        _text(title_stmt, "author", values["author"])
    publication = ET.SubElement(file_desc, "publicationStmt")
    _text(publication, "publisher", values.get("sitename") or values.get("hostname", ""))
    if values.get("url"):
        ET.SubElement(publication, "ptr", {"type": "URL", "target": values["url"]})
    if values.get("date"):
        _text(publication, "date", values["date"])
    source = ET.SubElement(file_desc, "sourceDesc")
    _text(source, "bibl", ", ".join(v for v in (values.get("title"), values.get("sitename"), values.get("date")) if v))
    profile = ET.SubElement(head, "profileDesc")
    abstract = ET.SubElement(profile, "abstract")
    _text(abstract, "p", values.get("description", ""))
    if values.get("language"):
        lang_usage = ET.SubElement(profile, "langUsage")
        _text(lang_usage, "language", values["language"], {"ident": values["language"]})
    if values.get("pagetype"):
        text_class = ET.SubElement(profile, "textClass")
        _text(text_class, "classCode", values["pagetype"], {"scheme": "page_type"})
    encoding = ET.SubElement(head, "encodingDesc")
    app_info = ET.SubElement(encoding, "appInfo")
    application = ET.SubElement(app_info, "application", {"ident": "thresher", "version": __version__})
    _text(application, "label", f"thresher ({result.algorithm})")
    return head


def build_tei(result: Extraction, *, links: bool = False, images: bool = False,
              formatting: bool | None = None) -> ET.Element:
    """The ``TEI`` element of ``result``."""
    main, comments = split_kept(result)
    doc = result.document
    chosen = result.options.formatting if formatting is None else formatting
    writer = Writer(doc, Style(links, images, chosen, tei=True), block_images(doc, result.kept))
    root = ET.Element("TEI", {"xmlns": TEI_NAMESPACE})
    root.append(header(result))
    body = ET.SubElement(ET.SubElement(root, "text"), "body")
    for kind, blocks in (("entry", main), ("comments", comments)):
        division = ET.SubElement(body, "div", {"type": kind})
        writer.write(division, blocks)
        if not len(division):
            ET.SubElement(division, "p")  # a division holds at least one element
    return root


def render(result: Extraction, *, links: bool = False, images: bool = False, formatting: bool | None = None,
           **_options: Any) -> str:
    """``result`` as a TEI document (see the module docstring)."""
    return serialize(build_tei(result, links=links, images=images, formatting=formatting))
