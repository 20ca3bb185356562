"""LlamaIndex adapters (extra ``llama-index``): :class:`ThresherReader` and :class:`ThresherTransform`.

    from thresher.integrations.llama_index import ThresherReader, ThresherTransform

    docs = ThresherReader().load_data(file_paths=["page.html"], urls=["https://example.org/a"])
    pipeline = IngestionPipeline(transformations=[ThresherTransform(), MarkdownNodeParser()])

Both take :func:`thresher.extract`'s switches as keywords (checked when the object is made) and
put the page's title, language and URL (and its author, date, description and page type when
found) in each document's metadata; keys the metadata already has keep their values.
``on_error="raise"`` (the default) raises :class:`thresher.ThresherError` for a page that cannot
be read or is not a page; ``"keep"`` gives it an empty text and ``metadata["thresher_error"]``.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import BaseNode, Document, MetadataMode, TransformComponent
from pydantic import Field, PrivateAttr

from ..batch.fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT
from ..errors import ThresherError
from ..options import Options
from .common import Extracted, Page, enriched, extract_page, failed, make_options, read_source, url_of

__all__ = ["ThresherReader", "ThresherTransform"]


def _extracted(page: Page | None, error: ThresherError | None, options: Options, on_error: str) -> Extracted:
    if error is None:
        assert page is not None
        try:
            return extract_page(page, options)
        except ThresherError as exc:
            error = exc
    if on_error == "raise":
        raise error
    return failed(error)


class ThresherReader(BaseReader):
    """Documents of the main content of files (``.gz`` gunzipped) and http(s) URLs: files first,
    then URLs, one Document each, its ``id_`` the path or URL as given. Files get ``file_path``
    and ``file_name`` in their metadata, URLs ``url`` (the address after redirects).
    ``timeout`` and ``max_bytes`` cap each fetch (and ``max_bytes`` each file)."""

    def __init__(self, *, output: str = "markdown", on_error: str = "raise", timeout: float = DEFAULT_TIMEOUT,
                 max_bytes: int = DEFAULT_MAX_BYTES, **options: Any) -> None:
        self.options = make_options(output, on_error, options)
        self.on_error, self.timeout, self.max_bytes = on_error, timeout, max_bytes

    def lazy_load_data(self, file_paths: Iterable[str | Path] = (),
                       urls: Iterable[str] = (), extra_info: Mapping[str, Any] | None = None) -> Iterator[Document]:
        """One Document per file, then per URL; ``extra_info`` is added to every Document's metadata."""
        sources: list[tuple[str | Path, dict[str, Any]]] = [
            (path, {"file_path": str(path), "file_name": Path(path).name}) for path in file_paths]
        sources += [(url, {"url": url}) for url in urls]
        for source, metadata in sources:
            page, error = None, None
            try:
                page = read_source(source, timeout=self.timeout, max_bytes=self.max_bytes)
            except ThresherError as exc:
                error = exc
            extracted = _extracted(page, error, self.options, self.on_error)
            if page is not None and page.url:
                metadata["url"] = page.url
            yield Document(text=extracted.text, id_=str(source),
                           metadata=enriched({**metadata, **(extra_info or {})}, extracted))

    def load_data(self, file_paths: Iterable[str | Path] = (),
                  urls: Iterable[str] = (), extra_info: Mapping[str, Any] | None = None) -> list[Document]:
        return list(self.lazy_load_data(file_paths, urls, extra_info))


class ThresherTransform(TransformComponent):
    """A transformation for an ingestion pipeline: each node's text, an HTML page, becomes the
    page's main content (Markdown by default, or ``output="text"``); the node keeps its id and
    relationships, and its metadata is enriched. Give it whole documents (before any splitter)."""

    output: str = "markdown"
    on_error: str = "raise"
    options: dict[str, Any] = Field(default_factory=dict)
    _options: Options = PrivateAttr()

    def __init__(self, *, output: str = "markdown", on_error: str = "raise", **options: Any) -> None:
        checked = make_options(output, on_error, options)
        fields: dict[str, Any] = {"output": output, "on_error": on_error, "options": options}
        super().__init__(**fields)
        self._options = checked

    @classmethod
    def class_name(cls) -> str:
        return "ThresherTransform"

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        return [self._transform(node) for node in nodes]

    def _transform(self, node: BaseNode) -> BaseNode:
        page = Page(node.get_content(metadata_mode=MetadataMode.NONE), url_of(node.metadata))
        extracted = _extracted(page, None, self._options, self.on_error)
        changed = node.model_copy()
        changed.set_content(extracted.text)
        changed.metadata = enriched(node.metadata, extracted)
        return changed
