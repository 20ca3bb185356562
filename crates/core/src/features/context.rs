//! The block's place in the tree: depth, whether it is hidden, distance to the nearest
//! id/class cue word on its ancestors, repetition among its (and its ancestors') siblings,
//! the text share and link density of its ancestors' subtrees, the context tags on its path
//! and its own tag.

use super::columns::{flag, Columns};
use super::tree::TreeFacts;
use crate::document::Document;

/// Block tags with a one-hot column (`tag_<tag>`) each, in order.
pub const BLOCK_TAG_ONE_HOT: [&str; 26] = [
    "p",
    "div",
    "li",
    "td",
    "th",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "blockquote",
    "dd",
    "dt",
    "span",
    "section",
    "article",
    "a",
    "body",
    "option",
    "figcaption",
    "form",
    "ul",
    "tr",
    "table",
];

/// Sibling repetition saturates here: a 500-paragraph article must look like a 50-paragraph
/// one, not like a link list (unbounded counts made the flagship drop most of long articles).
pub const MAX_REPETITION: i64 = 50;
/// Depth saturates here.
const MAX_DEPTH: i64 = 60;
/// A cue word at most this many ancestors up is near (`neg_cue_near`, `pos_cue_near`).
const NEAR: i64 = 3;

fn repetition(count: i64) -> f64 {
    (count.min(MAX_REPETITION) as f64).ln_1p()
}

/// The columns of every block. `block_tags`: each block's tag; `context_tags`: the tags
/// whose bits `facts.context_bits` holds (bit i for tag i), one `in_<tag>` column each.
pub fn columns(
    doc: &Document,
    block_tags: &[&str],
    facts: &TreeFacts,
    context_tags: &[String],
) -> Columns {
    let mut cols = Columns::default();
    each_column(doc, block_tags, facts, context_tags, |name, values| {
        cols.push_f32(name, values)
    });
    cols
}

/// [`columns`] handed to `each` one column at a time (name, float32 values), in their order,
/// so that a caller may drop a column before the next one is computed.
pub fn each_column(
    doc: &Document,
    block_tags: &[&str],
    facts: &TreeFacts,
    context_tags: &[String],
    mut each: impl FnMut(String, Vec<f32>),
) {
    let total = facts.subtree_chars.first().copied().unwrap_or(1.0).max(1.0);
    let element: Vec<usize> = doc.blocks.iter().map(|b| b.element as usize).collect();
    // chain[level][block]: the block's element (level 0), its parent, grandparent, ...
    let mut chain = vec![element];
    for level in 0..3 {
        let up = chain[level]
            .iter()
            .map(|&e| facts.parents[e] as usize)
            .collect();
        chain.push(up);
    }
    let e0 = &chain[0];
    // Rounded to float32 as Columns::push rounds.
    let mut cols = ColumnSink(&mut each);
    cols.push(
        "depth",
        e0.iter().map(|&e| doc.depths[e].min(MAX_DEPTH) as f64),
    );
    cols.push("hidden", e0.iter().map(|&e| flag(facts.hidden[e])));
    let (neg, pos) = (&facts.neg_distance, &facts.pos_distance);
    cols.push("neg_cue_near", e0.iter().map(|&e| flag(neg[e] <= NEAR)));
    cols.push("pos_cue_near", e0.iter().map(|&e| flag(pos[e] <= NEAR)));
    cols.push("neg_cue_dist", e0.iter().map(|&e| neg[e] as f64));
    cols.push("pos_cue_dist", e0.iter().map(|&e| pos[e] as f64));
    for (name, level) in [
        ("siblings_same", 0),
        ("parent_siblings_same", 1),
        ("gparent_siblings_same", 2),
    ] {
        let same = &facts.same_sibling_count;
        cols.push(name, chain[level].iter().map(|&e| repetition(same[e])));
    }
    for (level, elements) in chain.iter().enumerate().skip(1) {
        let sub = |e: usize| facts.subtree_chars[e];
        cols.push(
            format!("anc{level}_text_share"),
            elements.iter().map(|&e| sub(e) / total),
        );
        cols.push(
            format!("anc{level}_link_density"),
            elements
                .iter()
                .map(|&e| facts.subtree_link_chars[e] / sub(e).max(1.0)),
        );
    }
    for (k, tag) in context_tags.iter().enumerate() {
        let bit = 1i64.checked_shl(k as u32).unwrap_or(0);
        cols.push(
            format!("in_{tag}"),
            e0.iter().map(|&e| flag(facts.context_bits[e] & bit != 0)),
        );
    }
    for tag in BLOCK_TAG_ONE_HOT {
        cols.push(
            format!("tag_{tag}"),
            block_tags.iter().map(|&t| flag(t == tag)),
        );
    }
}

/// Forwards each column, rounded to float32, to a caller's closure.
struct ColumnSink<'a, F: FnMut(String, Vec<f32>)>(&'a mut F);

impl<F: FnMut(String, Vec<f32>)> ColumnSink<'_, F> {
    fn push<I: IntoIterator<Item = f64>>(&mut self, name: impl Into<String>, values: I) {
        (self.0)(
            name.into(),
            values
                .into_iter()
                .map(|v| {
                    crate::budget::check();
                    v as f32
                })
                .collect(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::tree::{tree_facts, TreeParams};
    use crate::{build, parse, Limits};

    #[test]
    fn context_of_nested_blocks() {
        let dom = parse(
            "<div class='sidebar'><ul><li>one</li><li>two</li></ul></div><p hidden>text</p>",
            Limits::default(),
        );
        let doc = build(&dom);
        let params = TreeParams {
            context_tags: vec!["li".into(), "ul".into()],
            negative_cues: ["sidebar".to_owned()].into_iter().collect(),
            positive_cues: Default::default(),
            max_cue_distance: 30,
        };
        let facts = tree_facts(&dom, &doc, true, &params);
        let tags: Vec<&str> = doc
            .blocks
            .iter()
            .map(|b| dom.tag(doc.nodes[b.element as usize]))
            .collect();
        let cols = columns(&doc, &tags, &facts, &params.context_tags);
        assert_eq!(cols.column("in_li").unwrap(), [1.0, 1.0, 0.0]);
        assert_eq!(cols.column("in_ul").unwrap(), [1.0, 1.0, 0.0]);
        assert_eq!(cols.column("tag_li").unwrap(), [1.0, 1.0, 0.0]);
        assert_eq!(cols.column("tag_p").unwrap(), [0.0, 0.0, 1.0]);
        assert_eq!(cols.column("hidden").unwrap(), [0.0, 0.0, 1.0]);
        assert_eq!(cols.column("neg_cue_dist").unwrap(), [2.0, 2.0, 30.0]);
        assert_eq!(cols.column("neg_cue_near").unwrap(), [1.0, 1.0, 0.0]);
        let one = (1.0f64).ln_1p() as f32;
        assert_eq!(cols.column("siblings_same").unwrap(), [one, one, 0.0]);
        // The ul holds "one" and "two" of the page's 10 characters.
        assert_eq!(cols.column("anc1_text_share").unwrap()[0], 0.6);
        assert_eq!(cols.names.len(), 9 + 6 + 2 + BLOCK_TAG_ONE_HOT.len());
        assert_eq!(repetition(500), repetition(MAX_REPETITION));
    }
}
