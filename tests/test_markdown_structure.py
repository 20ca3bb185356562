"""Markdown that keeps a page's structure: golden pages of our own with their exact Markdown.

Each page is rendered with every block kept (or the labels given), so what is tested is the
renderer and its selection layer, not a classifier's decisions."""
from __future__ import annotations

from test_render import result_for
from thresher.render import render


def md(body: str, labels=None, **options) -> str:
    options = {"title": False, "links": True, "images": True, **options}
    return render(result_for(body, labels), "markdown", **options)


# -- lists, quotes, inline

def test_ordered_lists_are_numbered_from_their_start():
    page = '<ol start="3"><li>three</li><li>four</li><li value="10">ten</li><li>eleven</li></ol>'
    assert md(page) == "3. three\n4. four\n10. ten\n11. eleven"


def test_nested_items_indent_by_their_parent_items_marker():
    page = ("<ol><li>a</li><li>b</li><li>c</li><li>d</li><li>e</li><li>f</li><li>g</li><li>h</li><li>i</li>"
            "<li>ten<ul><li>inner</li></ul></li></ol>")
    assert md(page).splitlines()[-2:] == ["10. ten", "    - inner"]


def test_a_nested_item_whose_parent_item_is_dropped_is_not_indented_into_code():
    page = "<p>Intro text.</p><ul><li>Parent<ul><li>child one</li><li>child two</li></ul></li></ul>"
    assert md(page, labels=[True, False, True, True]) == "Intro text.\n\n- child one\n- child two"


def test_blockquote_paragraphs_stay_one_quote():
    page = "<blockquote><p>First said.</p><p>Then more.</p></blockquote><p>After.</p>"
    assert md(page) == "> First said.\n>\n> Then more.\n\nAfter."


def test_strikethrough():
    assert md("<p>Was <del>old</del> now <s>gone</s> and <strike>out</strike>.</p>") == \
        "Was ~~old~~ now ~~gone~~ and ~~out~~."


def test_literal_double_tildes_are_escaped():
    assert md("<p>a ~~b~~ c</p>") == "a \\~~b\\~~ c"


# -- code

def test_code_language_from_classes():
    pages = {
        '<pre class="language-python">x = 1</pre>': "python",
        '<pre><code class="lang-rust">let x = 1;</code></pre>': "rust",
        '<div><pre class="highlight-source-js">f()</pre></div>': "js",
        '<pre class="brush: ruby; gutter: false">puts 1</pre>': "ruby",
        '<pre class="highlight">plain</pre>': "",
    }
    for page, language in pages.items():
        assert md(page).splitlines()[0] == "```" + language, page


# -- images

def test_lazy_image_sources():
    page = ('<p>Text before the pictures.</p>'
            '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/lazy.jpg" alt="Lazy">'
            '<img data-srcset="/s.jpg 320w, /l.jpg 1024w, /m.jpg 640w" alt="Set">'
            '<picture><source srcset="/p1.webp 1x, /p2.webp 2x"><img alt="Pic"></picture>'
            '<img data-lazy-src="/dl.png" alt="">'
            '<p>Text after the pictures.</p>')
    assert md(page) == ("Text before the pictures.\n\n"
                        "![Lazy](https://example.com/lazy.jpg)\n\n"
                        "![Set](https://example.com/l.jpg)\n\n"
                        "![Pic](https://example.com/p2.webp)\n\n"
                        "![](https://example.com/dl.png)\n\n"
                        "Text after the pictures.")


def test_pixels_placeholders_and_trackers_are_not_images():
    page = ('<p>Story text here.</p><img src="/pixel.gif" width="1" height="1">'
            '<img src="data:image/png;base64,iVBORw0KGgo=">'
            '<img src="https://b.scorecardresearch.com/p?c1=2">'
            '<img src="/real.jpg" width="1" height="1" srcset="/real.jpg 800w" alt="Responsive">'
            '<p>More story.</p>')
    assert md(page) == "Story text here.\n\n![Responsive](https://example.com/real.jpg)\n\nMore story."


def test_figure_image_kept_with_its_caption_when_the_caption_is_dropped():
    page = ('<p>The river bends here.</p><figure><img src="/bend.jpg" alt="A bend">'
            '<figcaption>Photo: A. Person</figcaption></figure><p>It erodes the outer bank.</p>')
    assert md(page, labels=[True, False, True]) == (
        'The river bends here.\n\n![A bend](https://example.com/bend.jpg "Photo: A. Person")\n\n'
        "It erodes the outer bank.")


