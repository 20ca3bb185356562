use super::*;
use crate::parse::{parse, Limits};

fn document(html: &str) -> (Dom, Document) {
    let dom = parse(html, Limits::default());
    let doc = build(&dom);
    (dom, doc)
}

fn texts(html: &str) -> Vec<String> {
    document(html)
        .1
        .blocks
        .into_iter()
        .map(|b| b.text)
        .collect()
}

#[test]
fn nearest_finds_the_innermost_ancestor_with_a_tag() {
    let dom = crate::parse(
        "<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table><p>y</p>",
        crate::Limits::default(),
    );
    let doc = build(&dom);
    let tables = doc.nearest(&dom, &["table".to_owned()]);
    let tags: Vec<&str> = doc.nodes.iter().map(|&n| dom.tag(n)).collect();
    let outer = tags.iter().position(|&t| t == "table").unwrap();
    let inner = tags.iter().rposition(|&t| t == "table").unwrap();
    let cells: Vec<usize> = (0..tags.len()).filter(|&i| tags[i] == "td").collect();
    assert_eq!(tables[cells[0]], outer as i64);
    assert_eq!(tables[cells[1]], inner as i64);
    assert_eq!(tables[tags.iter().position(|&t| t == "p").unwrap()], -1);
    assert_eq!(tables[0], -1);
}

#[test]
fn the_exported_tag_lists_are_the_walk_s_roles() {
    for tag in BLOCK_TAGS {
        assert!(role(tag).has(Role::BLOCK), "{tag}");
    }
    for tag in HEADING_TAGS {
        assert!(role(tag).has(Role::HEADING) && is_heading_tag(tag), "{tag}");
    }
    for tag in SKIPPED_TAGS {
        assert!(role(tag).has(Role::SKIP) && is_skipped_tag(tag), "{tag}");
    }
    for tag in [
        "span", "a", "b", "img", "br", "math", "x-custom", "font", "label", "button", "noscript",
    ] {
        assert!(
            !role(tag).has(Role::BLOCK) && !role(tag).has(Role::SKIP),
            "{tag}"
        );
    }
}

#[test]
fn block_tags_split_and_inline_tags_do_not() {
    assert_eq!(
        texts("<p>a <b>bold</b> c</p><div>d<p>e</p>f</div>"),
        ["a bold c", "d", "e", "f"]
    );
}

#[test]
fn one_br_is_a_line_break_and_two_end_the_block() {
    let (dom, doc) = document("<p>a<br>b<br> <br>c</p>");
    let blocks: Vec<&str> = doc.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(blocks, ["a b", "c"]);
    let first = &doc.blocks[0];
    let spans: Vec<&str> = doc.spans[first.span_start as usize..first.span_end as usize]
        .iter()
        .map(|s| doc.span_text(&dom, *s))
        .collect();
    // White space after a block's text is kept in its spans, not in its text.
    assert_eq!(spans[..3], ["a", "\n", "b"]);
}

#[test]
fn skipped_elements_give_no_text_but_head_facts() {
    let (_, doc) = document(
        "<html><head><title> The  title </title><meta property='og:title' content='OG'>\
         <link rel='Canonical' href='/c'></head><body><script>var x;</script>\
         <script type='application/ld+json'>{\"a\":1}</script><style>p{}</style><p>text</p></body></html>",
    );
    assert_eq!(doc.blocks.len(), 1);
    assert_eq!(doc.head.title, "The title");
    assert_eq!(
        doc.head.meta,
        [
            ("og:title".to_owned(), "OG".to_owned()),
            ("canonical".to_owned(), "/c".to_owned())
        ]
    );
    assert_eq!(doc.head.json_ld, ["{\"a\":1}"]);
    assert_eq!(doc.skipped.len(), 4);
}

#[test]
fn link_counts_and_heading_flags() {
    let (_, doc) =
        document("<h2>Title <a href=x>here</a></h2><p>see <a href=y>the  other page</a></p>");
    assert!(doc.blocks[0].is_heading && !doc.blocks[1].is_heading);
    assert_eq!(
        (doc.blocks[1].link_chars, doc.blocks[1].link_words),
        (14, 3)
    );
    assert_eq!(doc.blocks[1].words, 4);
}

#[test]
fn ruby_keeps_its_base_text_only() {
    assert_eq!(
        texts("<p><ruby>子<rp>(</rp><rt>こども</rt><rp>)</rp></ruby>が来た</p>"),
        ["子が来た"]
    );
}

#[test]
fn pre_keeps_its_lines() {
    assert_eq!(
        texts("<pre>\n\n  a = 1\n    b\n\n</pre>"),
        ["  a = 1\n    b"]
    );
}

