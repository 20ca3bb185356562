"""Page metadata: title, author, publication date, site name and friends.

Everything is read from the already-built :class:`~thresher.document.blocks.Document`
(head meta pairs, JSON-LD objects, element columns and blocks); the page is
never parsed again. Each field takes the first usable value of its sources:

* **title**: the page's ``<h1>`` when it agrees with a declared title (word
  overlap of at least :data:`H1_MIN_SIMILARITY`, or equal to the first
  segment of one), else ``og:title``, ``twitter:title``, the JSON-LD
  ``headline``/``name`` of the main Article-like object, then ``<title>``.
  Site-name segments (" | Site", " - Site", " — Site") are removed when
  they name the site (site names, host labels, acronyms) or are short.
* **author**: JSON-LD ``author``/``creator`` (string, object, ``@id``
  reference or list, joined with ", "), ``author``/``article:author``/
  ``parsely-author``/``dc.creator``-style meta, a "Written by" Twitter card
  label, then bylines near the headline: ``rel=author`` links,
  ``itemprop=author``, author/byline class tokens, links to author pages and
  "By ..." lines. Values are cleaned of "By", trailing dates and roles.
* **date** (publication): JSON-LD ``datePublished``, publication-date meta,
  then ``itemprop=datePublished``, ``<time>`` and dates written near the
  headline, as ISO ``YYYY-MM-DD``. ``htmldate`` is an opt-in fallback
  (``use_htmldate=True`` with the decoded ``html``): it parses the page again
  with lxml, which costs far more than all of the above.
* **site_name**: ``og:site_name``, ``application-name``, JSON-LD
  ``publisher.name`` / ``WebSite`` name, else the URL host without "www.".
* **language**: the caller's, else ``<html lang>``, else declared meta.
* **description**, **url** (``og:url``, canonical link, else the document's),
  **image**, **tags** (``article:tag``, keywords) and **declared_type** (the main
  JSON-LD object's ``@type``, else ``og:type``).
* **page_type**: one of seven types (article, collection, documentation, forum,
  listing, product, service) predicted by the page-type classifier
  (:mod:`thresher.inference.pagetype`), whatever the page declares.

In-page cues are only looked for within :data:`CUE_WINDOW` blocks of the
first h1: further away, a name or date belongs to a comment, a teaser or a
sidebar far more often than to the page.

One module per subject: :mod:`.sources` (head meta and JSON-LD), :mod:`.cues`
(in-page evidence), :mod:`.title`, :mod:`.author`, :mod:`.dates`, :mod:`.site`,
:mod:`.labels` (tags, type, language), and :mod:`.extract`, which assembles the
:class:`~.record.Metadata` record.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._lazy import attribute as _attribute

if TYPE_CHECKING:
    from .author import clean_author
    from .dates import find_date_in_text, normalize_date
    from .extract import extract_metadata, extract_title
    from .record import Metadata
    from .title import site_keys, strip_site_name

__all__ = ["Metadata", "clean_author", "extract_metadata", "extract_title", "find_date_in_text", "normalize_date",
           "site_keys", "strip_site_name"]

# Each name's module, imported when the name is first read: an extraction without metadata
# needs the record type only, not the field readers and their patterns.
_LAZY = {"Metadata": ".record", "clean_author": ".author", "extract_metadata": ".extract", "extract_title": ".extract",
         "find_date_in_text": ".dates", "normalize_date": ".dates", "site_keys": ".title",
         "strip_site_name": ".title"}


def __getattr__(name: str) -> Any:
    return _attribute(__name__, _LAZY, globals(), name)
