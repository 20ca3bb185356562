"""The public entry points: :func:`extract` and :func:`extract_result`."""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from . import algorithms
from .algorithms.base import Classification, Context
from .document.blocks import Block, Document, build_document
from .document.decode import decode
from .document.language import load_identifier, page_language
from .filters import (
    comment_blocks,
    comment_drop,
    missing_metadata,
    other_language,
    prune_document,
    repeated_blocks,
    table_blocks,
    unformatted,
    without,
)
from .inference.pagetype import page_type_probabilities, predicted_type
from .metadata import Metadata, extract_metadata
from .options import Options, options_from

# The expected F-beta of ``favor_precision`` and ``favor_recall``.
PRECISION_BETA, RECALL_BETA = 0.5, 2.0


@dataclass(frozen=True)
class Result:
    """Everything one extraction produced. Immutable; render it with :meth:`render`."""

    document: Document
    classification: Classification
    algorithm: str
    language: str
    metadata: Metadata
    timings: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))  # seconds per stage
    options: Options = field(default_factory=Options)
    comments: tuple[bool, ...] = ()  # per block: the algorithm kept it and it lies in a comment section
    rejected: str = ""  # why a switch rejected the whole page ("" when it did not)
    # The page-type classifier's probability of each type (empty when metadata was skipped).
    page_type_probabilities: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def page_type(self) -> str:
        """The predicted page type (article, collection, documentation, forum, listing, product
        or service); "" when the metadata pass was skipped."""
        return self.metadata.page_type

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
        return self.metadata.title or self.document.title

    @property
    def text(self) -> str:
        return self.render("text")

    def render(self, output: str = "text", **options: Any) -> str:
        """The kept blocks as ``output``; YAML front matter first under ``with_metadata``."""
        from .render import render
        from .render.front_matter import with_front_matter

        plain = output == "markdown" and not self.options.formatting
        source = dataclasses.replace(self, document=unformatted(self.document)) if plain else self
        text = render(source, output, **options)
        return with_front_matter(self, output, text)


def _algorithm_name(options: Options) -> str:
    """The algorithm to run: ``dragnet`` has a model of its own that keeps user comments."""
    if options.include_comments and options.algorithm == "dragnet":
        return "dragnet-comments"
    return options.algorithm


def tuned_params(chosen: algorithms.Algorithm, options: Options) -> Any:
    """``options.params`` with ``favor_precision`` / ``favor_recall`` applied: an expected
    F-beta decoding (beta 1/2 or 2) for algorithms whose params have ``beta``."""
    if not (options.favor_precision or options.favor_recall):
        return options.params
    params = chosen.params_type() if options.params is None else options.params
    if not any(f.name == "beta" for f in dataclasses.fields(params)):
        return params
    return dataclasses.replace(params, beta=PRECISION_BETA if options.favor_precision else RECALL_BETA)


def _filtered(doc: Document, classification: Classification, comments: np.ndarray,
              options: Options) -> Classification:
    """The post-filters of the content switches (they only ever drop blocks)."""
    if not options.include_comments:
        classification = without(classification, comment_drop(doc, classification.labels, comments))
    if not options.include_tables:
        classification = without(classification, table_blocks(doc))
    return classification


def _rejected(meta: Any, lang: str, url: str | None, options: Options) -> str:
    why = missing_metadata(meta, url) if options.only_with_metadata else ""
    return why or other_language(lang, options.target_language)


