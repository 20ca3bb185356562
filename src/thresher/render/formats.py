"""The output formats, in one table: each one's name, file extension, renderer module, what the
renderer reads of a page, which of the extraction switches it takes, and whether YAML front
matter may precede it. :data:`thresher.options.FORMATS`, :func:`thresher.render.render` and the
command line's output file names all read it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class OutputFormat:
    """One output format.

    name: the ``output=`` value (and the command line's ``--format``).
    extension: the suffix of the files the command line writes in this format.
    module: its renderer, the module ``thresher.render.<module>`` (a ``render(result, **options)``).
    metadata: the renderer writes the page's metadata, so the metadata pass runs.
    attributes: the renderer reads element attributes (links, images, ids), so the document
        keeps them.
    switches: the renderer's keyword arguments that extraction switches set
        (:meth:`thresher.options.Options.render_options`).
    front_matter: ``with_metadata`` puts YAML front matter before the output.
    """

    name: str
    extension: str
    module: str
    metadata: bool
    attributes: bool
    switches: tuple[str, ...] = ()
    front_matter: bool = False


_TABLE = (
    OutputFormat("text", ".txt", "text", metadata=False, attributes=False, front_matter=True),
    OutputFormat("markdown", ".md", "markdown", metadata=False, attributes=True, switches=("links", "images"),
                 front_matter=True),
    OutputFormat("html", ".html", "html", metadata=True, attributes=True, switches=("links", "images")),
    OutputFormat("json", ".json", "json_out", metadata=True, attributes=True, switches=("blocks", "indent")),
    OutputFormat("xml", ".xml", "xml", metadata=True, attributes=True, switches=("links", "images", "formatting")),
    OutputFormat("xmltei", ".tei.xml", "tei", metadata=True, attributes=True,
                 switches=("links", "images", "formatting")),
    OutputFormat("csv", ".csv", "csv_out", metadata=True, attributes=True),
)
# Name -> format, in the order help texts list them.
OUTPUT_FORMATS: Mapping[str, OutputFormat] = MappingProxyType({fmt.name: fmt for fmt in _TABLE})
FORMATS: tuple[str, ...] = tuple(OUTPUT_FORMATS)


def output_format(name: str) -> OutputFormat:
    """The format called ``name``; ValueError naming the known ones otherwise."""
    try:
        return OUTPUT_FORMATS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown output format {name!r}; choose from {', '.join(FORMATS)}") from None
