//! The flagship's base feature matrix: every block's own feature groups, then its
//! neighbours' values of a few of them. The column names and their order are part of the
//! model files' format (models select their columns by name).

use crate::hash::HashSet;

use super::columns::Columns;
use super::page::Head;
use super::tree::{TreeFacts, TreeParams};
use super::{cetr, context, neighbours, page, shallow, structure, template};
use crate::document::Document;
use crate::dom::Dom;

/// The base columns of `doc`'s blocks: shallow text, tree context, CETR, page level, page
/// structure, template paths, then the neighbours of [`neighbours::NEIGHBOUR_COLUMNS`].
/// `facts` are the tree facts computed with `params`; `stop_words` are lower-cased.
pub fn base_columns(
    dom: &Dom,
    doc: &Document,
    facts: &TreeFacts,
    params: &TreeParams,
    stop_words: &HashSet<String>,
    head: &Head<'_>,
) -> Columns {
    let mut own = own_columns(dom, doc, facts, params, stop_words, head);
    let around = neighbours::columns(&own, &neighbours::NEIGHBOUR_COLUMNS, &neighbours::OFFSETS);
    own.extend(around);
    own
}

/// The blocks' own groups of [`base_columns`], without the neighbours.
fn own_columns(
    dom: &Dom,
    doc: &Document,
    facts: &TreeFacts,
    params: &TreeParams,
    stop_words: &HashSet<String>,
    head: &Head<'_>,
) -> Columns {
    let block_tags: Vec<&str> = doc
        .blocks
        .iter()
        .map(|b| dom.tag(doc.nodes[b.element as usize]))
        .collect();
    let mut own = Columns::default();
    let rows = shallow::shallow_text(doc, stop_words);
    let width = shallow::COLUMNS.len();
    for (j, name) in shallow::COLUMNS.iter().enumerate() {
        let column = rows.get(j..).unwrap_or_default();
        own.push_f32(*name, column.iter().step_by(width).copied().collect());
    }
    own.extend(context::columns(
        doc,
        &block_tags,
        facts,
        &params.context_tags,
    ));
    own.extend(cetr::columns(doc));
    own.extend(page::columns(doc, head));
    own.extend(structure::columns(doc, &block_tags, head.title));
    own.extend(template::columns(doc, facts));
    own
}

/// [`base_columns`]' values row after row (one row per block): the own groups as
/// [`base_columns`] computes them, the neighbours' values read from them as each row is
/// written (no column of their own is made).
pub fn base_rows(
    dom: &Dom,
    doc: &Document,
    facts: &TreeFacts,
    params: &TreeParams,
    stop_words: &HashSet<String>,
    head: &Head<'_>,
) -> Vec<f32> {
    let own = own_columns(dom, doc, facts, params, stop_words, head);
    // Each neighbour column: its offset and the own column it reads, in base_columns' order.
    let sources: Vec<(i64, &[f32])> = neighbours::OFFSETS
        .iter()
        .flat_map(|&offset| {
            let own = &own;
            neighbours::NEIGHBOUR_COLUMNS
                .iter()
                .filter_map(move |name| Some((offset, own.column(name)?)))
        })
        .collect();
    let rows = doc.blocks.len();
    let width = own.values.len() + sources.len();
    let mut out = vec![0.0f32; rows * width];
    if width == 0 {
        return out;
    }
    for (j, column) in own.values.iter().enumerate() {
        for (row, &v) in out.chunks_exact_mut(width).zip(column) {
            row[j] = v;
        }
    }
    for (k, &(offset, column)) in sources.iter().enumerate() {
        let j = own.values.len() + k;
        for (i, row) in out.chunks_exact_mut(width).enumerate() {
            let from = usize::try_from(i as i64 + offset).ok();
            if let Some(&v) = from.and_then(|at| column.get(at)) {
                row[j] = v;
            }
        }
    }
    out
}

