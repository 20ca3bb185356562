"""The explain report of one page: every block, the decision one or two algorithms took on
it and why, as a text table, a JSON document (schema in ``docs/explain.md``) or one
self-contained HTML file (``template.html``: inline CSS, JS and SVG, no request made)."""
from __future__ import annotations

import json
import shutil
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..api import Result, extract_result
from ..document.decode import decode
from .detail import BlockDetail, Shallow, learned_details, shallow
from .sanitize import sanitised_page

SCHEMA, VERSION = "thresher.explain", 1
DATA_MARKER = "/*THRESHER_DATA*/null"


@dataclass(frozen=True)
class View:
    """One algorithm's decisions on the page, with the details of the learned ones."""

    result: Result
    details: tuple[BlockDetail, ...] | None
    seconds: float  # extraction alone, as measured here

    @property
    def name(self) -> str:
        return self.result.algorithm

    @property
    def cut(self) -> float | None:
        """The lowest score of a kept block: the cut the scores were effectively read with."""
        scores, labels = self.result.classification.scores, self.result.labels
        kept = [s for s, keep in zip(scores or (), labels) if keep]
        return min(kept) if kept else None

    def words(self, kept: bool) -> int:
        return sum(b.word_count for b, label in zip(self.result.blocks, self.result.labels) if label == kept)


@dataclass(frozen=True)
class Report:
    views: tuple[View, ...]  # the algorithm asked for, then the one compared with
    shallow: Shallow
    source: str  # the decoded page

    @property
    def main(self) -> View:
        return self.views[0]


def _view(html: bytes | str, url: str | None, algorithm: str, **options: Any) -> View:
    start = time.perf_counter()
    result = extract_result(html, url, algorithm=algorithm, **options)
    seconds = time.perf_counter() - start
    details = learned_details(result.document, result.algorithm, result.language, options.get("model"))
    return View(result, details, seconds)


def build_report(html: bytes | str, url: str | None = None, *, algorithm: str, compare: str | None = None,
                 language: str | None = None, model: str | None = None,
                 content_type: str | None = None) -> Report:
    """Extract the page with ``algorithm`` (and ``compare``) and gather what the views show.
    ``model`` applies to ``algorithm`` only."""
    views = [_view(html, url, algorithm, language=language, model=model, content_type=content_type)]
    if compare is not None:
        views.append(_view(html, url, compare, language=language, content_type=content_type))
    source = html if isinstance(html, str) else decode(html, content_type).text
    return Report(tuple(views), shallow(views[0].result.document), source)


# --------------------------------------------------------------------- JSON

def _round(value: float, digits: int = 4) -> float:
    return float(f"{value:.{digits}g}")


def _decision(view: View, i: int, report: Report) -> dict[str, Any]:
    classification = view.result.classification
    record: dict[str, Any] = {"label": bool(classification.labels[i]),
                              "score": None if classification.scores is None else classification.scores[i],
                              "reason": classification.reasons[i] if classification.reasons else ""}
    if view.details is None:
        record["features"] = {"words": float(report.shallow.words[i]),
                              "link_density": float(report.shallow.link_density[i]),
                              "text_density": float(report.shallow.text_density[i])}
        return record
    detail = view.details[i]
    record.update(stage=detail.stage, bias=detail.bias, features=detail.features,
                  contributions=[{"feature": f, "value": v, "contribution": c} for f, v, c in detail.top])
    return record


def _summary(view: View) -> dict[str, Any]:
    return {"algorithm": view.name, "blocks": len(view.result.labels), "kept": sum(view.result.labels),
            "words_kept": view.words(True), "words_dropped": view.words(False), "cut": view.cut,
            "seconds": view.seconds, "timings": dict(view.result.timings)}


