//! The flagship's base feature matrix: every block's own feature groups, then its
//! neighbours' values of a few of them. The column names and their order are part of the
//! model files' format (models select their columns by name).

use crate::hash::HashSet;
use std::ops::Range;

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
    // The structure group first, held until its place: its transient tables (a hash per
    // text, group numbers) are the largest of all groups, and are better made before the
    // other groups' columns are held too.
    let structure_group = structure::columns(doc, &block_tags, head.title);
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
    each(structure_group);
    each(template::columns(doc, facts));
}

/// [`base_columns`]' values row after row (one row per block, `width` values in each:
/// [`base_names`]' count; a smaller `width` keeps the first columns). The values are those
/// of [`BaseMatrix`], which is how scoring holds them.
pub fn base_rows(
    dom: &Dom,
    doc: &Document,
    facts: &TreeFacts,
    params: &TreeParams,
    stop_words: &HashSet<String>,
    head: &Head<'_>,
    width: usize,
) -> Vec<f32> {
    let matrix = BaseMatrix::new(dom, doc, facts, params, stop_words, head);
    let mut out = vec![0.0f32; matrix.rows() * width];
    if width == 0 {
        return out;
    }
    let mut full = vec![0.0f32; matrix.width()];
    for (i, row) in out.chunks_exact_mut(width).enumerate() {
        crate::budget::check();
        matrix.row_into(i, &mut full);
        for (slot, &v) in row.iter_mut().zip(&full) {
            *slot = v;
        }
    }
    out
}

/// One column of a [`BaseMatrix`].
#[derive(Clone, Debug, PartialEq)]
enum Column {
    /// One value for every block (a flag or tag no block has, a page-level value): no
    /// values of its own.
    Same(f32),
    /// Values that are all whole numbers from 0 to 255 (positive zero), a byte each: flags,
    /// one-hot tags, small counts. Each converts back to the very float32 it was.
    Bytes(Vec<u8>),
    Floats(Vec<f32>),
    /// Own column `of`'s value `offset` blocks along the reading order (0 past the ends): a
    /// neighbour column, which needs no values of its own.
    Shifted {
        of: usize,
        offset: i64,
    },
}

impl Column {
    /// `values` in the smallest form that gives each of them back to the bit.
    fn compact(values: Vec<f32>) -> Self {
        if let Some(&first) = values.first() {
            if values.iter().all(|v| v.to_bits() == first.to_bits()) {
                return Column::Same(first);
            }
        }
        // One pass: each value's byte, until one does not give its value back.
        let mut bytes = Vec::with_capacity(values.len());
        for &v in &values {
            let b = v as u8;
            if f32::from(b).to_bits() != v.to_bits() {
                return Column::Floats(values);
            }
            bytes.push(b);
        }
        Column::Bytes(bytes)
    }
}

/// [`base_columns`]' values held column by column, each own column as a byte per block when
/// its values allow it exactly, each neighbour column as a view of the own column it shifts.
/// Scoring reads the columns its models read from it; a page of 500,000 blocks holds about a
/// third of the row-major float32 matrix's bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BaseMatrix {
    rows: usize,
    columns: Vec<Column>,
}

impl BaseMatrix {
    /// The base columns of `doc`'s blocks (see [`base_columns`]): each own group is
    /// compacted as soon as it is computed and then dropped, so the page's features exist
    /// once, compacted, plus one group at a time.
    pub fn new(
        dom: &Dom,
        doc: &Document,
        facts: &TreeFacts,
        params: &TreeParams,
        stop_words: &HashSet<String>,
        head: &Head<'_>,
    ) -> Self {
        let rows = doc.blocks.len();
        let mut columns = Vec::new();
        // The own columns the neighbours read: (place in NEIGHBOUR_COLUMNS, column).
        let mut read: Vec<(usize, usize)> = Vec::new();
        own_groups(dom, doc, facts, params, stop_words, head, |group| {
            for (name, values) in group.names.into_iter().zip(group.values) {
                crate::budget::checkpoint();
                let place = neighbours::NEIGHBOUR_COLUMNS
                    .iter()
                    .position(|n| *n == name);
                if let Some(k) = place.filter(|k| read.iter().all(|(held, _)| held != k)) {
                    read.push((k, columns.len()));
                }
                columns.push(Column::compact(values));
            }
        });
        read.sort_by_key(|(k, _)| *k);
        for &offset in &neighbours::OFFSETS {
            for &(_, of) in &read {
                columns.push(Column::Shifted { of, offset });
            }
        }
        BaseMatrix { rows, columns }
    }

    /// Blocks (rows).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns ([`base_names`]' count).
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// Column `j`'s one value, when it has the same for every block.
    pub fn same(&self, j: usize) -> Option<f32> {
        match self.columns[j] {
            Column::Same(v) => Some(v),
            _ => None,
        }
    }

    /// Column `j`'s value for block `row`.
    #[inline]
    pub fn get(&self, row: usize, j: usize) -> f32 {
        match &self.columns[j] {
            Column::Same(v) => {
                assert!(row < self.rows, "row {row} of {} rows", self.rows);
                *v
            }
            Column::Bytes(v) => f32::from(v[row]),
            Column::Floats(v) => v[row],
            &Column::Shifted { of, offset } => self.shifted(of, row, offset),
        }
    }

    fn shifted(&self, of: usize, row: usize, offset: i64) -> f32 {
        let at = row as i64 + offset;
        match usize::try_from(at) {
            Ok(at) if at < self.rows => self.get(at, of),
            _ => 0.0,
        }
    }

    /// Block `row`'s values, every column, into `out` (at least [`BaseMatrix::width`] long).
    pub fn row_into(&self, row: usize, out: &mut [f32]) {
        for (j, slot) in out.iter_mut().enumerate().take(self.columns.len()) {
            *slot = self.get(row, j);
        }
    }