def test_figure_with_written_caption_is_image_then_caption():
    page = ('<p>The river bends here.</p><figure><img src="/bend.jpg" alt="A bend">'
            '<figcaption>A meander.</figcaption></figure>')
    assert md(page) == "The river bends here.\n\n![A bend](https://example.com/bend.jpg)\n\nA meander."


def test_paragraph_holding_only_an_image_is_kept():
    page = '<p>First paragraph.</p><p><img src="/only.png" alt="Only"></p><p>Last paragraph.</p>'
    assert md(page, labels=[True, False]) == "First paragraph.\n\n![Only](https://example.com/only.png)"


# -- units decided whole (selection)

def test_a_short_list_between_kept_paragraphs_is_kept():
    page = "<p>Two things matter here:</p><ul><li>the speed</li><li>the depth</li></ul><p>Both change.</p>"
    assert md(page, labels=[True, False, False, True]) == \
        "Two things matter here:\n\n- the speed\n- the depth\n\nBoth change."


def test_a_link_list_between_kept_paragraphs_is_not_kept():
    page = ('<p>Some text here.</p><ul><li><a href="/a">Home</a></li><li><a href="/b">About</a></li></ul>'
            "<p>More text.</p>")
    assert md(page, labels=[True, False, False, True]) == "Some text here.\n\nMore text."


REFERENCES = ("<h2>References</h2><ol>" + "".join(
    f'<li>Author {i} (2001). <a href="/paper/{i}">Paper {i}</a>. Journal of Things, volume {i}.</li>'
    for i in range(1, 8)) + "</ol><p>Last updated in May.</p>")


def test_a_long_list_part_of_which_is_kept_between_kept_blocks_is_kept_whole():
    # the algorithm took the heading, the first two references and what follows the list
    labels = [True, True, True] + [False] * 5 + [True]
    assert md(REFERENCES, labels=labels) == "## References\n\n" + "\n".join(
        f"{i}. Author {i} (2001). [Paper {i}](https://example.com/paper/{i}). Journal of Things, volume {i}."
        for i in range(1, 8)) + "\n\nLast updated in May."


def test_a_long_list_nothing_of_which_is_kept_stays_dropped():
    labels = [True] + [False] * 7 + [True]
    assert md(REFERENCES, labels=labels) == "## References\n\nLast updated in May."


def test_a_partly_kept_list_not_between_kept_blocks_stays_as_labelled():
    labels = [True, True, True] + [False] * 6
    assert md(REFERENCES, labels=labels).count("Author") == 2


def test_a_partly_kept_list_of_links_out_of_the_page_is_not_completed():
    page = ("<p>You might also like:</p><ul>" + "".join(f'<li><a href="/post/{i}">Post number {i}</a></li>'
                                                        for i in range(6)) + "</ul><p>Thanks for reading.</p>")
    labels = [True, True] + [False] * 5 + [True]
    assert md(page, labels=labels) == \
        "You might also like:\n\n- [Post number 0](https://example.com/post/0)\n\nThanks for reading."


def test_a_partly_kept_table_of_contents_is_kept_whole():
    names = ["Origins", "Early years", "Growth", "Decline", "Legacy", "Sources"]
    page = ("<p>Contents</p><ul>" + "".join(f'<li><a href="#s{i}">{name}</a></li>' for i, name in enumerate(names))
            + "</ul><p>It began in a shed.</p>")
    labels = [True, False, True, False, False, True, False, True]
    assert md(page, labels=labels) == "Contents\n\n" + "\n".join(
        f"- [{name}](https://example.com/news/story.html#s{i})" for i, name in enumerate(names)) + \
        "\n\nIt began in a shed."


def test_completing_a_list_adds_dropped_items_but_not_blocks_dropped_inside_kept_items():
    items = "".join(f"<li><figure><figcaption>Credit Photographer {i}</figcaption></figure>"
                    f"<p>Story {i} is about the river and the town beside it.</p></li>" for i in range(5))
    page = f"<p>The week in review.</p><ul>{items}</ul><p>See you next week.</p>"
    # a caption and a story per item: the stories of items 0 and 1 kept, items 2 to 4 dropped whole
    labels = [True, False, True, False, True, False, False, False, False, False, False, True]
    out = md(page, labels=labels)
    assert [f"Story {i}" in out for i in range(5)] == [True] * 5
    assert [f"Photographer {i}" in out for i in range(5)] == [False, False, True, True, True]


