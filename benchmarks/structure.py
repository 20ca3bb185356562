#!/usr/bin/env python3
"""Structure benchmark: how much of a page's structure survives in the Markdown output.

Per structure type (headings, code blocks, emphasis, links, images, list items, table cells,
blockquotes, math) each page's gold count is read from its ``expected.html`` (the HTML of the
main content) and the found count from the extractor's Markdown, parsed with markdown-it-py
(CommonMark with the GFM table and strikethrough rules, and the ``$``/``$$`` math of
mdit-py-plugins). Summed over the pages of a dataset:

* recall = Σ min(found, gold) / Σ gold (a page's surplus does not make up for another's loss);
* over-production = Σ found / Σ gold (1.0 is as many as the gold; above it, extra structure).

Datasets are directories of ``*/source.html`` + ``*/expected.html`` (the Readability test
pages' layout; ``expected-metadata.json`` gives the page URL and title when present).
Readability returns the title beside the content, so a page's title counts as one gold
heading unless the content already opens with it. The extractors run
one after the other in this process:

* ``thresher``: ``thresher.extract(html, url, output="markdown", include_links=True,
  include_images=True)``;
* ``trafilatura``: ``trafilatura.extract(html, url=url, output_format="markdown",
  include_formatting=True, include_links=True, include_images=True, include_tables=True)``.

    python benchmarks/structure.py                                   # Readability + golden pages
    python benchmarks/structure.py --out benchmarks/results/structure.json
    python benchmarks/structure.py --table benchmarks/results/structure.json --readme README.md

``--table`` renders a results file as the README's structure table and, with ``--readme``,
rewrites the part of that file between ``<!-- structure-table:start -->`` and
``<!-- structure-table:end -->``; every number comes from the results file.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
from collections.abc import Callable, Iterator
from datetime import date
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASETS = (ROOT.parent / "shared" / "datasets" / "readability", ROOT / "tests" / "golden" / "markdown")
TYPES = ("headings", "code blocks", "emphasis", "links", "images", "list items", "table cells", "blockquotes",
         "math")
START, END = "<!-- structure-table:start -->", "<!-- structure-table:end -->"

Extractor = Callable[[bytes, "str | None"], str]


# -- gold: counted in expected.html

_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_EMPHASIS = frozenset("b strong i em".split())
_MATH_CLASSES = frozenset({"katex", "katex-display"})


def _classes(element: Any) -> set[str]:
    return set((element.get("class") or "").split())


def _is_math(element: Any) -> bool:
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag.rpartition("}")[2] == "math":
        return True
    if tag == "script" and (element.get("type") or "").startswith("math/tex"):
        return True
    return bool(_MATH_CLASSES & _classes(element))


def gold_counts(markup: str, title: str = "") -> dict[str, int]:
    """Structure counts of an HTML fragment: non-empty headings, outermost ``pre``, emphasis and
    links (``a`` with an ``href``, text or an image) outside code, ``img``, ``li``, ``td``/``th``,
    ``blockquote``, and formulas (outermost ``math``, ``script type="math/tex"`` or KaTeX span).

    ``title``: the page's title, given beside the content (Readability returns it as a field of
    its own and leaves the title heading out of the content): one heading more, unless the
    fragment's first heading already says it."""
    import lxml.html

    counts = dict.fromkeys(TYPES, 0)
    if not markup.strip():
        return counts
    root = lxml.html.fragment_fromstring(markup, create_parent="div")
    if title.strip():
        first = next((h for h in root.iter(*_HEADINGS) if h.text_content().strip()), None)
        if first is None or " ".join(first.text_content().split()).casefold() != " ".join(title.split()).casefold():
            counts["headings"] += 1
    stack: list[tuple[Any, bool, bool]] = [(root, False, False)]  # (element, inside code, inside math)
    while stack:
        element, in_code, in_math = stack.pop()
        tag = element.tag.rpartition("}")[2] if isinstance(element.tag, str) else ""
        math = _is_math(element)
        if math and not in_math:
            counts["math"] += 1
        text = element.text_content().strip() if tag in _HEADINGS | _EMPHASIS | {"a", "pre"} else ""
        if tag in _HEADINGS and text:
            counts["headings"] += 1
        elif tag == "pre" and not in_code and text:
            counts["code blocks"] += 1
        elif tag in _EMPHASIS and text and not in_code:
            counts["emphasis"] += 1
        elif tag == "a" and element.get("href") and not in_code and (text or element.find(".//img") is not None):
            counts["links"] += 1
        elif tag == "img":
            counts["images"] += 1
        elif tag == "li":
            counts["list items"] += 1
        elif tag in ("td", "th"):
            counts["table cells"] += 1
        elif tag == "blockquote":
            counts["blockquotes"] += 1
        inside_code = in_code or tag in ("pre", "code")
        stack.extend((child, inside_code, in_math or math) for child in element)
    return counts