def to_json(report: Report) -> dict[str, Any]:
    main = report.main.result
    blocks = []
    for block in main.blocks:
        i = block.index
        record = {"index": i, "tag": block.tag, "text": block.text,
                  **_decision(report.main, i, report)}
        if len(report.views) > 1:
            record["compare"] = {"algorithm": report.views[1].name, **_decision(report.views[1], i, report)}
        blocks.append(record)
    return {"schema": SCHEMA, "version": VERSION, "url": main.document.url, "title": main.title,
            "language": main.language, "algorithms": [_summary(v) for v in report.views], "blocks": blocks}


def render_json(report: Report) -> str:
    return json.dumps(to_json(report), ensure_ascii=False)


# --------------------------------------------------------------------- text

def render_text(result: Result, width: int | None = None) -> str:
    """One row per block: index, KEEP/drop, score, then the full reason and the text,
    wrapped to ``width`` (default: the terminal's) under a hanging indent."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    classification = result.classification
    labels, scores, reasons = classification.labels, classification.scores, classification.reasons
    lines = [f"# algorithm={result.algorithm} language={result.language or '-'} "
             f"blocks={len(labels)} kept={sum(labels)}",
             f"{'index':>5}  {'label':<4}  {'score':>7}  reason | text"]
    indent = " " * 23
    for block in result.blocks:
        i = block.index
        score = f"{scores[i]:7.3f}" if scores is not None else f"{'-':>7}"
        head = f"{i:>5}  {'KEEP' if labels[i] else 'drop':<4}  {score}  "
        body = (f"{reasons[i]} | " if reasons else "") + " ".join(block.text.split())
        wrapped = textwrap.wrap(body, width=max(20, width - 1), initial_indent=head,
                                subsequent_indent=indent, break_on_hyphens=False) or [head.rstrip()]
        lines.extend(wrapped)
    return "\n".join(lines)


# --------------------------------------------------------------------- HTML

def _algorithm_data(view: View, names: dict[str, int]) -> dict[str, Any]:
    classification = view.result.classification
    data: dict[str, Any] = {
        **_summary(view), "labels": "".join("1" if keep else "0" for keep in classification.labels),
        "scores": None if classification.scores is None else [_round(s, 3) for s in classification.scores],
        "reasons": list(classification.reasons)}
    if view.details is not None:
        data["stage"] = "".join(d.stage[-1] for d in view.details)
        data["bias"] = [_round(d.bias, 3) for d in view.details]
        data["top"] = [[[names.setdefault(f, len(names)), _round(v), _round(c, 3)] for f, v, c in d.top]
                       for d in view.details]
    return data


def page_data(report: Report, with_page: bool = True) -> dict[str, Any]:
    """What the HTML report's script reads: compact columns, each block's text once."""
    main = report.main.result
    names: dict[str, int] = {}
    algorithms = [_algorithm_data(view, names) for view in report.views]
    blocks = main.blocks
    return {
        "title": main.title, "url": main.document.url, "language": main.language,
        "algorithms": algorithms, "names": list(names),
        "text": [b.text for b in blocks], "tag": [b.tag for b in blocks],
        "words": [int(w) for w in report.shallow.words],
        "ld": [_round(x, 3) for x in report.shallow.link_density],
        "td": [_round(x, 3) for x in report.shallow.text_density],
        "page": sanitised_page(report.source, [b.text for b in blocks], main.labels) if with_page else None,
    }


def _script_json(data: dict[str, Any]) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` or comment opener can occur)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def template() -> str:
    return (resources.files("thresher.explain") / "template.html").read_text(encoding="utf-8")


def render_html(report: Report) -> str:
    """The report as one HTML file: the data is embedded once, the page builds itself in JS."""
    return template().replace(DATA_MARKER, _script_json(page_data(report)), 1)


def render(report: Report, output: str) -> str:
    if output == "json":
        return render_json(report)
    if output == "html":
        return render_html(report)
    return "\n\n".join(render_text(view.result) for view in report.views)


FORMATS: Sequence[str] = ("text", "json", "html")
