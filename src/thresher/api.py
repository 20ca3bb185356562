"""The public entry points: :func:`extract` and :func:`extract_result`."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from . import algorithms
from .algorithms.base import Classification, Context
from .blocks import Block, Document, build_document
from .decode import decode
from .language import load_identifier, page_language
from .metadata import Metadata, extract_metadata

FORMATS = ("text", "markdown", "html", "json")


@dataclass(frozen=True)
class Result:
    """Everything one extraction produced. Immutable; render it with :meth:`render`."""

    document: Document
    classification: Classification
    algorithm: str
    language: str
    metadata: Any  # thresher.metadata.Metadata
    timings: dict = field(default_factory=dict)

    @property
    def blocks(self) -> tuple[Block, ...]:
        return self.document.blocks

    @property
    def labels(self) -> tuple[bool, ...]:
        return self.classification.labels

    @property
    def kept(self) -> list[Block]:
        return [b for b, keep in zip(self.document.blocks, self.labels) if keep]

    @property
    def title(self) -> str:
        return getattr(self.metadata, "title", "") or self.document.title

    @property
    def text(self) -> str:
        return self.render("text")

    def render(self, output: str = "text", **options) -> str:
        from .render import render

        return render(self, output, **options)


def extract_result(html: bytes | str, url: str | None = None, *, algorithm: str = algorithms.DEFAULT,
                   language: str | None = None, params: Any = None, model: str | None = None,
                   content_type: str | None = None, metadata: bool = True, explain: bool = True,
                   attributes: bool = True) -> Result:
    """Decode, parse once, classify every block, and collect metadata.

    With ``metadata=False`` the metadata pass is skipped, and so is language
    identification when the algorithm does not use it (``Result.language`` is
    then the requested language or ""). With ``explain=False`` algorithms may
    leave ``classification.reasons`` empty. ``attributes=False`` builds the document
    without element attributes when neither the algorithm nor the metadata needs
    them (only plain-text rendering is then faithful). Raises
    :class:`thresher.errors.InputError` for input that is not a page.
    """
    chosen = algorithms.get(algorithm)
    clock = time.perf_counter
    t0 = clock()
    decoded = decode(html, content_type)
    t1 = clock()
    doc = build_document(decoded.text, url, encoding=decoded.encoding,
                         attributes=attributes or metadata or chosen.needs_attributes, utf8=decoded.utf8)
    t2 = clock()
    lang = page_language(doc, language) if (metadata or chosen.needs_language) else (language or "")
    classification = chosen.run(doc, params, Context(language=lang, model=model, source=decoded.text,
                                                            explain=explain))
    t3 = clock()
    meta = extract_metadata(doc, lang) if metadata else Metadata(title=doc.title, language=lang, url=url or "")
    t4 = clock()
    timings = {"decode": t1 - t0, "parse": t2 - t1, "classify": t3 - t2, "metadata": t4 - t3}
    return Result(doc, classification, chosen.name, lang, meta, timings)


# A page every algorithm reads without error, whose extraction loads the algorithm's model files.
_PRELOAD_PAGE = b"<html><head><title>thresher</title></head><body><p>A paragraph of text.</p></body></html>"


def preload(algorithm: str = algorithms.DEFAULT, model: str | None = None, language: str | None = None) -> None:
    """Load now what a first extraction with these options loads on demand: the algorithm's
    model files and, unless ``language`` is given or the algorithm reads none, the language
    identifier. py3langid's model alone takes about half a second to read, which otherwise
    falls on the first page whose language is not plainly English, however late it comes.
    For servers and batch workers that start once and extract many pages; extraction works
    the same without it."""
    chosen = algorithms.get(algorithm)
    if chosen.needs_language and not language:
        load_identifier()
    extract_result(_PRELOAD_PAGE, algorithm=algorithm, model=model, language=language or "en",
                   metadata=False, explain=False)


def extract(html: bytes | str, url: str | None = None, *, algorithm: str = algorithms.DEFAULT,
            output: str = "text", language: str | None = None, params: Any = None,
            model: str | None = None, content_type: str | None = None, **render_options) -> str:
    """Main content of a page as ``output`` (text, markdown, html or json).

    Input that is not a page (empty, binary, PDF) raises
    :class:`thresher.errors.InputError`; a page with no main content gives "".
    """
    if output not in FORMATS:
        raise ValueError(f"unknown output format {output!r}; choose from {', '.join(FORMATS)}")
    result = extract_result(html, url, algorithm=algorithm, language=language, params=params,
                            model=model, content_type=content_type, metadata=output in ("json", "html"),
                            explain=output == "json", attributes=output != "text")
    return result.render(output, **render_options)
