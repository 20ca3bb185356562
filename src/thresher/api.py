"""The public entry points: :func:`extract` and :func:`extract_result`."""
from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import and_
from types import MappingProxyType
from typing import Any

from . import algorithms
from .algorithms.base import Classification, Context
from .document.blocks import Block, Document, document_of
from .document.budget import check as check_budget, time_budget
from .document.decode import decode
from .document.language import load_identifier, page_language
from .filters import (
    ENTRY,
    NAMED,
    SECTION,
    blocks_with,
    comment_drop,
    comment_headings,
    comment_sections,
    is_forum,
    missing_metadata,
    other_language,
    prune_document,
    repeated_blocks,
    table_blocks,
    unformatted,
    without,
)
from .metadata.record import Metadata
from .options import VALID_NAMES, Options, OutputFormat, SeenTexts, changed, options_from

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
    # Per block: it lies in a comment section (named or found by its structure; see
    # thresher.filters.comment_sections), whether or not the algorithm kept it.
    comment_sections: tuple[bool, ...] = ()
    rejected: str = ""  # why a switch rejected the whole page ("" when it did not)
    # The page-type classifier's probability of each type (empty when metadata was skipped and
    # no comment section needed the page type).
    page_type_probabilities: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    # The blocks of the page's comments (the entries of its comment sections), in page order,
    # whether or not the algorithm kept them; none on a forum page, whose posts are content.
    comment_entries: tuple[int, ...] = ()

    @property
    def comments(self) -> str:
        """The page's comments as plain text, a paragraph per block ("" when it has none)."""
        from .render.text import comments_text

        return comments_text(self)

    @property
    def page_type(self) -> str:
        """The predicted page type (article, collection, documentation, forum, listing, product
        or service); "" when the metadata pass was skipped."""
        return self.metadata.page_type

    @property
    def blocks(self) -> Sequence[Block]:
        return self.document.blocks

    @property
    def labels(self) -> tuple[bool, ...]:
        return self.classification.labels

    @property
    def kept(self) -> list[Block]:
        blocks = self.document.blocks
        return [blocks[i] for i, keep in enumerate(self.labels) if keep]

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


def _commented(doc: Document, classification: Classification, sections: bytes, in_section: Sequence[bool],
               forum: bool, options: Options) -> Classification:
    """``classification`` without its comment blocks: on a forum page (whose posts are the
    content) the kept blocks of named sections unless ``include_comments`` or they are most
    of the text; on any other page every block of a comment section and a trailing
    "Comments" title (with ``include_comments`` the comments are written after the main
    content, from ``Result.comment_entries``). ``sections``: the bits of
    :func:`~thresher.filters.comment_sections`, one byte per block; ``in_section``: their
    ``SECTION`` bit."""
    labels = classification.labels
    if forum:
        if options.include_comments:
            return classification
        named = [keep and bits & NAMED > 0 for keep, bits in zip(labels, sections)]
        return without(classification, comment_drop(doc, labels, named))
    classification = without(classification, list(map(and_, labels, in_section)))
    return without(classification, comment_headings(doc, classification.labels, in_section))


def _filtered(doc: Document, classification: Classification, options: Options) -> Classification:
    """The post-filters of the content switches other than comments (they only drop blocks)."""
    if not options.include_tables:
        classification = without(classification, table_blocks(doc))
    return classification


def _rejected(meta: Any, lang: str, url: str | None, options: Options) -> str:
    why = missing_metadata(meta, url) if options.only_with_metadata else ""
    return why or other_language(lang, options.target_language)


def _switches(call: Mapping[str, Any], options: Options | None) -> Options:
    """The :class:`Options` of a call of :func:`extract` or :func:`extract_result`: ``options``
    (or the defaults) with the switches the call set. ``call`` is the function's ``locals()``
    before anything else is bound; every keyword of the two signatures but ``options``,
    ``metadata``, ``explain`` and ``attributes`` is a switch (tests/test_api.py checks them
    against :class:`Options`)."""
    return options_from(changed({name: value for name, value in call.items() if name in VALID_NAMES}), options)


def _check_url(url: object) -> None:
    if url is not None and not isinstance(url, str):
        raise TypeError(f"url must be the page's address as a str, or None; got {type(url).__name__} {url!r:.100}")


