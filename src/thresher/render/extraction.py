"""What a renderer reads of an extraction: the fields of :class:`thresher.api.Result` it uses.

The renderers sit below the public API, so they name this protocol rather than ``Result``.
"""
from __future__ import annotations

from typing import Protocol

from ..algorithms.base import Classification
from ..document.blocks import Block, Document
from ..metadata import Metadata
from ..options import Options


class Extraction(Protocol):
    """One page's extraction, as the renderers read it."""

    @property
    def document(self) -> Document: ...
    @property
    def classification(self) -> Classification: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def language(self) -> str: ...
    @property
    def metadata(self) -> Metadata: ...
    @property
    def options(self) -> Options: ...
    @property
    def comment_entries(self) -> tuple[int, ...]: ...
    @property
    def labels(self) -> tuple[bool, ...]: ...
    @property
    def kept(self) -> list[Block]: ...
    @property
    def title(self) -> str: ...


def writes_comments(result: Extraction) -> bool:
    """Whether the comments are written after the main content: with ``include_comments``,
    when the page has any (see :func:`thresher.render.comments.comment_view`)."""
    return result.options.include_comments and bool(result.comment_entries)