    /// Column `j`'s values of blocks `rows` (a range), one after the other into `out`.
    pub fn gather_range(&self, j: usize, rows: Range<usize>, out: &mut [f32]) {
        let out = &mut out[..rows.len()];
        match &self.columns[j] {
            Column::Same(v) => {
                assert!(rows.end <= self.rows, "rows {rows:?} of {}", self.rows);
                out.fill(*v);
            }
            Column::Bytes(v) => {
                for (slot, &b) in out.iter_mut().zip(&v[rows]) {
                    *slot = f32::from(b);
                }
            }
            Column::Floats(v) => out.copy_from_slice(&v[rows]),
            &Column::Shifted { of, offset } => {
                // The rows whose shifted row lies on the page read it; the others are 0.
                let n = self.rows as i64;
                let lo = (-offset).clamp(rows.start as i64, rows.end as i64) as usize;
                let hi = (n - offset).clamp(lo as i64, rows.end as i64) as usize;
                out.fill(0.0);
                if lo < hi {
                    let from = (lo as i64 + offset) as usize..(hi as i64 + offset) as usize;
                    self.gather_range(of, from, &mut out[lo - rows.start..hi - rows.start]);
                }
            }
        }
    }

    /// Column `j`'s values of blocks `rows`, one after the other into `out`.
    pub fn gather(&self, j: usize, rows: &[usize], out: &mut [f32]) {
        let slots = out.iter_mut();
        match &self.columns[j] {
            Column::Same(v) => {
                for (slot, &row) in slots.zip(rows) {
                    assert!(row < self.rows, "row {row} of {} rows", self.rows);
                    *slot = *v;
                }
            }
            Column::Bytes(v) => {
                for (slot, &row) in slots.zip(rows) {
                    *slot = f32::from(v[row]);
                }
            }
            Column::Floats(v) => {
                for (slot, &row) in slots.zip(rows) {
                    *slot = v[row];
                }
            }
            &Column::Shifted { of, offset } => {
                let n = self.rows as i64;
                let at = |row: usize| {
                    let at = row as i64 + offset;
                    (0..n).contains(&at).then_some(at as usize)
                };
                match &self.columns[of] {
                    Column::Same(v) => {
                        for (slot, &row) in slots.zip(rows) {
                            *slot = at(row).map_or(0.0, |_| *v);
                        }
                    }
                    Column::Bytes(v) => {
                        for (slot, &row) in slots.zip(rows) {
                            *slot = at(row).map_or(0.0, |a| f32::from(v[a]));
                        }
                    }
                    Column::Floats(v) => {
                        for (slot, &row) in slots.zip(rows) {
                            *slot = at(row).map_or(0.0, |a| v[a]);
                        }
                    }
                    Column::Shifted { .. } => {
                        for (slot, &row) in slots.zip(rows) {
                            *slot = self.shifted(of, row, offset);
                        }
                    }
                }
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
    fn the_matrix_gives_every_value_back_to_the_bit() {
        let html =
            "<h1>A title</h1><p>one two</p><ul><li><a href=x>link</a></li><li>b</li></ul><p>c</p>";
        let dom = parse(html, Limits::default());
        let doc = build(&dom);
        let params = tree_params();
        let facts = tree_facts(&dom, &doc, false, &params);
        let types = HashSet::default();
        let head = Head {
            title: "A title",
            structured_text: "one two words",
            types: &types,
        };
        let stops = HashSet::default();
        let cols = base_columns(&dom, &doc, &facts, &params, &stops, &head);
        let matrix = BaseMatrix::new(&dom, &doc, &facts, &params, &stops, &head);
        assert_eq!(matrix.width(), cols.names.len());
        assert_eq!(matrix.rows(), doc.blocks.len());
        let rows: Vec<usize> = (0..doc.blocks.len()).rev().collect();
        for (j, column) in cols.values.iter().enumerate() {
            for (row, v) in column.iter().enumerate() {
                assert_eq!(matrix.get(row, j).to_bits(), v.to_bits());
            }
            let mut out = vec![9.0; rows.len() + 1];
            matrix.gather(j, &rows, &mut out);
            for (k, &row) in rows.iter().enumerate() {
                assert_eq!(out[k].to_bits(), column[row].to_bits());
            }
            assert_eq!(out[rows.len()], 9.0);
            for range in [0..0, 0..rows.len(), 1..rows.len(), 0..1, 2..3] {
                let mut out = vec![9.0; range.len()];
                matrix.gather_range(j, range.clone(), &mut out);
                for (v, row) in out.iter().zip(range) {
                    assert_eq!(v.to_bits(), column[row].to_bits());
                }
            }
        }
        assert!(matrix.columns.iter().any(|c| matches!(c, Column::Bytes(_))));
        assert!(matrix.columns.iter().any(|c| matches!(c, Column::Same(_))));
        assert!(matrix
            .columns
            .iter()
            .any(|c| matches!(c, Column::Shifted { .. })));
    }

    #[test]
    fn a_column_is_bytes_only_when_every_value_comes_back() {
        assert_eq!(
            Column::compact(vec![0.0, 1.0, 255.0]),
            Column::Bytes(vec![0, 1, 255])
        );
        assert_eq!(Column::compact(vec![0.5, 0.5]), Column::Same(0.5));
        assert_eq!(
            Column::compact(vec![0.0, -0.0]),
            Column::Floats(vec![0.0, -0.0])
        );
        assert_eq!(Column::compact(vec![]), Column::Bytes(vec![]));
        for odd in [-0.0, 0.5, 256.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(matches!(Column::compact(vec![1.0, odd]), Column::Floats(_)));
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