#[test]
fn hidden_math_is_skipped_and_visible_math_is_text() {
    assert_eq!(
        texts("<p>x <math style='display:none'><mi>y</mi></math> <math><mi>z</mi></math></p>"),
        ["x z"]
    );
}

#[test]
fn element_ranges_nest_and_offsets_accumulate() {
    let (_, doc) = document("<div><p>one</p><ul><li>two</li><li>three</li></ul></div><p>four</p>");
    for i in 0..doc.len() {
        let parent = doc.parents[i];
        assert!(doc.first_blocks[i] <= doc.end_blocks[i]);
        if parent >= 0 {
            let p = parent as usize;
            assert!(p < i && doc.depths[i] == doc.depths[p] + 1);
            assert!(
                doc.first_blocks[p] <= doc.first_blocks[i]
                    && doc.end_blocks[i] <= doc.end_blocks[p]
            );
        }
    }
    let offsets: Vec<u64> = doc.blocks.iter().map(|b| b.offset).collect();
    assert_eq!(offsets, [0, 3, 6, 11]);
}

#[test]
fn dropping_blocks_renumbers_the_element_ranges() {
    let (dom, doc) = document("<div><p>one</p><p>two</p></div><p>three</p>");
    let kept = doc.keep_blocks(&[true, false, true]);
    let texts: Vec<&str> = kept.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["one", "three"]);
    assert_eq!(kept.blocks[1].offset, 3);
    let div = doc.nodes.iter().position(|&n| dom.tag(n) == "div").unwrap();
    assert_eq!((kept.first_blocks[div], kept.end_blocks[div]), (0, 1));
    for i in 0..kept.len() {
        assert!(kept.first_blocks[i] <= kept.end_blocks[i] && kept.end_blocks[i] <= 2);
    }
}

/// Random tag soup: parsing and walking never panic, and every element's block range lies
/// inside its parent's.
#[test]
fn random_tag_soup_builds_a_consistent_document() {
    const PIECES: &[&str] = &[
        "<p>",
        "</p>",
        "<div>",
        "</div>",
        "<table>",
        "<td>",
        "<tr>",
        "</table>",
        "<li>",
        "<ul>",
        "</ul>",
        "<b>",
        "</b>",
        "<a href=x>",
        "</a>",
        "<br>",
        "<pre>",
        "</pre>",
        "<script>",
        "</script>",
        "<svg>",
        "<math>",
        "</math>",
        "<template>",
        "</template>",
        "<select>",
        "<option>",
        "<frameset>",
        "<noframes>",
        "<h1>",
        "</h1>",
        "<!--",
        "-->",
        "<head>",
        "<title>",
        "</title>",
        "<textarea>",
        "<ruby><rt>",
        "word ",
        "\n",
        " ",
        "&amp;",
        "&",
        "<",
        ">",
        "é",
        "\u{200b}",
        "\0",
        "<x a=1 b='2' c>",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20_000 {
        let mut html = String::new();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = (state % 90) as usize;
        for _ in 0..len {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            html.push_str(PIECES[(state % PIECES.len() as u64) as usize]);
        }
        let dom = parse(
            &html,
            Limits {
                max_attributes: 2,
                max_depth: 6,
            },
        );
        let doc = build(&dom);
        for i in 0..doc.len() {
            assert!(
                doc.first_blocks[i] <= doc.end_blocks[i]
                    && doc.end_blocks[i] as usize <= doc.blocks.len()
            );
            if doc.parents[i] >= 0 {
                let p = doc.parents[i] as usize;
                assert!(
                    doc.first_blocks[p] <= doc.first_blocks[i]
                        && doc.end_blocks[i] <= doc.end_blocks[p]
                );
            }
        }
    }
}

#[test]
fn half_a_million_list_items_are_walked_without_recursion() {
    let html = "<ul>".to_owned() + &"<li>item</li>".repeat(500_000) + "</ul>";
    assert_eq!(document(&html).1.blocks.len(), 500_000);
}

#[test]
fn machine_data_in_text_makes_no_block() {
    let json = r#"{"@type": "Article", "datePublished": "2024-01-01T10:00:00Z", "image": "a.jpg"}"#;
    let blob = format!("https://cdn.example.com/img/{}.jpg", "9f3a".repeat(30));
    let html = format!(
        "<p>shown</p><div>{json}</div><p>{blob}</p><p><a href='/x'>{blob}</a></p><pre>{json}</pre>\
         <p>send <code>{json}</code></p><p hidden>hidden text is still walked</p>"
    );
    assert_eq!(
        texts(&html),
        [
            "shown".to_owned(),
            blob.clone(),
            json.to_owned(),
            format!("send {json}"),
            "hidden text is still walked".to_owned()
        ]
    );
}
