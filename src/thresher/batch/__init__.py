"""Many pages at once: files and records over a process pool (:mod:`.pool`), an input directory
into an output directory (:mod:`.directory`), WARC archives and Dask bags (:mod:`.warc`), and the
web inputs (:mod:`.fetch`, :mod:`.crawl`, :mod:`.discover`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._lazy import attribute as _attribute

if TYPE_CHECKING:
    from .pool import BatchError, BatchRecord, extract_many
    from .warc import WarcPage, WarcResult, extract_warc, iter_warc, to_dask_bag

__all__ = ["BatchError", "BatchRecord", "WarcPage", "WarcResult", "extract_many", "extract_warc", "iter_warc",
           "to_dask_bag"]

# Each name's module, imported when the name is first read: the command line reads a few
# constants of this package's modules and should not load the process pool or WARC reading.
_LAZY = {"BatchError": ".pool", "BatchRecord": ".pool", "extract_many": ".pool", "WarcPage": ".warc",
         "WarcResult": ".warc", "extract_warc": ".warc", "iter_warc": ".warc", "to_dask_bag": ".warc"}


def __getattr__(name: str) -> Any:
    return _attribute(__name__, _LAZY, globals(), name)
