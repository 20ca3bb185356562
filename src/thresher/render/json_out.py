"""JSON: the extracted text with the page facts, optionally every block's decision.

``{"title", "language", "url", "algorithm", "page_type", "text", "comments", "metadata"}``
(``comments``: the page's comments with ``include_comments``, else ""), plus with
``blocks=True`` a ``"blocks"`` list of ``{"index", "text", "tag", "label",
"score", "reason"}`` for every block of the page (``score`` and ``reason``
only when the algorithm gave them). Non-ASCII text is written as is.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from . import text as text_renderer
from .comments import comment_view
from .common import clean_text
from .extraction import Extraction


def metadata_dict(metadata: Any) -> dict[str, Any] | None:
    """``metadata`` as a plain dict (dataclasses and mappings), None when absent."""
    if metadata is None:
        return None
    if dataclasses.is_dataclass(metadata) and not isinstance(metadata, type):
        return dataclasses.asdict(metadata)
    if isinstance(metadata, Mapping):
        return dict(metadata)
    return {"value": str(metadata)}


def cleaned(record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``record`` with its text values (and lists of them) through :func:`clean_text`."""
    if record is None:
        return None
    return {key: clean_text(value) if isinstance(value, str)
            else [clean_text(v) if isinstance(v, str) else v for v in value] if isinstance(value, list)
            else value for key, value in record.items()}


def block_records(result: Extraction) -> list[dict[str, Any]]:
    classification = result.classification
    scores, reasons = classification.scores, classification.reasons
    records: list[dict[str, Any]] = []
    for block, label in zip(result.document.blocks, classification.labels):
        record: dict[str, Any] = {"index": block.index, "text": clean_text(block.text), "tag": block.tag,
                                  "label": label}
        if scores is not None:
            record["score"] = scores[block.index]
        if reasons:
            record["reason"] = reasons[block.index]
        records.append(record)
    return records


def render(result: Extraction, *, blocks: bool = False, indent: int | None = None, **options: Any) -> str:
    """``result`` as a JSON object; ``blocks=True`` adds every block's decision."""
    view = comment_view(result)
    payload: dict[str, Any] = {
        "title": clean_text(result.title or ""),
        "language": result.language,
        "url": result.document.url,
        "algorithm": result.algorithm,
        "page_type": getattr(result.metadata, "page_type", ""),
        "text": text_renderer.main_text(result),
        "comments": text_renderer.main_text(view) if view is not None else "",
        "metadata": cleaned(metadata_dict(result.metadata)),
    }
    if blocks:
        payload["blocks"] = block_records(result)
    return json.dumps(payload, ensure_ascii=False, indent=indent, default=str)
