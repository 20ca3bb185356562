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

/// How many tree-context columns [`own_groups`] hands over at once.
const CONTEXT_BATCH: usize = 8;

/// The blocks' own groups of [`base_columns`], without the neighbours.
fn own_columns(
    dom: &Dom,
    doc: &Document,
    facts: &TreeFacts,
    params: &TreeParams,
    stop_words: &HashSet<String>,
    head: &Head<'_>,
) -> Columns {
    let mut own = Columns::default();
    own_groups(dom, doc, facts, params, stop_words, head, |group| {
        own.extend(group)
    });
    own
}

/// Hands the blocks' own groups of [`base_columns`] to `each`, one after the other in
/// their order, so that a caller may drop a group before the next one is computed.
fn own_groups(
    dom: &Dom,
    doc: &Document,
    facts: &TreeFacts,
    params: &TreeParams,
    stop_words: &HashSet<String>,
    head: &Head<'_>,
    mut each: impl FnMut(Columns),
) {
    let block_tags: Vec<&str> = doc
        .blocks
        .iter()
        .map(|b| dom.tag(doc.nodes[b.element as usize]))
        .collect();
    let mut shallow_group = Columns::default();
    let rows = shallow::shallow_text(doc, stop_words);
    let width = shallow::COLUMNS.len();
    for (j, name) in shallow::COLUMNS.iter().enumerate() {
        let column = rows.get(j..).unwrap_or_default();
        shallow_group.push_f32(*name, column.iter().step_by(width).copied().collect());
    }
    drop(rows);
    each(shallow_group);
    // The tree context a few columns at a time: its group is the widest, and a few columns
    // written together share each row's visit.
    let mut batch = Columns::default();
    context::each_column(
        doc,
        &block_tags,
        facts,
        &params.context_tags,
        |name, values| {
            batch.push_f32(name, values);
            if batch.values.len() >= CONTEXT_BATCH {
                each(std::mem::take(&mut batch));
            }
        },
    );
    if !batch.values.is_empty() {
        each(batch);
    }
    each(cetr::columns(doc));
    each(page::columns(doc, head));
    each(structure::columns(doc, &block_tags, head.title));
    each(template::columns(doc, facts));
}

/// [`base_columns`]' values row after row (one row per block, `width` values in each:
/// [`base_names`]' count). Each own group is written into the rows as soon as it is
/// computed and then dropped, except the columns the neighbours read, whose values are
/// written last, row by row (no column of their own is made): the page's features exist
/// once, as the rows, plus one group at a time.
pub fn base_rows(
    dom: &Dom,
    doc: &Document,
    facts: &TreeFacts,
    params: &TreeParams,
    stop_words: &HashSet<String>,
    head: &Head<'_>,
    width: usize,
) -> Vec<f32> {
    let rows = doc.blocks.len();
    let mut out = vec![0.0f32; rows * width];
    if width == 0 {
        return out;
    }
    let mut at = 0;
    // The own columns the neighbours read, by their place in NEIGHBOUR_COLUMNS.
    let mut kept: Vec<(usize, Vec<f32>)> = Vec::new();
    own_groups(dom, doc, facts, params, stop_words, head, |group| {
        write_columns(&mut out, width, at, &group.values);
        at += group.values.len();
        for (name, column) in group.names.into_iter().zip(group.values) {
            let place = neighbours::NEIGHBOUR_COLUMNS
                .iter()
                .position(|n| *n == name);
            if let Some(k) = place.filter(|k| kept.iter().all(|(held, _)| held != k)) {
                kept.push((k, column));
            }
        }
    });
    kept.sort_by_key(|(k, _)| *k);
    // Each neighbour column: its offset and the own column it reads, in base_columns' order.
    let sources: Vec<(i64, &[f32])> = neighbours::OFFSETS
        .iter()
        .flat_map(|&offset| kept.iter().map(move |(_, c)| (offset, c.as_slice())))
        .collect();
    for (i, row) in out.chunks_exact_mut(width).enumerate() {
        crate::budget::check();
        let Some(slots) = row.get_mut(at..) else {
            break;
        };
        for (slot, &(offset, column)) in slots.iter_mut().zip(&sources) {
            let from = usize::try_from(i as i64 + offset).ok();
            if let Some(&v) = from.and_then(|j| column.get(j)) {
                *slot = v;
            }
        }
    }
    out
}

/// Writes `columns` into the rows of `out` (`width` values each) from place `at` on, row
/// after row (one pass over the rows for the whole group).
fn write_columns(out: &mut [f32], width: usize, at: usize, columns: &[Vec<f32>]) {
    for (i, row) in out.chunks_exact_mut(width).enumerate() {
        crate::budget::check();
        let Some(slots) = row.get_mut(at..) else {
            return;
        };
        for (slot, column) in slots.iter_mut().zip(columns) {
            if let Some(&v) = column.get(i) {
                *slot = v;
            }
        }
    }
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
            let width = base_names(&params).len();
            let rows = base_rows(&dom, &doc, &facts, &params, &stops, &head, width);
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
