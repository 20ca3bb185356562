"""thresher inside other people's frameworks and engines: a module each, each importing its
framework only when imported itself (this package imports nothing). The layer sits above
:mod:`thresher.batch` and below :mod:`thresher.cli`.

- :mod:`.datatrove`: :class:`~thresher.integrations.datatrove.ThresherExtractor`, an extractor
  step for datatrove pipelines (``pip install 'thresher[datatrove]'``);
- :mod:`.ray`: :class:`~thresher.integrations.ray.ExtractRows`, a callable class for Ray Data's
  ``Dataset.flat_map`` (``pip install 'thresher[ray]'``);
- :mod:`.langchain`: a document transformer and a loader (``pip install 'thresher[langchain]'``);
- :mod:`.llama_index`: a reader and a transformation (``pip install 'thresher[llama-index]'``).
"""
