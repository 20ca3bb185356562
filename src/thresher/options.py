"""The extraction switches, validated once: :class:`Options`.

The content switches carry trafilatura's names and meanings (``include_comments``,
``include_tables``, ``include_images``, ``include_links``, ``include_formatting``,
``favor_precision``, ``favor_recall``, ``with_metadata``, ``only_with_metadata``,
``target_language``, ``deduplicate``, ``prune``), beside thresher's own (``algorithm``,
``output``, ``language``, ``params``, ``model``, ``content_type``) and the renderers'
(``links``, ``blocks``, ``indent``), and the time budget (``timeout``).
:func:`options_from` turns keyword arguments into an :class:`Options` and rejects
unknown names with a :class:`TypeError` that lists the valid ones.
"""
from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import algorithms

FORMATS = ("text", "markdown", "html", "json", "xml", "xmltei", "csv")
# Outputs that may carry YAML front matter under ``with_metadata``.
FRONT_MATTER_FORMATS = frozenset({"text", "markdown"})


class SeenTexts:
    """A bounded least-recently-used count of block texts, for ``deduplicate``.

    Pass one instance to every call of a batch to drop, across its pages, the blocks whose
    text was already kept ``max_repeats`` times (boilerplate a classifier let through). It is
    the one stateful object of the API: callers own it, and it is not thread-safe.
    """

    def __init__(self, maxsize: int = 1 << 16, max_repeats: int = 1, min_chars: int = 10) -> None:
        if maxsize < 1 or max_repeats < 1 or min_chars < 0:
            raise ValueError("maxsize and max_repeats must be 1 or more, min_chars 0 or more")
        self.maxsize, self.max_repeats, self.min_chars = maxsize, max_repeats, min_chars
        self._counts: OrderedDict[str, int] = OrderedDict()

    def __len__(self) -> int:
        return len(self._counts)

    def seen_enough(self, text: str) -> bool:
        """Count one more sighting of ``text``; True when it was already seen ``max_repeats`` times."""
        if len(text) < self.min_chars:
            return False
        count = self._counts.pop(text, 0)
        self._counts[text] = count + 1
        if len(self._counts) > self.maxsize:
            self._counts.popitem(last=False)
        return count >= self.max_repeats


@dataclass(frozen=True)
class Options:
    """Every switch of one extraction; see :func:`thresher.extract` for their meanings."""

    algorithm: str = algorithms.DEFAULT
    output: str = "text"
    language: str | None = None
    params: Any = None
    model: str | None = None
    content_type: str | None = None
    include_comments: bool = False
    include_tables: bool = True
    include_images: bool = False
    include_links: bool = False
    include_formatting: bool | None = None  # None: the output's own default (Markdown: on)
    favor_precision: bool = False
    favor_recall: bool = False
    with_metadata: bool = False
    only_with_metadata: bool = False
    target_language: str | None = None
    deduplicate: bool | SeenTexts = False
    prune: tuple[str, ...] = ()
    blocks: bool = False  # json: every block's decision
    indent: int | None = None  # json: indentation
    timeout: float | None = None  # seconds the extraction may take (ExtractionTimeout past them)
    seen: SeenTexts | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from .document.budget import check_timeout

        object.__setattr__(self, "timeout", check_timeout(self.timeout))
        if self.output not in FORMATS:
            raise ValueError(f"unknown output format {self.output!r}; choose from {', '.join(FORMATS)}")
        if self.favor_precision and self.favor_recall:
            raise ValueError("favor_precision and favor_recall exclude each other")
        if isinstance(self.prune, str):
            object.__setattr__(self, "prune", (self.prune,))
        else:
            object.__setattr__(self, "prune", tuple(self.prune))
        if self.target_language is not None:
            object.__setattr__(self, "target_language", self.target_language.strip().lower() or None)
        seen = self.deduplicate if isinstance(self.deduplicate, SeenTexts) else \
            (SeenTexts() if self.deduplicate else None)
        object.__setattr__(self, "seen", seen)
        if self.prune:
            from .document.selectors import parse_selectors

            parse_selectors(self.prune)  # raises ValueError on a selector it cannot read

    @property
    def formatting(self) -> bool:
        """Bold and italic marks in the output."""
        return self.output == "markdown" if self.include_formatting is None else self.include_formatting

    @property
    def needs_metadata(self) -> bool:
        return self.with_metadata or self.only_with_metadata or self.output in ("json", "html", "xml",
                                                                               "xmltei", "csv")

    @property
    def needs_attributes(self) -> bool:
        return (self.output != "text" or bool(self.prune) or not self.include_comments
                or self.include_images or self.include_links)

    def render_options(self) -> dict[str, Any]:
        """Keyword arguments for the renderer of :attr:`output`."""
        if self.output == "json":
            return {"blocks": self.blocks, "indent": self.indent}
        if self.output in ("markdown", "html"):
            return {"links": self.include_links, "images": self.include_images}
        if self.output in ("xml", "xmltei"):
            return {"links": self.include_links, "images": self.include_images,
                    "formatting": self.formatting}
        return {}


# ``links`` is the renderers' older name of ``include_links``.
ALIASES: Mapping[str, str] = {"links": "include_links"}
VALID_NAMES: tuple[str, ...] = tuple(sorted(
    [f.name for f in dataclasses.fields(Options) if f.init] + list(ALIASES)))


def options_from(keywords: Mapping[str, Any], base: Options | None = None) -> Options:
    """An :class:`Options` from keyword arguments; unknown names raise :class:`TypeError`."""
    unknown = sorted(set(keywords) - set(VALID_NAMES))
    if unknown:
        raise TypeError(f"unexpected keyword argument{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(map(repr, unknown))}; valid ones: {', '.join(VALID_NAMES)}")
    if base is not None and not keywords:
        return base
    values = {ALIASES.get(name, name): value for name, value in keywords.items()}
    return dataclasses.replace(base, **values) if base is not None else Options(**values)