/// [`base_columns`]' names: they depend on `params` only (they are those of a page
/// without blocks).
pub fn base_names(params: &TreeParams) -> Vec<String> {
    let types = HashSet::default();
    let head = Head {
        title: "",
        structured_text: "",
        types: &types,
    };
    let (dom, doc) = (Dom::default(), Document::default());
    base_columns(
        &dom,
        &doc,
        &TreeFacts::default(),
        params,
        &HashSet::default(),
        &head,
    )
    .names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::tree::tree_facts;
    use crate::{build, parse, Limits};

    /// The tree-fact settings of these tests: two context tags, cues up to 30 blocks away.
    fn tree_params() -> TreeParams {
        TreeParams {
            context_tags: vec!["a".into(), "li".into()],
            max_cue_distance: 30,
            ..TreeParams::default()
        }
    }

    fn base(html: &str) -> Columns {
        let dom = parse(html, Limits::default());
        let doc = build(&dom);
        let params = tree_params();
        let facts = tree_facts(&dom, &doc, false, &params);
        let types = HashSet::default();
        let head = Head {
            title: "A title",
            structured_text: "",
            types: &types,
        };
        base_columns(&dom, &doc, &facts, &params, &HashSet::default(), &head)
    }

    #[test]
    fn every_group_in_order_and_every_column_full() {
        let cols = base("<h1>A title</h1><p>one two</p><ul><li><a href=x>link</a></li></ul>");
        let at = |name: &str| cols.names.iter().position(|n| n == name).unwrap();
        assert_eq!(at("log_chars"), 0);
        assert!(at("starts_upper") < at("depth") && at("depth") < at("cetr_ratio"));
        assert!(at("cetr_derivative") < at("page_link_share"));
        assert!(at("relative_length") < at("text_repeats"));
        assert!(at("copies_after") < at("path_blocks"));
        assert_eq!(at("log_words@-2") - 1, at("tag_path_link_density"));
        assert_eq!(cols.names.last().unwrap(), "pos_cue_near@+2");
        assert_eq!(cols.names.len(), 18 + 17 + 26 + 2 + 9 + 5 + 6 + 40);
        assert!(cols.values.iter().all(|c| c.len() == 3));
        assert_eq!(cols.column("tag_li@+1").unwrap(), [0.0, 1.0, 0.0]);
        assert_eq!(cols.column("tag_p@-1").unwrap(), [0.0, 0.0, 1.0]);
        assert_eq!(cols.column("main_heading_side").unwrap(), [0.0, 1.0, 1.0]);
    }

    #[test]
    fn the_rows_are_the_columns_row_after_row() {
        for html in [
            "",
            "<p>x</p>",
            "<h1>A title</h1><p>one two</p><ul><li><a href=x>link</a></li><li>b</li></ul><p>c</p>",
        ] {
            let dom = parse(html, Limits::default());
            let doc = build(&dom);
            let params = tree_params();
            let facts = tree_facts(&dom, &doc, false, &params);
            let types = HashSet::default();
            let stops: HashSet<String> = ["one".to_owned()].into_iter().collect();
            let head = Head {
                title: "A title",
                structured_text: "one two words",
                types: &types,
            };
            let cols = base_columns(&dom, &doc, &facts, &params, &stops, &head);
            let rows = base_rows(&dom, &doc, &facts, &params, &stops, &head);
            assert_eq!(rows, cols.row_major(doc.blocks.len()));
        }
    }

    #[test]
    fn the_names_are_those_of_any_page() {
        let params = tree_params();
        let cols = base("<h1>A title</h1><p>one two</p><ul><li><a href=x>link</a></li></ul>");
        assert_eq!(base_names(&params), cols.names);
    }

    #[test]
    fn a_page_without_blocks_has_the_columns_and_no_rows() {
        let cols = base("");
        assert_eq!(cols.names.len(), 18 + 17 + 26 + 2 + 9 + 5 + 6 + 40);
        assert!(cols.row_major(0).is_empty());
    }
}
