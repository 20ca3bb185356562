"""Page metadata (placeholder until the metadata module lands)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metadata:
    title: str = ""
    author: str = ""
    date: str = ""
    site_name: str = ""
    language: str = ""
    url: str = ""
    description: str = ""


def extract_metadata(doc, language: str = "") -> Metadata:
    return Metadata(title=doc.title, language=language, url=doc.url or "")