def extract_result(
    html: bytes | str,
    url: str | None = None,
    *,
    options: Options | None = None,
    metadata: bool = True,
    explain: bool = True,
    attributes: bool = True,
    algorithm: str = algorithms.DEFAULT,
    output: OutputFormat = "text",
    output_format: OutputFormat | None = None,
    language: str | None = None,
    params: object = None,
    model: str | os.PathLike[str] | None = None,
    content_type: str | None = None,
    include_comments: bool = False,
    include_tables: bool = True,
    include_images: bool = False,
    include_links: bool = False,
    links: bool | None = None,
    include_formatting: bool | None = None,
    favor_precision: bool = False,
    favor_recall: bool = False,
    with_metadata: bool = False,
    only_with_metadata: bool = False,
    target_language: str | None = None,
    deduplicate: bool | SeenTexts = False,
    prune: str | Sequence[str] = (),
    blocks: bool = False,
    indent: int | None = None,
    timeout: float | None = None,
) -> Result:
    """Decode ``html``, parse it once, classify every block and collect the metadata: the whole
    :class:`Result`, to render (:meth:`Result.render`) or to inspect block by block.

    The switches are :func:`extract`'s, with the same meanings and defaults; ``output`` and the
    renderers' switches are kept in ``Result.options`` for :meth:`Result.render`. Three more
    say what to compute:

    * ``metadata`` (True): False skips the metadata pass (unless a switch needs it), and
      language identification too when the algorithm does not use it (``Result.language`` is
      then the requested language or "").
    * ``explain`` (True): False lets algorithms leave ``classification.reasons`` empty.
    * ``attributes`` (True): False builds the document without element attributes when nothing
      needs them (only plain-text rendering is then faithful).

    A page that a switch rejects (``only_with_metadata``, ``target_language``) keeps no block
    and says why in ``Result.rejected``. Raises :class:`thresher.errors.InputError` for input
    that is not a page (a ``str`` without markup among them: read a file first),
    :class:`thresher.errors.OptionError` for a switch value it cannot take and
    :class:`TypeError` for an unknown keyword or a value of the wrong type.
    """
    opts = _switches(locals(), options)
    _check_url(url)
    with time_budget(opts.timeout):
        return _extract_result(html, url, opts, metadata, explain, attributes)


def _extract_result(html: bytes | str, url: str | None, opts: Options, metadata: bool, explain: bool,
                    attributes: bool) -> Result:
    """:func:`extract_result` under the time budget it opened."""
    chosen = algorithms.get(_algorithm_name(opts))
    metadata = metadata or opts.needs_metadata
    clock = time.perf_counter
    t0 = clock()
    decoded = decode(html, opts.content_type)
    check_budget()
    t1 = clock()
    doc = document_of(decoded, url,
                      attributes=attributes or metadata or chosen.needs_attributes or opts.needs_attributes)
    if opts.prune:
        doc = prune_document(doc, opts.prune)
    check_budget()
    t2 = clock()
    wants_language = metadata or chosen.needs_language or bool(opts.target_language)
    lang = page_language(doc, opts.language) if wants_language else (opts.language or "")
    classification = chosen.run(doc, tuned_params(chosen, opts),
                                Context(language=lang, model=opts.model, explain=explain,
                                        source=decoded.text if chosen.needs_source else None))
    sections = comment_sections(doc)
    in_section = blocks_with(sections, SECTION)
    kept = classification.labels
    # The page type says whether comment sections are content (a forum's posts): asked for
    # only when a section's blocks are kept or its comments are wanted, or for the metadata.
    commented = any(map(and_, kept, in_section)) or (
        opts.include_comments and any(bits & ENTRY for bits in sections))
    types: Mapping[str, float] = MappingProxyType({})
    if metadata or commented:
        # The page-type classifier loads with the first page that needs it.
        from .inference.pagetype import page_type_probabilities, predicted_type

        types = page_type_probabilities(doc)
    forum = commented and is_forum(kept, in_section, predicted_type(types))
    classification = _filtered(doc, _commented(doc, classification, sections, in_section, forum, opts), opts)
    entries = () if forum else tuple(compress(range(len(sections)), blocks_with(sections, ENTRY)))
    check_budget()
    t3 = clock()
    if metadata:
        from .metadata import extract_metadata  # the field readers load with the first page that needs them

        meta = extract_metadata(doc, lang, page_type=predicted_type(types))
    else:
        meta = Metadata(title=doc.title, language=lang, url=url or "")
    check_budget()
    t4 = clock()
    rejected = _rejected(meta, lang, url, opts)
    if rejected:
        classification = without(classification, [True] * len(doc.blocks))
    elif opts.seen is not None:
        classification = without(classification, repeated_blocks(doc.blocks, classification.labels, opts.seen))
    timings = MappingProxyType({"decode": t1 - t0, "parse": t2 - t1, "classify": t3 - t2, "metadata": t4 - t3})
    return Result(doc, classification, chosen.name, lang, meta, timings, opts, tuple(in_section), rejected,
                  types, entries)


