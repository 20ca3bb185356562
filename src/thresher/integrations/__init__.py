"""thresher inside other people's engines: a module per engine, each importing its engine only
when imported itself (this package imports nothing). The layer sits above :mod:`thresher.batch`
and below :mod:`thresher.cli`.

- :mod:`.datatrove`: :class:`~thresher.integrations.datatrove.ThresherExtractor`, an extractor
  step for datatrove pipelines (``pip install 'thresher[datatrove]'``);
- :mod:`.ray`: :class:`~thresher.integrations.ray.ExtractRows`, a callable class for Ray Data's
  ``Dataset.flat_map`` (``pip install 'thresher[ray]'``).
"""
