"""thresher as a datatrove extractor step: ``WarcReader → ThresherExtractor → ...``.

Needs the ``datatrove`` extra (``pip install 'thresher[datatrove]'``), imported with this
module. :class:`ThresherExtractor` replaces datatrove's ``Trafilatura`` step::

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter
    from thresher.integrations.datatrove import ThresherExtractor

    LocalPipelineExecutor(pipeline=[WarcReader("crawl/"), ThresherExtractor(timeout=5),
                                    JsonlWriter("out/")], tasks=2, workers=2).run()

Each document's ``text`` holds a page's HTML on the way in and its main content (plain text,
or Markdown with ``output="markdown"``) on the way out; the page's facts go to its
``metadata``. Pages are extracted in the task's own process, each within its time budget:
datatrove's base extractor runs every page in a child process to be able to kill it, which
thresher's budget makes unnecessary (and which the workers of some executors may not start).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.extractors.base import BaseExtractor
from datatrove.utils.logging import logger
from datatrove.utils.typeshelper import StatHints

from ..api import Result, extract_result, preload
from ..batch.pages import DEFAULT_PAGE_TIMEOUT
from ..document.budget import time_budget
from ..errors import ExtractionTimeout
from ..options import Options, options_from

OUTPUTS = ("text", "markdown")
# The metadata keys the step sets on every document it forwards ("" when unknown).
METADATA_KEYS = ("title", "language", "page_type", "author", "date_published", "site_name", "description")


def page_metadata(result: Result) -> dict[str, str]:
    """A page's facts under :data:`METADATA_KEYS`; the publication date is ``date_published``
    (datatrove's readers use ``date`` for the crawl date)."""
    meta = result.metadata
    return {"title": result.title, "language": result.language, "page_type": meta.page_type,
            "author": meta.author, "date_published": meta.date, "site_name": meta.site_name,
            "description": meta.description}


class ThresherExtractor(BaseExtractor):
    """A datatrove pipeline step: HTML documents in, their main content out.

    ``output`` is ``"text"`` or ``"markdown"``; ``timeout`` is each page's time budget in
    seconds (60 by default, as the batch's; ``None``: none), which thresher keeps in this
    process; ``options`` are :func:`thresher.extract`'s switches (``algorithm``,
    ``include_comments``, ``favor_precision``, ``target_language``, ...).

    Like datatrove's own extractors, a document whose extraction fails is dropped and
    counted, never raised: the stats say ``extracted``, ``timeout`` (past its budget),
    ``clean_error`` (thresher could not read it, or any other error), and ``dropped`` (no
    main content, or a switch rejected the page).
    """

    name = "🌾 thresher"

    def __init__(self, output: str = "text", timeout: float | None = DEFAULT_PAGE_TIMEOUT, **options: Any):
        super().__init__(timeout=timeout if timeout is not None else float("inf"))
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, not {output!r}")
        self.options: Options = options_from({**options, "output": output, "timeout": timeout})
        self._warned_error: bool = False

    def extract_page(self, html: str | bytes, url: str | None = None) -> tuple[str, Result]:
        """The page's main content as this step's output, and the whole result (within the budget)."""
        opts = self.options
        with time_budget(opts.timeout):  # the rendering counts too
            result = extract_result(html, url, options=opts, explain=False)
            return ("" if result.rejected else result.render(opts.output, **opts.render_options())), result

    def extract(self, text: str) -> str:
        """The main content of one page of HTML (datatrove's extractor interface)."""
        return self.extract_page(text)[0]

    def _failed(self, label: str, doc: Document, exc: Exception) -> None:
        self.stat_update(label)
        if not self._warned_error:
            logger.warning(f"thresher could not extract document {doc.id}: {type(exc).__name__}: {exc}. "
                           f"Skipping it (counted as {label!r}); this message appears once.")
            self._warned_error = True

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> Iterator[Document]:
        if data is None:
            return
        opts = self.options
        preload(opts.algorithm, model=opts.model, language=opts.language)
        for doc in data:
            self.stat_update(StatHints.total)
            with self.track_time():
                try:
                    text, result = self.extract_page(doc.text, doc.metadata.get("url"))
                except ExtractionTimeout as exc:
                    self._failed("timeout", doc, exc)
                    continue
                except Exception as exc:  # noqa: BLE001 - one bad document never fails the task
                    self._failed("clean_error", doc, exc)
                    continue
                self.stat_update("extracted")
            if not text:
                self.stat_update(StatHints.dropped)
                continue
            doc.text = text
            doc.metadata.update(page_metadata(result))
            self.stat_update(StatHints.forwarded)
            self.update_doc_stats(doc)
            yield doc