def page_type(html: bytes | str, url: str | None = None, *,
              content_type: str | None = None) -> tuple[str, Mapping[str, float]]:
    """The page's predicted type and the probability of each type, without extracting: decode,
    parse and classify the page only (for routing a crawl). Raises
    :class:`thresher.errors.InputError` for input that is not a page."""
    _check_url(url)
    decoded = decode(html, content_type)
    doc = document_of(decoded, url)
    from .inference.pagetype import page_type_probabilities, predicted_type

    probabilities = page_type_probabilities(doc)
    return predicted_type(probabilities), probabilities


# A page every algorithm reads without error, whose extraction loads the algorithm's model files.
_PRELOAD_PAGE = b"<html><head><title>thresher</title></head><body><p>A paragraph of text.</p></body></html>"


def preload(algorithm: str = algorithms.DEFAULT, model: str | None = None, language: str | None = None) -> None:
    """Load now what a first extraction with these options loads on demand: the algorithm's
    model files and, unless ``language`` is given or the algorithm reads none, the language
    identifier. py3langid's model takes tens of milliseconds to load (about half a second the
    first time on a machine, which writes thresher's uncompressed copy of it), which otherwise
    falls on the first page whose language is not plainly English, however late it comes.
    For servers and batch workers that start once and extract many pages; extraction works
    the same without it."""
    chosen = algorithms.get(algorithm)
    if chosen.needs_language and not language:
        load_identifier()
    extract_result(_PRELOAD_PAGE, algorithm=algorithm, model=model, language=language or "en",
                   metadata=False, explain=False)


