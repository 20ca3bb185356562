"""The page's comments as the renderers write them: the blocks of ``comment_entries``, seen
as an extraction of their own (:class:`CommentView`) so every format writes them with the
machinery it writes the main content with."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..algorithms.base import Classification
from ..document.blocks import Block, Document
from ..metadata import Metadata
from ..options import Options
from .extraction import Extraction, writes_comments


@dataclass(frozen=True)
class CommentView:
    """An extraction whose kept blocks are the comments of another (and which has none)."""

    base: Extraction

    @property
    def document(self) -> Document:
        return self.base.document

    @property
    def classification(self) -> Classification:
        return replace(self.base.classification, labels=self.labels)

    @property
    def algorithm(self) -> str:
        return self.base.algorithm

    @property
    def language(self) -> str:
        return self.base.language

    @property
    def metadata(self) -> Metadata:
        return self.base.metadata

    @property
    def options(self) -> Options:
        return self.base.options

    @property
    def comment_entries(self) -> tuple[int, ...]:
        return ()

    @property
    def labels(self) -> tuple[bool, ...]:
        chosen = set(self.base.comment_entries)
        return tuple(i in chosen for i in range(len(self.base.document.blocks)))

    @property
    def kept(self) -> list[Block]:
        blocks = self.base.document.blocks
        return [blocks[i] for i in self.base.comment_entries]

    @property
    def title(self) -> str:
        return ""


def comment_view(result: Extraction) -> CommentView | None:
    """The comments to write after the main content: with ``include_comments``, when the page
    has any; else None."""
    if not writes_comments(result):
        return None
    return CommentView(result)
