"""``thresher serve``: extraction over HTTP (the top layer; needs the ``serve`` extra).

:mod:`~thresher.service.config` holds the server's settings, :mod:`~thresher.service.addresses`
the rule for which addresses a ``url`` may be fetched from, :mod:`~thresher.service.requests`
reads a request's page and options within the limits, :mod:`~thresher.service.app` is the
Starlette application and :mod:`~thresher.service.main` runs it under uvicorn. Nothing here is
imported by the layers below; ``thresher serve`` imports :mod:`~thresher.service.main` when run.
"""
