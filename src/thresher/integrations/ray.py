"""thresher in Ray Data pipelines: a callable class for ``Dataset.flat_map``.

Needs the ``ray`` extra (``pip install 'thresher[ray]'``: ray with Ray Data). This module
imports neither ray nor anything heavy: the class is given to Ray Data by name, and Ray runs
it in a pool of actors, each one a worker process that loads the models once::

    import ray
    from thresher.integrations.ray import ExtractRows

    paths = ray.data.from_items([{"path": p} for p in warc_paths])        # one row per WARC file
    pages = paths.flat_map(ExtractRows, fn_constructor_kwargs={"timeout": 5}, concurrency=2)
    pages.write_json("out/")                                            # one row per HTML response

A row in is ``{"path": ...}`` (a WARC file: a row out per HTML response, read in the actor)
or ``{"id": ..., "html": ..., "url": ...}`` (one page); rows out all have the columns of
:data:`COLUMNS`. Failures are rows with ``ok`` false, never exceptions.
"""
from __future__ import annotations

from typing import Any

from ..algorithms import DEFAULT
from ..batch.pages import DEFAULT_PAGE_TIMEOUT
from ..batch.pool import one_blas_thread
from ..batch.warc import extract_item

# Every row out has these columns (Arrow blocks want one schema): output is "" on failure,
# error_type and error_message "" on success.
COLUMNS = ("record_id", "url", "ok", "output", "error_type", "error_message")


def as_row(result: dict[str, Any]) -> dict[str, Any]:
    """A result dict of :func:`thresher.batch.warc.extract_item` as a row of :data:`COLUMNS`."""
    error = result.get("error") or {}
    return {"record_id": result["record_id"], "url": result["url"] or "", "ok": result["ok"],
            "output": result.get("output") or "", "error_type": error.get("type", ""),
            "error_message": error.get("message", "")}


def _item(row: dict[str, Any]) -> Any:
    if "path" in row:
        return str(row["path"])
    return (str(row.get("id", "")), row.get("html"), row.get("url"))


class ExtractRows:
    """Rows of pages or WARC paths in, a row per page out (see the module's docs).

    ``output``, ``algorithm`` and ``options`` are :func:`thresher.extract`'s; ``timeout`` is
    each page's time budget in seconds (60 by default, as the batch's; ``None``: none), kept
    by thresher inside the actor: past it the page is a row with ``error_type``
    ``ExtractionTimeout``. Nothing here starts a process.
    """

    def __init__(self, output: str = "text", algorithm: str = DEFAULT,
                 timeout: float | None = DEFAULT_PAGE_TIMEOUT, **options: Any):
        from ..api import preload

        one_blas_thread()
        preload(algorithm, model=options.get("model"), language=options.get("language"))
        self.options: dict[str, Any] = {"output": output, "algorithm": algorithm, **options}
        if timeout is not None:
            self.options["timeout"] = timeout

    def __call__(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        return [as_row(result) for result in extract_item(_item(row), self.options)]
