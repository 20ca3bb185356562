"""Facts of the page's head that Python reads and hands the core: the structured text of its
JSON-LD and meta descriptions, and the page's JSON-LD and OpenGraph types."""
from __future__ import annotations

from ..document.blocks import Document


def structured_text(doc: Document) -> str:
    """Article body, description and text fields of JSON-LD, plus OpenGraph/meta descriptions
    (what ``structured_overlap`` and ``page_has_structured_text`` read)."""
    parts = [doc.meta_content("og:description", "description", "twitter:description")]
    for obj in doc.json_ld_objects():
        for key in ("articleBody", "description", "text", "reviewBody"):
            value = obj.get(key)
            if isinstance(value, str):
                parts.append(value)
    return " ".join(p for p in parts if p)


def page_types(doc: Document) -> set[str]:
    """The lower-cased JSON-LD ``@type`` values and ``og:type`` of the page (what the
    ``page_type_*`` columns read)."""
    found = set()
    for obj in doc.json_ld_objects():
        kind = obj.get("@type")
        for k in (kind if isinstance(kind, list) else [kind]):
            if isinstance(k, str):
                found.add(k.lower())
    og = doc.meta_content("og:type").lower()
    if og:
        found.add(og)
    return found
