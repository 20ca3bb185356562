"""A Hypothesis property: the Markdown output parses as GFM with as many tables as were rendered."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from test_render import result_for
from thresher.render import render

markdown_it = pytest.importorskip("markdown_it")

WORDS = st.text(alphabet=st.sampled_from("ab |*_`~#>-1.[]()\\<!"), min_size=1, max_size=12)


@st.composite
def cells(draw) -> tuple[str, bool]:
    """A cell's HTML, and whether it has text."""
    text = draw(WORDS)
    kind = draw(st.sampled_from(["plain", "b", "a", "br", "pre", "img"]))
    html = {"plain": text, "b": f"<b>{text}</b>", "a": f'<a href="/x?{text}">{text}</a>',
            "br": f"{text}<br>{text}", "pre": f"<pre>{text}\n{text}</pre>", "img": f'<img src="/i.png" alt="{text}">'}
    return bool(text.strip()) and kind != "img", html[kind]


@st.composite
def tables(draw) -> tuple[str, bool]:
    """A table's HTML, and whether it is written as a table: it has text and two cells or more."""
    rows = draw(st.integers(1, 4))
    width = draw(st.integers(1, 4))
    out, has_text = [], False
    for r in range(rows):
        tag = "th" if r == 0 and draw(st.booleans()) else "td"
        span = ' colspan="2"' if draw(st.booleans()) and width > 1 else ""
        row = []
        for c in range(width):
            text, cell = draw(cells())
            has_text = has_text or text
            row.append(f"<{tag}{span if c == 0 else ''}>{cell}</{tag}>")
        out.append("<tr>" + "".join(row) + "</tr>")
    # a table of one cell is a box around its content, not a table
    return "<table>" + "".join(out) + "</table>", has_text and rows * width >= 2


@st.composite
def pages(draw) -> tuple[str, int]:
    parts, count = [], 0
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["p", "table", "list", "quote", "h2"]))
        if kind == "table":
            table, has_text = draw(tables())
            parts.append(table)
            count += has_text
        elif kind == "list":
            parts.append("<ul>" + "".join(f"<li>{draw(WORDS)}</li>" for _ in range(draw(st.integers(1, 3)))) + "</ul>")
        elif kind == "quote":
            parts.append(f"<blockquote><p>{draw(WORDS)}</p><p>{draw(WORDS)}</p></blockquote>")
        else:
            parts.append(f"<{kind}>{draw(WORDS)}</{kind}>")
        parts.append("<p>Between the parts.</p>")
    return "".join(parts), count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages())
def test_markdown_parses_with_the_tables_rendered(page):
    body, rendered = page
    out = render(result_for(body), "markdown", title=False, links=True, images=True)
    parser = markdown_it.MarkdownIt("commonmark").enable("table")
    parsed = sum(1 for token in parser.parse(out) if token.type == "table_open")
    assert parsed == rendered, out
