"""The extraction switches, validated once: :class:`Options`.

The content switches carry trafilatura's names and meanings (``include_comments``,
``include_tables``, ``include_images``, ``include_links``, ``include_formatting``,
``favor_precision``, ``favor_recall``, ``with_metadata``, ``only_with_metadata``,
``target_language``, ``deduplicate``, ``prune``), beside thresher's own (``algorithm``,
``output``, ``language``, ``params``, ``model``, ``content_type``) and the renderers'
(``blocks``, ``indent``), and the time budget (``timeout``); ``output_format`` (trafilatura's)
and ``links`` are other names of ``output`` and ``include_links``. :func:`options_from` turns
keyword arguments into an :class:`Options` and rejects unknown names with a :class:`TypeError`
that lists the valid ones. :class:`Options` checks every value once: a wrong type raises
:class:`TypeError`, a value it cannot take (an unknown output format or language code)
:class:`OptionError`.
"""
from __future__ import annotations

import dataclasses
import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal

from . import _core, algorithms
from .errors import OptionError
from .render.formats import FORMATS, OUTPUT_FORMATS

__all__ = ["ALIASES", "FORMATS", "VALID_NAMES", "Options", "SeenTexts", "options_from"]

# trafilatura's spelling of an output format, read as thresher's.
FORMAT_ALIASES: Mapping[str, str] = MappingProxyType({"txt": "text"})
# The output formats and their aliases as a type, for editors and type checkers (a test keeps it
# equal to FORMATS and FORMAT_ALIASES).
OutputFormat = Literal["text", "markdown", "html", "json", "xml", "xmltei", "csv", "txt"]


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

        _check_types(self)
        object.__setattr__(self, "timeout", check_timeout(self.timeout))
        output = FORMAT_ALIASES.get(self.output, self.output)
        if output not in FORMATS:
            raise OptionError(f"unknown output format {self.output!r}; choose from {', '.join(FORMATS)}")
        object.__setattr__(self, "output", output)
        if self.favor_precision and self.favor_recall:
            raise OptionError("favor_precision and favor_recall exclude each other")
        if isinstance(self.prune, str):
            object.__setattr__(self, "prune", (self.prune,))
        else:
            object.__setattr__(self, "prune", tuple(self.prune))
        if self.model is not None:
            object.__setattr__(self, "model", os.fspath(self.model))
        for name in ("language", "target_language"):
            object.__setattr__(self, name, language_code(name, getattr(self, name)))
        seen = self.deduplicate if isinstance(self.deduplicate, SeenTexts) else \
            (SeenTexts() if self.deduplicate else None)
        object.__setattr__(self, "seen", seen)
        if self.prune:
            css_selectors(self.prune)  # OptionError for a selector it cannot read

    @property
    def formatting(self) -> bool:
        """Bold and italic marks in the output."""
        return self.output == "markdown" if self.include_formatting is None else self.include_formatting

    @property
    def needs_metadata(self) -> bool:
        return self.with_metadata or self.only_with_metadata or OUTPUT_FORMATS[self.output].metadata

    @property
    def needs_attributes(self) -> bool:
        """Always: comment sections are found by their ids and classes on every page, to keep
        them out of the main content or, with ``include_comments``, to write them."""
        return True

    def render_options(self) -> dict[str, Any]:
        """Keyword arguments for the renderer of :attr:`output`: the switches it takes
        (:attr:`thresher.render.formats.OutputFormat.switches`)."""
        values = {"links": self.include_links, "images": self.include_images, "formatting": self.formatting,
                  "blocks": self.blocks, "indent": self.indent}
        return {name: values[name] for name in OUTPUT_FORMATS[self.output].switches}


# Switches that must be True or False, and those that name something (None: not given).
_FLAGS = ("include_comments", "include_tables", "include_images", "include_links", "favor_precision",
          "favor_recall", "with_metadata", "only_with_metadata", "blocks")
_NAMES = ("language", "content_type", "target_language")


def _type_error(name: str, wanted: str, value: object) -> TypeError:
    return TypeError(f"{name} must be {wanted}, not {type(value).__name__} {value!r}"[:300])


