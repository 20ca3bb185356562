"""LangChain adapters (extra ``langchain``): :class:`ThresherTransformer` and :class:`ThresherLoader`.

    from thresher.integrations.langchain import ThresherLoader, ThresherTransformer

    docs = ThresherLoader(["page.html", "https://example.org/a"]).load()   # Markdown Documents
    clean = ThresherTransformer(output="text").transform_documents(html_docs)

Both take :func:`thresher.extract`'s switches as keywords (checked when the object is made) and
put the page's title, language and URL (and its author, date, description and page type when
found) in each Document's metadata; keys the metadata already has keep their values.
``on_error="raise"`` (the default) raises :class:`thresher.ThresherError` for a page that cannot
be read or is not a page; ``"keep"`` gives that page an empty Document whose metadata has
``thresher_error``, so no record is lost.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import BaseDocumentTransformer, Document

from ..batch.fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT
from ..errors import ThresherError
from .common import Page, enriched, extract_page, failed, make_options, read_source, url_of

__all__ = ["ThresherLoader", "ThresherTransformer"]


class ThresherTransformer(BaseDocumentTransformer):
    """HTML Documents in, their main content out (Markdown by default, or ``output="text"``)."""

    def __init__(self, *, output: str = "markdown", on_error: str = "raise", **options: Any) -> None:
        self.options = make_options(output, on_error, options)
        self.on_error = on_error

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        return [self._transform(document) for document in documents]

    def _transform(self, document: Document) -> Document:
        try:
            extracted = extract_page(Page(document.page_content, url_of(document.metadata)), self.options)
        except ThresherError as exc:
            if self.on_error == "raise":
                raise
            extracted = failed(exc)
        return Document(page_content=extracted.text, metadata=enriched(document.metadata, extracted),
                        id=document.id)


class ThresherLoader(BaseLoader):
    """Documents of the main content of files (``.gz`` gunzipped) and http(s) URLs, one per source,
    in order; ``metadata["source"]`` is the source as given. ``timeout`` and ``max_bytes`` cap each
    fetch (and ``max_bytes`` each file)."""

    def __init__(self, sources: str | Path | Sequence[str | Path], *, output: str = "markdown",
                 on_error: str = "raise", timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
                 **options: Any) -> None:
        self.sources = [sources] if isinstance(sources, (str, Path)) else list(sources)
        self.options = make_options(output, on_error, options)
        self.on_error, self.timeout, self.max_bytes = on_error, timeout, max_bytes

    def lazy_load(self) -> Iterator[Document]:
        for source in self.sources:
            try:
                extracted = extract_page(read_source(source, timeout=self.timeout, max_bytes=self.max_bytes),
                                         self.options)
            except ThresherError as exc:
                if self.on_error == "raise":
                    raise
                extracted = failed(exc)
            yield Document(page_content=extracted.text, metadata=enriched({"source": str(source)}, extracted))