def extract_result(html: bytes | str, url: str | None = None, *, options: Options | None = None,
                   metadata: bool = True, explain: bool = True, attributes: bool = True,
                   **keywords: Any) -> Result:
    """Decode, parse once, classify every block, and collect metadata.

    ``keywords`` are :func:`extract`'s switches (or pass a ready :class:`~thresher.options.Options`
    as ``options``; keywords override it). With ``metadata=False`` the metadata pass is skipped
    (unless a switch needs it), and so is language identification when the algorithm does not
    use it (``Result.language`` is then the requested language or ""). With ``explain=False``
    algorithms may leave ``classification.reasons`` empty. ``attributes=False`` builds the
    document without element attributes when nothing needs them (only plain-text rendering is
    then faithful). A page a switch rejects (``only_with_metadata``, ``target_language``) keeps
    no block and says why in ``Result.rejected``. Raises :class:`thresher.errors.InputError`
    for input that is not a page and :class:`TypeError` for an unknown keyword.
    """
    opts = options_from(keywords, options)
    chosen = algorithms.get(_algorithm_name(opts))
    metadata = metadata or opts.needs_metadata
    clock = time.perf_counter
    t0 = clock()
    decoded = decode(html, opts.content_type)
    t1 = clock()
    doc = build_document(decoded.text, url, encoding=decoded.encoding, utf8=decoded.utf8,
                         attributes=attributes or metadata or chosen.needs_attributes or opts.needs_attributes)
    if opts.prune:
        doc = prune_document(doc, opts.prune)
    t2 = clock()
    wants_language = metadata or chosen.needs_language or bool(opts.target_language)
    lang = page_language(doc, opts.language) if wants_language else (opts.language or "")
    classification = chosen.run(doc, tuned_params(chosen, opts),
                                Context(language=lang, model=opts.model, source=decoded.text, explain=explain))
    # Only kept blocks can be dropped or shown as comments: the others are not looked at.
    comments = comment_blocks(doc, only=classification.labels)
    classification = _filtered(doc, classification, comments, opts)
    t3 = clock()
    types = page_type_probabilities(doc) if metadata else MappingProxyType({})
    meta = extract_metadata(doc, lang, page_type=predicted_type(types)) if metadata else \
        Metadata(title=doc.title, language=lang, url=url or "")
    t4 = clock()
    rejected = _rejected(meta, lang, url, opts)
    if rejected:
        classification = without(classification, np.ones(len(doc.blocks), bool))
    elif opts.seen is not None:
        classification = without(classification, repeated_blocks(doc.blocks, classification.labels, opts.seen))
    timings = MappingProxyType({"decode": t1 - t0, "parse": t2 - t1, "classify": t3 - t2, "metadata": t4 - t3})
    return Result(doc, classification, chosen.name, lang, meta, timings, opts, tuple(comments.tolist()), rejected,
                  types)


def page_type(html: bytes | str, url: str | None = None, *,
              content_type: str | None = None) -> tuple[str, Mapping[str, float]]:
    """The page's predicted type and the probability of each type, without extracting: decode,
    parse and classify the page only (for routing a crawl). Raises
    :class:`thresher.errors.InputError` for input that is not a page."""
    decoded = decode(html, content_type)
    doc = build_document(decoded.text, url, encoding=decoded.encoding, utf8=decoded.utf8)
    probabilities = page_type_probabilities(doc)
    return predicted_type(probabilities), probabilities


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


def extract(html: bytes | str, url: str | None = None, *, options: Options | None = None,
            **keywords: Any) -> str:
    """Main content of a page as ``output``: text (default), markdown, html, json, xml, xmltei or csv.

    Keyword arguments (or a ready :class:`~thresher.options.Options` as ``options``):

    * ``algorithm``, ``language``, ``params``, ``model``, ``content_type``: as before.
    * ``include_comments`` (False): keep blocks of comment sections (elements whose id or class
      says comment, disqus, respond, reply ...); with ``algorithm="dragnet"`` it runs
      ``dragnet-comments``. Otherwise comment blocks are kept as the algorithm decides.
    * ``include_tables`` (True): False drops every block inside a ``<table>``.
    * ``include_images`` (False): the content's images in markdown (``![alt](src)``, absolute
      when the page URL is known), html (``<img>``) and xml/xmltei (``<graphic>``); never in text.
    * ``include_links`` (False; alias ``links``): links in markdown, html, xml and xmltei.
    * ``include_formatting`` (None: the output's default, on for markdown only): bold and
      italic in markdown (False strips them) and as ``<hi>`` in xml and xmltei.
    * ``favor_precision`` / ``favor_recall``: the flagship's expected-F1 cut becomes an
      expected F-beta cut (beta 1/2 or 2): fewer, surer blocks or more of them.
    * ``with_metadata``: YAML front matter before text and markdown output.
    * ``only_with_metadata``: a page without title, date or URL gives "".
    * ``target_language``: a page in another language (ISO 639-1) gives "".
    * ``deduplicate``: drop blocks whose text was already kept (True: within this page; pass a
      :class:`~thresher.options.SeenTexts` shared by many calls for a batch).
    * ``prune``: CSS selectors (a string or a sequence); matching elements' blocks are removed
      before classification (see :mod:`thresher.document.selectors` for the syntax).
    * ``blocks``, ``indent``: json output details.

    An unknown keyword raises :class:`TypeError`; input that is not a page (empty, binary, PDF)
    raises :class:`thresher.errors.InputError`; a page with no main content gives "".
    """
    opts = options_from(keywords, options)
    result = extract_result(html, url, options=opts, metadata=opts.needs_metadata,
                            explain=opts.output == "json", attributes=opts.output != "text")
    if result.rejected:
        return ""
    return result.render(opts.output, **opts.render_options())
