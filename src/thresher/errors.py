"""Exceptions raised by thresher. Every failure a user can cause is one of these."""
from __future__ import annotations


class ThresherError(Exception):
    """Base class of every error thresher raises on purpose."""


class InputError(ThresherError):
    """The input is not something we can extract from (empty, binary, PDF, ...)."""


class ExtractionTimeout(ThresherError):
    """The extraction ran past its time budget (``timeout``) and was stopped; nothing of it is kept."""


class ModelError(ThresherError):
    """A model file is missing, malformed or of an unsupported schema version."""


class UnknownAlgorithm(ThresherError, ValueError):
    """No registered algorithm has the requested name. Also a ``ValueError``: it is a bad argument."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"unknown algorithm {name!r}; known: {', '.join(known) or 'none'}")
        self.name = name
        self.known = known