def _check_types(options: Options) -> None:
    """Raise :class:`TypeError` for a switch of the wrong type (before any value is read)."""
    for name in _FLAGS:
        if not isinstance(getattr(options, name), bool):
            raise _type_error(name, "True or False", getattr(options, name))
    if options.include_formatting is not None and not isinstance(options.include_formatting, bool):
        raise _type_error("include_formatting", "True, False or None", options.include_formatting)
    for name in ("algorithm", "output"):
        if not isinstance(getattr(options, name), str):
            raise _type_error(name, "a str", getattr(options, name))
    for name in _NAMES:
        if not isinstance(getattr(options, name), (str, type(None))):
            raise _type_error(name, "a str or None", getattr(options, name))
    if not isinstance(options.model, (str, os.PathLike, type(None))):
        raise _type_error("model", "a path (str or os.PathLike) or None", options.model)
    if options.indent is not None and (isinstance(options.indent, bool) or not isinstance(options.indent, int)):
        raise _type_error("indent", "an int or None", options.indent)
    if not isinstance(options.deduplicate, (bool, SeenTexts)):
        raise _type_error("deduplicate", "True, False or a SeenTexts", options.deduplicate)
    prune = (options.prune,) if isinstance(options.prune, str) else options.prune
    if not isinstance(prune, (tuple, list)) or not all(isinstance(s, str) for s in prune):
        raise _type_error("prune", "a CSS selector (str) or a sequence of them", options.prune)


@lru_cache(maxsize=64)
def css_selectors(selectors: tuple[str, ...]) -> _core.Selectors:
    """``prune``'s selectors parsed once by the core (servo's ``selectors`` crate: CSS
    Selectors Level 4, matched on the native page); :class:`OptionError` naming the first one
    it cannot read, and why."""
    try:
        return _core.Selectors(list(selectors))
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def language_code(name: str, value: str | None) -> str | None:
    """The primary subtag of a language switch (``"en-GB"`` -> ``"en"``; blank -> None), checked
    against the languages thresher knows; :class:`OptionError` for another."""
    from .document.language import primary_subtag, supported_languages

    code = primary_subtag(value) if value is not None else ""
    if not code:
        return None
    if code not in supported_languages():
        raise OptionError(f"{name}={value!r} is not a language code thresher knows; give an ISO 639-1 code such "
                          "as 'en' or 'de' (the list: thresher.document.language.supported_languages())")
    return code


# Other names of switches: ``links`` (the renderers' older name) and trafilatura's ``output_format``.
ALIASES: Mapping[str, str] = MappingProxyType({"links": "include_links", "output_format": "output"})
VALID_NAMES: tuple[str, ...] = tuple(sorted(
    [f.name for f in dataclasses.fields(Options) if f.init] + list(ALIASES)))
# Each switch's default: the aliases' is None (not given).
DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {**{f.name: f.default for f in dataclasses.fields(Options) if f.init}, **dict.fromkeys(ALIASES)})


def changed(keywords: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords whose value is not their switch's default (the same value of the same type):
    what a call that spells out every switch with its default was actually given."""
    return {name: value for name, value in keywords.items()
            if not (value is DEFAULTS.get(name) or
                    (type(value) is type(DEFAULTS.get(name)) and value == DEFAULTS.get(name)))}


def options_from(keywords: Mapping[str, Any], base: Options | None = None) -> Options:
    """An :class:`Options` from keyword arguments (``base``'s values for the others); unknown
    names, and a switch given under two names with two values, raise :class:`TypeError`."""
    unknown = sorted(set(keywords) - set(VALID_NAMES))
    if unknown:
        raise TypeError(f"unexpected keyword argument{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(map(repr, unknown))}; valid ones: {', '.join(VALID_NAMES)}")
    if base is not None and not keywords:
        return base
    values: dict[str, Any] = {}
    for name, value in keywords.items():
        switch = ALIASES.get(name, name)
        if switch in values and values[switch] != value:
            first = next(n for n in keywords if ALIASES.get(n, n) == switch)
            raise TypeError(f"{first}={values[switch]!r} and {name}={value!r} set the same switch: give one of them")
        values[switch] = value
    return dataclasses.replace(base, **values) if base is not None else Options(**values)

