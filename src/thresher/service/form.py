"""The one-page form of ``GET /``: paste a URL or a page, see its Markdown and its explain report.

Plain HTML and CSS, no script of its own and nothing loaded from elsewhere. The explain report
(:func:`thresher.explain.render_html`, self-contained) is shown in a sandboxed ``<iframe>``
whose scripts run in an opaque origin, apart from the service's.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

from .. import algorithms
from ..api import extract_result
from ..explain import build_report, render_html
from ..options import Options

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem; color: #222; }
h1 { font-size: 1.4rem; margin: .2rem 0 1rem; }
label { display: block; font-weight: 600; margin: .8rem 0 .3rem; }
input[type=url], textarea { width: 100%; box-sizing: border-box; font: 13px ui-monospace, monospace; padding: .4rem; }
textarea { height: 10rem; }
.row { display: flex; gap: 1.5rem; align-items: end; margin-top: .8rem; }
button { font-size: 1rem; padding: .4rem 1.4rem; }
pre { white-space: pre-wrap; background: #f6f6f4; border: 1px solid #ddd; padding: .8rem; max-height: 32rem;
      overflow: auto; }
iframe { width: 100%; height: 48rem; border: 1px solid #ddd; }
.error { background: #fde8e8; border: 1px solid #e4a0a0; padding: .6rem .8rem; }
.meta { color: #555; }
"""


@dataclass(frozen=True)
class Outcome:
    """What the form shows after a submission: the Markdown and the report, or an error."""

    markdown: str = ""
    report: str = ""  # the explain report, a whole HTML document
    title: str = ""
    language: str = ""
    error: str = ""


def explain_page(html: bytes | str, url: str | None, algorithm: str) -> Outcome:
    """The Markdown and the explain report of a page (in a worker thread)."""
    options = Options(algorithm=algorithm, output="markdown")
    result = extract_result(html, url, options=options, attributes=True)
    markdown = "" if result.rejected else result.render("markdown", **options.render_options())
    report = render_html(build_report(html, url, algorithm=algorithm))
    return Outcome(markdown, report, result.title, result.language)


def page(outcome: Outcome | None = None, url: str = "", html: str = "", algorithm: str = algorithms.DEFAULT) -> str:
    """The whole form page, with ``outcome`` below the form when there is one."""
    choices = "".join(f'<option{" selected" if name == algorithm else ""}>{escape(name)}</option>'
                      for name in algorithms.names())
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>thresher</title><style>{STYLE}</style></head><body>",
        "<h1>thresher: the main content of a page</h1>",
        '<form method="post" action="/">',
        '<label for="url">URL of a page</label>',
        f'<input type="url" id="url" name="url" placeholder="https://example.org/article" value="{escape(url)}">',
        '<label for="html">or its HTML (with a URL above, it is the page\'s address and is not fetched)</label>',
        f'<textarea id="html" name="html" spellcheck="false">{escape(html)}</textarea>',
        '<div class="row"><div><label for="algorithm">Algorithm</label>',
        f'<select id="algorithm" name="algorithm">{choices}</select></div>',
        '<button type="submit">Extract</button></div></form>',
    ]
    if outcome is not None and outcome.error:
        parts.append(f'<p class="error" role="alert">{escape(outcome.error)}</p>')
    elif outcome is not None:
        facts = " · ".join(escape(f) for f in (outcome.title, outcome.language) if f)
        parts += [
            "<h2>Markdown</h2>",
            f'<p class="meta">{facts}</p>' if facts else "",
            f"<pre>{escape(outcome.markdown) or '(no main content found)'}</pre>",
            "<h2>Explain report</h2>",
            f'<iframe title="explain report" sandbox="allow-scripts" srcdoc="{escape(outcome.report, quote=True)}">'
            "</iframe>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts)
