"""CSV: one row per page, with trafilatura's columns (tab-separated, as trafilatura writes).

Columns: url, id, fingerprint, hostname, title, image, date, text, comments, license,
pagetype. ``text`` is the main content and ``comments`` (with ``include_comments``) the
page's comments, as plain text; ``fingerprint`` is a hash of the extracted text (16 hex digits of
BLAKE2b), so equal extractions have equal fingerprints; ``id`` and ``license`` are not
known to thresher. Empty fields are written as ``null``. ``header=True`` writes the
column names first.
"""
from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Sequence
from typing import Any

from ..document.blocks import Block
from .extraction import Extraction
from .front_matter import hostname
from .xml import split_kept

COLUMNS = ("url", "id", "fingerprint", "hostname", "title", "image", "date", "text", "comments",
           "license", "pagetype")
NULL = "null"
DELIMITER = "\t"


def _text(blocks: Sequence[Block]) -> str:
    return "\n".join(block.text for block in blocks)


def fingerprint(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest() if text else ""


def row(result: Extraction) -> list[str]:
    """The page's fields, in :data:`COLUMNS` order ("" when unknown)."""
    meta, doc = result.metadata, result.document
    main, comments = split_kept(result)
    text = _text(main)
    values = {
        "url": getattr(meta, "url", "") or doc.url or "", "fingerprint": fingerprint(text),
        "hostname": hostname(meta, doc.url), "title": getattr(meta, "title", "") or result.title,
        "image": getattr(meta, "image", ""), "date": getattr(meta, "date", ""), "text": text,
        "comments": _text(comments), "pagetype": getattr(meta, "page_type", ""),
    }
    return [str(values.get(column, "") or "") for column in COLUMNS]


def render(result: Extraction, *, header: bool = False, **_options: Any) -> str:
    """One CSV row for ``result`` (after a header row with ``header=True``)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=DELIMITER, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    if header:
        writer.writerow(COLUMNS)
    writer.writerow([value or NULL for value in row(result)])
    return out.getvalue().rstrip("\n")
