//! Blocks whose elements share their whole path from the root: the same tags with the same
//! class values (`path_*`), or the same tags alone (`tag_path_*`).
//!
//! A page's template repeats one path for each item of a kind: a listing's entries, a
//! forum's posts, a product grid's cards, a menu's links, an article's paragraphs. Unlike
//! sibling repetition (`siblings_same`), the items need not share a parent. Per block: how
//! many other blocks share its path, their share of the page's text, their link density.

use super::columns::Columns;
use super::structure::group_ids;
use super::tree::TreeFacts;
use crate::document::Document;

/// The columns of every block, from the path hashes of `facts`.
pub fn columns(doc: &Document, facts: &TreeFacts) -> Columns {
    let total = doc
        .blocks
        .iter()
        .map(|b| f64::from(b.chars))
        .sum::<f64>()
        .max(1.0);
    let mut cols = Columns::default();
    for (name, k) in [("path", 0usize), ("tag_path", 1)] {
        let group = group_ids(
            doc.blocks
                .iter()
                .map(|b| facts.paths[2 * b.element as usize + k]),
        );
        // Per path: blocks, characters, link characters (summed in block order).
        let mut size = vec![0u64; group.len()];
        let mut chars = vec![0.0f64; group.len()];
        let mut links = vec![0.0f64; group.len()];
        for (&g, block) in group.iter().zip(&doc.blocks) {
            size[g] += 1;
            chars[g] += f64::from(block.chars);
            links[g] += f64::from(block.link_chars);
        }
        cols.push(
            format!("{name}_blocks"),
            group.iter().map(|&g| ((size[g] - 1) as f64).ln_1p()),
        );
        cols.push(
            format!("{name}_share"),
            group.iter().map(|&g| chars[g] / total),
        );
        cols.push(
            format!("{name}_link_density"),
            group.iter().map(|&g| links[g] / chars[g].max(1.0)),
        );
    }
    cols
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::tree::{tree_facts, TreeParams};
    use crate::{build, parse, Limits};

    #[test]
    fn blocks_group_by_their_whole_path() {
        let dom = parse(
            "<div class='a'><p>one</p></div><div class='b'><p>two <a href=x>xx</a></p></div>\
             <div class='a'><p>three</p></div>",
            Limits::default(),
        );
        let doc = build(&dom);
        let facts = tree_facts(&dom, &doc, true, &TreeParams::default());
        let cols = columns(&doc, &facts);
        let one = (1.0f64).ln_1p() as f32;
        let two = (2.0f64).ln_1p() as f32;
        assert_eq!(cols.column("path_blocks").unwrap(), [one, 0.0, one]);
        assert_eq!(cols.column("tag_path_blocks").unwrap(), [two, two, two]);
        // "one" + "three" of "one", "two xx", "three": 8 of 14 characters.
        assert_eq!(cols.column("path_share").unwrap()[0], (8.0 / 14.0) as f32);
        assert_eq!(
            cols.column("tag_path_link_density").unwrap()[0],
            (2.0 / 14.0) as f32
        );
        assert_eq!(
            cols.column("path_link_density").unwrap()[1],
            (2.0 / 6.0) as f32
        );
    }
}
