"""Many pages at once: files and records over a process pool (:mod:`.pool`), an input directory
into an output directory (:mod:`.directory`), WARC archives and Dask bags (:mod:`.warc`), and the
web inputs (:mod:`.fetch`, :mod:`.crawl`, :mod:`.discover`)."""
from __future__ import annotations

from .pool import BatchError, BatchRecord, extract_many
from .warc import WarcPage, WarcResult, extract_warc, iter_warc, to_dask_bag

__all__ = ["BatchError", "BatchRecord", "WarcPage", "WarcResult", "extract_many", "extract_warc", "iter_warc",
           "to_dask_bag"]
