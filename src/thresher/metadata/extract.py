"""The assembly: every field of :class:`~thresher.metadata.record.Metadata` from one document."""
from __future__ import annotations

from functools import cache, partial

from ..document.blocks import Document
from ..inference.pagetype import page_type_probabilities, predicted_type
from .author import _author
from .cues import _scan_page
from .dates import _date_with_htmldate, _publication_date
from .labels import _DESCRIPTION_META, _IMAGE_META, _language, _page_type, _tags
from .record import Metadata
from .site import _canonical_url, _host, _organisation_names, _site_names
from .sources import _first, _index_meta, _linked_data, _meta_first
from .title import _title, site_keys


def extract_title(doc: Document) -> str:
    """The title :func:`extract_metadata` finds, alone: the page's h1 when it agrees with a
    declared title, else the first declared title, without site-name segments."""
    meta = _index_meta(doc)
    ld = _linked_data(doc)
    keys = site_keys(_site_names(meta, ld) + _organisation_names(ld), _host(doc.url))
    return _title(doc, meta, ld, keys)


def extract_metadata(doc: Document, language: str = "", *, use_htmldate: bool = False,
                     html: str | None = None, page_type: str | None = None) -> Metadata:
    """Metadata of ``doc``; ``language`` (ISO 639-1) overrides the page's own.

    ``page_type`` is the page's type when the caller has predicted it already; None predicts
    it with the shipped page-type model (:mod:`thresher.inference.pagetype`). What the page
    declares (JSON-LD ``@type``, ``og:type``) is ``declared_type``.

    With ``use_htmldate`` and the page's ``html`` (the decoded text), htmldate
    supplies the date when the document itself has none. It parses the page a
    second time, so it is off by default.
    """
    meta = _index_meta(doc)
    ld = _linked_data(doc)
    scan = cache(partial(_scan_page, doc))  # scanned on first need only, at most once
    site_names = _site_names(meta, ld)
    keys = site_keys(site_names + _organisation_names(ld), _host(doc.url))
    lang = _language(doc, meta, language)
    date = _publication_date(doc, meta, ld, scan, dayfirst=bool(lang) and lang != "en")
    if not date and use_htmldate and html:
        date = _date_with_htmldate(html, doc.url)
    return Metadata(
        title=_title(doc, meta, ld, keys),
        author=_author(doc, meta, ld, scan),
        date=date,
        site_name=_first(site_names) or _host(doc.url),
        language=lang,
        url=_canonical_url(doc, meta),
        description=_meta_first(meta, _DESCRIPTION_META),
        image=_meta_first(meta, _IMAGE_META),
        tags=_tags(meta),
        page_type=predicted_type(page_type_probabilities(doc)) if page_type is None else page_type,
        declared_type=_page_type(meta, ld),
    )
