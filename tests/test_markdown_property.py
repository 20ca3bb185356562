"""A Hypothesis property: the Markdown output parses as GFM with as many tables as were rendered."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from test_render import result_for
from thresher.render import render

markdown_it = pytest.importorskip("markdown_it")

WORDS = st.text(alphabet=st.sampled_from("ab |*_`~#>-1.[]()\\<!"), min_size=1, max_size=12)


@st.composite
def cells(draw, nested: bool) -> tuple[bool, str]:
    """Whether a cell has text of its own, and its HTML; ``nested``: it may hold a table."""
    text, other = draw(WORDS), draw(WORDS)
    kind = draw(st.sampled_from(["plain", "b", "a", "br", "pre", "img"] + (["table"] if nested else [])))
    html = {"plain": text, "b": f"<b>{text}</b>", "a": f'<a href="/x?{text}">{text}</a>',
            "br": f"{text}<br>{text}", "pre": f"<pre>{text}\n{text}</pre>", "img": f'<img src="/i.png" alt="{text}">',
            "table": f"<table><tr><td>{text}</td><td>{other}</td></tr></table>"}
    return bool(text.strip()) and kind not in ("img", "table"), html[kind]


@st.composite
def tables(draw) -> tuple[str, int]:
    """A table's HTML, and how many tables it is written as: one when it has text and two cells
    or more (a table of one cell is a box around its content, not a table); a table in a cell of
    a table with text in two cells of its own is written inside that cell."""
    rows = draw(st.integers(1, 4))
    width = draw(st.integers(1, 4))
    out, has_text = [], False
    may_nest = draw(st.booleans())
    for r in range(rows):
        tag = "th" if r == 0 and draw(st.booleans()) else "td"
        span = ' colspan="2"' if draw(st.booleans()) and width > 1 else ""
        row = []
        for c in range(width):
            text, cell = draw(cells(may_nest))
            has_text = has_text or text
            row.append(f"<{tag}{span if c == 0 else ''}>{cell}</{tag}>")
        out.append("<tr>" + "".join(row) + "</tr>")
    if may_nest:  # text in two cells of its own: a data table, whose cells hold the tables inside
        out.insert(0, "<tr><th>Key</th><th>Value</th></tr>")
        return "<table>" + "".join(out) + "</table>", 1
    return "<table>" + "".join(out) + "</table>", int(has_text and rows * width >= 2)


@st.composite
def pages(draw) -> tuple[str, int]:
    parts, count = [], 0
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["p", "table", "list", "quote", "h2"]))
        if kind == "table":
            table, written = draw(tables())
            parts.append(table)
            count += written
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