# -- found: counted in the Markdown

_TOKEN_TYPES = {
    "heading_open": "headings", "fence": "code blocks", "code_block": "code blocks", "em_open": "emphasis",
    "strong_open": "emphasis", "link_open": "links", "image": "images", "list_item_open": "list items",
    "td_open": "table cells", "th_open": "table cells", "blockquote_open": "blockquotes",
    "math_inline": "math", "math_block": "math", "math_block_label": "math", "math_inline_double": "math",
}


def markdown_parser() -> Any:
    """markdown-it-py's CommonMark parser with GFM tables and strikethrough, and ``$``/``$$`` math
    (Pandoc's rule: no space inside the dollars, none before a digit after them: "$5 and $10" is text)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return (MarkdownIt("commonmark").enable(["table", "strikethrough"])
            .use(dollarmath_plugin, allow_space=False, allow_digits=False, allow_labels=False))


def markdown_counts(markdown: str, parser: Any = None) -> dict[str, int]:
    """Structure counts of a Markdown text, from markdown-it-py's tokens (those of inline
    content included)."""
    counts = dict.fromkeys(TYPES, 0)
    parser = parser or markdown_parser()
    stack = list(parser.parse(markdown or ""))
    while stack:
        token = stack.pop()
        kind = _TOKEN_TYPES.get(token.type)
        if kind:
            counts[kind] += 1
        stack.extend(token.children or ())
    return counts


# -- extractors

def thresher_extractor() -> Extractor:
    import thresher

    def extract(html: bytes, url: str | None) -> str:
        return thresher.extract(html, url, output="markdown", include_links=True, include_images=True)

    return extract


def trafilatura_extractor() -> Extractor:
    import trafilatura

    def extract(html: bytes, url: str | None) -> str:
        return trafilatura.extract(html, url=url, output_format="markdown", include_formatting=True,
                                   include_links=True, include_images=True, include_tables=True) or ""

    return extract


EXTRACTORS: dict[str, Callable[[], Extractor]] = {"thresher": thresher_extractor,
                                                 "trafilatura": trafilatura_extractor}


def version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


# -- the run

def pages(root: Path) -> Iterator[tuple[str, bytes, str | None, str, str]]:
    """(name, source HTML, URL, expected HTML, title) of each page of a dataset directory; URL
    and title from ``expected-metadata.json`` when there is one."""
    for page in sorted(p.parent for p in root.glob("*/source.html")):
        meta = {}
        if (page / "expected-metadata.json").exists():
            meta = json.loads((page / "expected-metadata.json").read_text(encoding="utf-8"))
        yield page.name, (page / "source.html").read_bytes(), meta.get("url"), \
            (page / "expected.html").read_text(encoding="utf-8"), meta.get("title") or ""


def score(pairs: list[tuple[dict[str, int], dict[str, int]]]) -> dict[str, dict[str, float]]:
    """Per type: gold, found and matched sums over (gold, found) page counts, recall and
    over-production (None when there is no gold)."""
    out: dict[str, dict[str, Any]] = {}
    for kind in TYPES:
        gold = sum(g[kind] for g, _ in pairs)
        found = sum(f[kind] for _, f in pairs)
        matched = sum(min(g[kind], f[kind]) for g, f in pairs)
        out[kind] = {"gold": gold, "found": found, "matched": matched,
                     "recall": round(matched / gold, 4) if gold else None,
                     "over": round(found / gold, 4) if gold else None}
    return out


def run_dataset(root: Path, extractors: dict[str, Extractor]) -> dict[str, Any]:
    parser = markdown_parser()
    per_page: dict[str, list[tuple[dict[str, int], dict[str, int]]]] = {name: [] for name in extractors}
    details: dict[str, dict[str, dict[str, list[int]]]] = {name: {} for name in extractors}
    count = 0
    for page, html, url, expected, title in pages(root):
        count += 1
        gold = gold_counts(expected, title)
        for name, extract in extractors.items():
            try:
                found = markdown_counts(extract(html, url), parser)
            except Exception as error:  # noqa: BLE001 - an extractor's failure on one page is a page with nothing found
                print(f"{root.name}/{page}: {name} failed: {error!r}", file=sys.stderr)
                found = dict.fromkeys(TYPES, 0)
            per_page[name].append((gold, found))
            details[name][page] = {k: [gold[k], found[k]] for k in TYPES if gold[k] or found[k]}
    return {"pages": count,
            "results": {name: score(pairs) for name, pairs in per_page.items()},
            "per_page": details}


def run(datasets: list[Path], names: list[str]) -> dict[str, Any]:
    extractors = {name: EXTRACTORS[name]() for name in names}
    return {"date": date.today().isoformat(),
            "environment": {"python": platform.python_version(),
                            "versions": {name: version(name) for name in names}},
            "datasets": {root.name: run_dataset(root, extractors) for root in datasets}}


# -- the README's table

def _figure(value: float | None, best: bool = False) -> str:
    if value is None:
        return "-"
    text = f"{value:.3f}"
    return f"**{text}**" if best else text


def table(results: dict[str, Any], dataset: str) -> str:
    """Types down; gold count, then each extractor's recall and over-production across. The
    better recall of a type is in bold."""
    data = results["datasets"][dataset]["results"]
    names = list(data)
    versions = results.get("environment", {}).get("versions", {})
    labels = [name if name == "thresher" else f"{name} {versions.get(name, '')}".strip() for name in names]
    header = ("| structure | gold | " + " | ".join(f"{label} recall" for label in labels) + " | "
              + " | ".join(f"{label} over" for label in labels) + " |")
    lines = [header, "|---|---|" + "---|" * (2 * len(names))]
    for kind in TYPES:
        gold = data[names[0]][kind]["gold"]
        if not gold:
            continue
        recalls = [data[name][kind]["recall"] for name in names]
        top = max(recalls)
        cells = [_figure(r, len(names) > 1 and r == top) for r in recalls]
        cells += [_figure(data[name][kind]["over"]) for name in names]
        lines.append(f"| {kind} | {gold:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def section(results: dict[str, Any], source: str, dataset: str = "readability") -> str:
    pages_count = results["datasets"][dataset]["pages"]
    caption = (f"Generated by `benchmarks/structure.py` from [`{source}`]({source}) ({results.get('date', '')}): "
               f"the {pages_count} {dataset} pages, each structure counted in the gold `expected.html` and in "
               "the Markdown output parsed with markdown-it-py (GFM tables); recall is Σ min(found, gold) / "
               "Σ gold over the pages, over is Σ found / Σ gold.")
    return f"{START}\n{caption}\n\n{table(results, dataset)}\n{END}"


def rewrite(readme: str, block: str) -> str:
    """``readme`` with the text between the markers (markers included) replaced by ``block``."""
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the README lacks the markers {START} ... {END}")
    return readme[:start] + block + readme[end + len(END):]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", type=Path, nargs="+", default=list(DEFAULT_DATASETS),
                    help="directories of */source.html + */expected.html")
    ap.add_argument("--extractors", default="thresher,trafilatura", help="comma-separated: thresher, trafilatura")
    ap.add_argument("--out", type=Path, help="write the results as JSON")
    ap.add_argument("--table", type=Path, help="render this results file's table instead of running")
    ap.add_argument("--readme", type=Path, help="with --table: rewrite this file's structure-table section")
    args = ap.parse_args(argv)
    if args.table:
        results = json.loads(args.table.read_text(encoding="utf-8"))
        block = section(results, args.table.as_posix())
        if args.readme is None:
            print(block)
        else:
            args.readme.write_text(rewrite(args.readme.read_text(encoding="utf-8"), block), encoding="utf-8")
        return 0
    missing = [root for root in args.datasets if not root.is_dir()]
    if missing:
        print(f"missing dataset directories: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    names = [name for name in args.extractors.split(",") if name]
    unknown = [name for name in names if name not in EXTRACTORS]
    if unknown:
        print(f"unknown extractors: {', '.join(unknown)}; choose from {', '.join(EXTRACTORS)}", file=sys.stderr)
        return 2
    results = run(args.datasets, names)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for dataset in results["datasets"]:
        print(f"\n{dataset} ({results['datasets'][dataset]['pages']} pages)\n{table(results, dataset)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