def extract(
    html: bytes | str,
    url: str | None = None,
    *,
    options: Options | None = None,
    algorithm: str = algorithms.DEFAULT,
    output: OutputFormat = "text",
    output_format: OutputFormat | None = None,
    language: str | None = None,
    params: object = None,
    model: str | os.PathLike[str] | None = None,
    content_type: str | None = None,
    include_comments: bool = False,
    include_tables: bool = True,
    include_images: bool = False,
    include_links: bool = False,
    links: bool | None = None,
    include_formatting: bool | None = None,
    favor_precision: bool = False,
    favor_recall: bool = False,
    with_metadata: bool = False,
    only_with_metadata: bool = False,
    target_language: str | None = None,
    deduplicate: bool | SeenTexts = False,
    prune: str | Sequence[str] = (),
    blocks: bool = False,
    indent: int | None = None,
    timeout: float | None = None,
) -> str:
    """The main content of a web page, as text or in another ``output`` format.

    ``html`` is the page: ``bytes`` as read from a file or an HTTP response (the encoding is
    found from a byte-order mark, ``content_type``, ``<meta charset>``, else guessed; bytes
    without markup are read as a plain-text page), or a ``str`` of HTML. A ``str`` without
    any markup is refused with :class:`thresher.errors.InputError`: it is most often a file's
    path or a URL, and a file must be read first (``pathlib.Path(p).read_bytes()``). ``url``
    is the page's address (a ``str``): it makes links and images absolute and fills the
    metadata. Every other argument is a keyword; trafilatura's names are accepted where the
    meaning is the same (docs/trafilatura-flags.md has the table).

    * ``options`` (None): a ready :class:`~thresher.options.Options`; the keywords that
      differ from their defaults override it.
    * ``algorithm`` ("thresher"): the extractor (``thresher algorithms`` lists them).
    * ``output`` ("text"; trafilatura's name ``output_format`` is the same switch): text,
      markdown, html, json, xml, xmltei or csv; "txt" is text.
    * ``language`` (None: identified): the page's language, an ISO 639-1 code such as "en";
      it picks the stop lists. A code thresher does not know raises
      :class:`~thresher.errors.OptionError`.
    * ``params`` (None: the algorithm's defaults): the algorithm's frozen ``Params``.
    * ``model`` (None: the shipped one): a model file for a learned algorithm.
    * ``content_type`` (None): the HTTP ``Content-Type`` header, for its charset.
    * ``include_comments`` (False): write the page's comments after the main content (text
      and markdown), as ``comments`` (json, csv), ``<comments>`` (xml) and
      ``<div type="comments">`` (xmltei); with ``algorithm="dragnet"`` it runs
      ``dragnet-comments``. Comment sections are elements whose id or class says comment,
      disqus, respond, reply ..., and lists of entries with an author, a time, reply links
      or avatars (:func:`thresher.filters.comment_sections`). Either way they are never part
      of the main content, except on a forum page, where the posts are the content
      (``Result.page_type``).
    * ``include_tables`` (True): False drops every block inside a ``<table>``.
    * ``include_images`` (False): the content's images in markdown (``![alt](src)``, absolute
      when ``url`` is known), html (``<img>``) and xml/xmltei (``<graphic>``); never in text.
    * ``include_links`` (False; ``links`` is the same switch): links in markdown, html, xml
      and xmltei.
    * ``include_formatting`` (None: on for markdown only): bold and italic in markdown (False
      strips them) and as ``<hi>`` in xml and xmltei.
    * ``favor_precision`` / ``favor_recall`` (False): the flagship keeps the blocks that
      maximise the page's expected F-beta with beta 1/2 or 2 instead of the expected F1:
      fewer, surer blocks, or more of them. They exclude each other.
    * ``with_metadata`` (False): YAML front matter before text and markdown output.
    * ``only_with_metadata`` (False): a page without a title, a date or a URL gives "".
    * ``target_language`` (None): a page in another language (an ISO 639-1 code, checked as
      ``language`` is) gives "".
    * ``deduplicate`` (False): drop blocks whose text was already kept (True: within this
      page; a :class:`~thresher.options.SeenTexts` shared by many calls: across a batch).
    * ``prune`` (none): CSS selectors (a string or a sequence, each may be a comma-separated
      list); the blocks inside matching elements are removed before classification. Any CSS
      selector works (servo's ``selectors`` crate matches them on the page's DOM: combinators,
      attribute operators and the ``i`` flag, ``:not()``, ``:is()``, ``:where()``, ``:has()``,
      ``:nth-child()`` ...); pseudo-elements and state pseudo-classes such as ``:hover`` are
      refused. :class:`thresher.errors.OptionError` for one it cannot read.
    * ``blocks`` (False), ``indent`` (None): json output only: every block's decision, and
      the indentation.
    * ``timeout`` (None: no limit): seconds the extraction and its rendering may take. Past
      them the work stops, in the native core as in Python, with
      :class:`thresher.errors.ExtractionTimeout`; the process stays healthy and the next call
      works.

    Returns "" for a page without main content and for a page a switch rejects. Raises
    :class:`thresher.errors.InputError` for input that is not a page (empty, binary, a PDF,
    a feed, a ``str`` without markup), :class:`thresher.errors.OptionError` for a value a
    switch cannot take, and :class:`TypeError` for an unknown keyword or a value of the
    wrong type (``url=123``, ``include_tables="no"``). Ctrl-C (SIGINT) during a long native
    step raises :class:`KeyboardInterrupt` within a fraction of a second.
    """
    opts = _switches(locals(), options)
    _check_url(url)
    with time_budget(opts.timeout):  # the rendering counts too
        result = extract_result(html, url, options=opts, metadata=opts.needs_metadata,
                                explain=opts.output == "json", attributes=opts.output != "text")
        if result.rejected:
            return ""
        text = result.render(opts.output, **opts.render_options())
        check_budget()
        return text
