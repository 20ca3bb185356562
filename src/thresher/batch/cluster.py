"""Dask distributed workers ready for extraction: a worker plugin that loads the models once.

Needs the ``scale`` extra (``distributed``), imported with this module (nothing else in
:mod:`thresher.batch` imports it)::

    from distributed import Client, LocalCluster
    from thresher.batch.cluster import PreloadModels

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1) as cluster, \\
            Client(cluster) as client:
        client.register_plugin(PreloadModels())
        ...

Each worker, when it starts (and every worker that joins later), limits numpy's BLAS to
one thread and calls :func:`thresher.preload`: the model files and the language identifier
are read once per worker, before its first page, not during it.
"""
from __future__ import annotations

from typing import Any

from distributed import WorkerPlugin

from ..algorithms import DEFAULT
from .pool import one_blas_thread


class PreloadModels(WorkerPlugin):
    """A :class:`distributed.WorkerPlugin` that loads thresher's models in each worker.

    Give it the options the pages are extracted with (``algorithm``, ``model``,
    ``language``), so that what it loads is what they use. Registering it again
    with the same options replaces it (its ``name`` says which options).
    """

    def __init__(self, algorithm: str = DEFAULT, model: str | None = None, language: str | None = None):
        self.algorithm, self.model, self.language = algorithm, model, language
        self.name = f"thresher-preload-{algorithm}-{model or ''}-{language or ''}"

    def setup(self, worker: Any) -> None:
        from ..api import preload

        one_blas_thread()
        preload(self.algorithm, model=self.model, language=self.language)