def test_a_self_anchor_heading_that_opens_kept_content_is_kept():
    page = '<h2><a href="#history">History</a></h2><p>It began in a shed.</p>'
    assert md(page, labels=[False, True]) == "## [History](https://example.com/news/story.html#history)\n\n" \
        "It began in a shed."


def test_a_plain_dropped_heading_stays_dropped():
    assert md("<h2>Related</h2><p>It began in a shed.</p>", labels=[False, True]) == "It began in a shed."


# -- tables

def test_table_with_links_spans_breaks_pipes_code_and_images():
    page = ('<table><tr><th>Name</th><th colspan="2">Values</th></tr>'
            '<tr><td rowspan="2"><a href="/a">A|B</a></td><td>1<br>2</td><td><pre>x = 1\ny = 2</pre></td></tr>'
            '<tr><td>3</td><td><img src="/c.png" alt="Cell"></td></tr></table>')
    assert md(page) == ("| Name | Values |  |\n"
                        "|---|---|---|\n"
                        "| [A\\|B](https://example.com/a) | 1<br>2 | `x = 1`<br>`y = 2` |\n"
                        "|  | 3 | ![Cell](https://example.com/c.png) |")


def test_a_table_nested_in_a_data_tables_cell_is_flattened_into_that_cell():
    page = ("<p>Before the table.</p><table><tr><th>Name</th><th>Detail</th></tr>"
            "<tr><td>A</td><td>Sizes<table><tr><td>x</td><td>y</td></tr><tr><td>z</td><td>w</td></tr></table></td></tr>"
            "<tr><td>B</td><td>C</td></tr></table><p>After the table.</p>")
    assert md(page) == ("Before the table.\n\n| Name | Detail |\n|---|---|\n| A | Sizes<br>x \\| y<br>z \\| w |\n"
                        "| B | C |\n\nAfter the table.")


def test_a_pre_in_a_later_cell_of_a_table_not_written_whole_stays_in_its_cell():
    # mostly links: not a data table, so its cells are written as kept, not whole
    page = ('<table><tr><td><a href="/one">First entry</a></td><td><a href="/two">Second entry</a></td></tr>'
            "<tr><td><pre>x = 1\ny = 2</pre></td><td>z</td></tr></table>")
    assert md(page) == ("| [First entry](https://example.com/one) | [Second entry](https://example.com/two) |\n"
                        "|---|---|\n| `x = 1`<br>`y = 2` | z |")


def test_a_data_table_inside_a_layout_table_stays_a_table():
    page = ("<table><tr><td><p>The layout column holds the article and its table.</p>"
            "<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table></td></tr></table>")
    assert md(page) == "The layout column holds the article and its table.\n\n| k | v |\n|---|---|\n| 1 | 2 |"


def test_tables_set_side_by_side_in_a_layout_table_stay_tables():
    page = ("<table><tr><td><table><tr><th>Name</th><th>Count</th></tr><tr><td>Ann</td><td>3</td></tr></table></td>"
            "<td><table><tr><th>Name</th><th>Lines</th></tr><tr><td>Bob</td><td>40</td></tr></table></td></tr></table>")
    assert md(page) == ("| Name | Count |\n|---|---|\n| Ann | 3 |\n\n"
                        "| Name | Lines |\n|---|---|\n| Bob | 40 |")


def test_a_one_cell_table_is_a_box_not_a_table():
    page = '<p>Code:</p><table><tr><td><pre class="javascript">f();\ng();</pre></td></tr></table>'
    assert md(page) == "Code:\n\n```\nf();\ng();\n```"


# -- inline markers at element edges

def test_one_element_is_one_marker_pair_around_nested_markup():
    assert md('<p><b>Bold <a href="/l">link</a> text</b> then <a href="/m"><i>it</i> plain</a>.</p>') == \
        "**Bold [link](https://example.com/l) text** then [*it* plain](https://example.com/m)."


def test_spaces_at_element_edges_go_outside_markers_and_empty_elements_write_none():
    assert md("<p>a<b> bold </b>b<i> </i>c<em></em>d <code>x  y</code> e</p>") == "a **bold** b cd `x y` e"


