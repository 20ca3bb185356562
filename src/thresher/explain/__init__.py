"""The explain views of a page: a text table, a JSON document and a self-contained HTML report.

``build_report`` extracts a page with one algorithm (and optionally a second to compare
with) and ``render(report, "text" | "json" | "html")`` writes the view."""
from __future__ import annotations

from .report import FORMATS, Report, build_report, render, render_html, render_json, render_text, to_json

__all__ = ["FORMATS", "Report", "build_report", "render", "render_html", "render_json", "render_text", "to_json"]
