"""The metadata record: the facts about a page that :func:`thresher.metadata.extract_metadata` finds."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metadata:
    """Facts about a page; every field is "" (or ``()``) when unknown."""

    title: str = ""
    author: str = ""
    date: str = ""  # publication date, ISO YYYY-MM-DD
    site_name: str = ""
    language: str = ""
    url: str = ""
    description: str = ""
    image: str = ""
    tags: tuple[str, ...] = ()
    page_type: str = ""  # the predicted page type (thresher.inference.pagetype.PAGE_TYPES), "" when not predicted
    declared_type: str = ""  # what the page declares: JSON-LD @type of the main object, else og:type