def test_markup_inside_code_is_its_text():
    assert md('<p>Run <code>make <b>all</b> <a href="/x">now</a></code>.</p>') == "Run `make all now`."


# -- the title

RIVERS = ("<article><h1>Why Rivers Meander</h1>"
          + "".join(f"<p>Paragraph {n} about rivers: water flows faster on the outside of a bend, erodes the bank "
                    "there and leaves sand on the inside, so every bend grows until the loop is cut off.</p>"
                    for n in range(6)) + "</article>")


def test_the_title_heading_is_the_clean_title_without_the_site_suffix():
    result = result_for(RIVERS, labels=[False] + [True] * 6, title="Why Rivers Meander | The Field Notebook")
    assert render(result, "markdown").splitlines()[0] == "# Why Rivers Meander"


def test_the_title_is_not_repeated_when_the_content_opens_with_it():
    result = result_for(RIVERS, title="Why Rivers Meander | The Field Notebook")
    out = render(result, "markdown")
    assert out.startswith("# Why Rivers Meander\n\nParagraph 0") and out.count("Why Rivers Meander") == 1


def test_the_title_is_the_same_with_and_without_metadata():
    import thresher

    page = f"<html><head><title>Why Rivers Meander | The Field Notebook</title></head><body>{RIVERS}</body></html>"
    plain = thresher.extract(page, output="markdown")
    front = thresher.extract(page, output="markdown", with_metadata=True)
    assert plain.splitlines()[0] == "# Why Rivers Meander"
    assert front.split("\n---\n", 1)[1].lstrip("\n") == plain


# -- formulas

MATH = ('<p>Euler wrote <math><semantics><mrow><msup><mi>e</mi><mrow><mi>i</mi><mi>π</mi></mrow></msup><mo>+</mo>'
        '<mn>1</mn><mo>=</mo><mn>0</mn></mrow><annotation encoding="application/x-tex">e^{i\\pi}+1=0</annotation>'
        '</semantics></math> in 1748.</p>'
        '<p><math display="block"><mfrac><mi>a</mi><mi>b</mi></mfrac><mo>≤</mo><msqrt><mi>x</mi></msqrt></math></p>'
        '<p>KaTeX: <span class="katex"><span class="katex-mathml"><math><semantics><mi>y</mi>'
        '<annotation encoding="application/x-tex">y^2</annotation></semantics></math></span>'
        '<span class="katex-html" aria-hidden="true"><span>y2</span></span></span> squared.</p>'
        '<p>MathJax: <span class="MathJax_Preview"></span><span class="MathJax" id="MathJax-Element-1-Frame">'
        '<span>z0</span></span><script type="math/tex" id="MathJax-Element-1">z_0</script> and '
        '<span class="MathJax_Display"><span class="MathJax" id="MathJax-Element-2-Frame"><span>w</span></span>'
        '</span><script type="math/tex; mode=display" id="MathJax-Element-2">w^3</script>.</p>')


def test_formulas_as_tex_in_markdown():
    assert md(MATH) == ("Euler wrote $e^{i\\pi}+1=0$ in 1748.\n\n"
                        "$$\\frac{a}{b}\\leq \\sqrt{x}$$\n\n"
                        "KaTeX: $y^2$ squared.\n\n"
                        "MathJax: $z_0$ and $w^3$.")


def test_text_output_keeps_the_tex_the_page_carries():
    assert render(result_for(MATH), "text") == ("Euler wrote $e^{i\\pi}+1=0$ in 1748.\n\n"
                                                "ab≤x\n\n"
                                                "KaTeX: $y^2$ squared.\n\n"
                                                "MathJax: $z_0$ and $w^3$.")


def test_details_keep_their_summary_as_a_bold_title():
    page = "<p>Intro text.</p><details><summary>Show the proof</summary><p>It follows from the lemma.</p></details>"
    assert md(page, labels=[True, False, True]) == "Intro text.\n\n**Show the proof**\n\nIt follows from the lemma."


def test_a_headings_anchor_mark_link_is_dropped():
    assert md('<h2 id="s"><a class="anchor" href="#s">¶</a>The dry summer</h2><p>Text.</p>') == \
        "## The dry summer\n\nText."


def test_an_ordered_list_stays_as_labelled():
    page = '<p>Some text.</p><ol><li id="a">One thing here.</li><li id="b">Two.</li><li>Three.</li></ol><p>End.</p>'
    assert md(page, labels=[True, False, False, False, False]) == "Some text."
