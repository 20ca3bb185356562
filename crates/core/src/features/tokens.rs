//! The id/class tokens of each block, over a model's vocabulary.
//!
//! A block holds the tokens of its element's and its first ancestors' id and class values
//! (see [`crate::features::tree::split_tokens`]). The trees read them as 0/1 columns over
//! their vocabulary, the sequence network as bags (the positions of the held tokens), and
//! training counts them to choose a vocabulary. Each distinct value on some block's chain
//! is looked up in the vocabulary once.

use crate::hash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::document::Document;
use crate::features::tree::TreeFacts;

/// How many elements of a block's path hold its tokens: its element and two ancestors.
pub const LEVELS: usize = 3;

/// A model's token vocabulary: each token's column. A token listed twice has the column of
/// its last listing. Built once per model.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    index: HashMap<String, u32>,
    len: usize,
}

impl Vocabulary {
    pub fn new(tokens: &[String]) -> Self {
        let mut index = HashMap::with_capacity(tokens.len());
        for (position, token) in tokens.iter().enumerate() {
            index.insert(token.clone(), position as u32);
        }
        Vocabulary {
            index,
            len: tokens.len(),
        }
    }

    /// The number of columns (tokens listed).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn position(&self, token: &str) -> Option<u32> {
        self.index.get(token).copied()
    }
}

/// Per block: the value slots of its chain (the ids of its element and ancestors, then their
/// classes), `2 * LEVELS` of them.
fn chain_slots(doc: &Document, facts: &TreeFacts) -> Vec<[usize; 2 * LEVELS]> {
    doc.blocks
        .iter()
        .map(|block| {
            crate::budget::check();
            let mut slots = [0usize; 2 * LEVELS];
            let mut element = block.element as usize;
            for level in 0..LEVELS {
                slots[level] = facts.id_slot[element] as usize;
                slots[LEVELS + level] = facts.class_slot[element] as usize;
                element = facts.parents[element] as usize;
            }
            slots
        })
        .collect()
}

/// Calls `each` with every block's vocabulary positions (in block order; repeats included,
/// unordered). Each distinct value on some block's chain is looked up once.
fn for_each_block(
    doc: &Document,
    facts: &TreeFacts,
    vocabulary: &Vocabulary,
    mut each: impl FnMut(&mut Vec<u32>),
) {
    let mut known: Vec<Option<Vec<u32>>> = vec![None; facts.values.len()];
    let mut held = Vec::new();
    for slots in chain_slots(doc, facts) {
        crate::budget::check();
        held.clear();
        for slot in slots {
            let found = known[slot].get_or_insert_with(|| {
                facts.tokens[slot]
                    .iter()
                    .filter_map(|t| vocabulary.position(t))
                    .collect()
            });
            held.extend_from_slice(found);
        }
        each(&mut held);
    }
}

/// One 0/1 column per vocabulary token (does the block hold it), blocks × tokens, row-major.
pub fn token_columns(doc: &Document, facts: &TreeFacts, vocabulary: &Vocabulary) -> Vec<f32> {
    let mut out = vec![0.0f32; doc.blocks.len() * vocabulary.len()];
    set_token_columns(doc, facts, vocabulary, &mut out);
    out
}

/// Sets the ones of [`token_columns`] in `out`, rows of zeros (only the ones are written: a
/// caller's freshly zeroed memory stays untouched where a page holds no token). Rows past
/// the end of `out` are left out.
pub fn set_token_columns(
    doc: &Document,
    facts: &TreeFacts,
    vocabulary: &Vocabulary,
    out: &mut [f32],
) {
    let width = vocabulary.len();
    let mut row = 0;
    for_each_block(doc, facts, vocabulary, |held| {
        for &position in held.iter() {
            if let Some(slot) = out.get_mut(row * width + position as usize) {
                *slot = 1.0;
            }
        }
        row += 1;
    });
}

/// The same columns stored sparsely: block i holds the positions
/// `indices[offsets[i]..offsets[i + 1]]`, ascending.
pub fn token_bags(
    doc: &Document,
    facts: &TreeFacts,
    vocabulary: &Vocabulary,
) -> (Vec<i64>, Vec<i64>) {
    let mut indices = Vec::new();
    let mut offsets = Vec::with_capacity(doc.blocks.len() + 1);
    offsets.push(0i64);
    for_each_block(doc, facts, vocabulary, |held| {
        held.sort_unstable();
        held.dedup();
        indices.extend(held.iter().map(|&p| i64::from(p)));
        offsets.push(indices.len() as i64);
    });
    (indices, offsets)
}

/// Per block, its distinct tokens (in the order first met along its chain).
pub fn block_tokens<'a>(doc: &Document, facts: &'a TreeFacts) -> Vec<Vec<&'a str>> {
    chain_slots(doc, facts)
        .iter()
        .map(|slots| {
            crate::budget::check();
            let mut held: Vec<&str> = Vec::new();
            let mut seen = HashSet::new();
            for &slot in slots {
                for token in &facts.tokens[slot] {
                    if seen.insert(token.as_str()) {
                        held.push(token);
                    }
                }
            }
            held
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::Dom;
    use crate::features::tree::{tree_facts, TreeParams};
    use crate::{build, parse, Limits};

    fn page(body: &str) -> (Dom, Document, TreeFacts) {
        let dom = parse(
            &format!("<html><body>{body}</body></html>"),
            Limits::default(),
        );
        let doc = build(&dom);
        let facts = tree_facts(&dom, &doc, true, &TreeParams::default());
        (dom, doc, facts)
    }

    fn vocabulary(tokens: &[&str]) -> Vocabulary {
        Vocabulary::new(&tokens.iter().map(|t| t.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn a_block_holds_its_element_and_two_ancestors_tokens() {
        let (_, doc, facts) = page(
            "<div id='outer' class='a'><div class='b c'><section id='mid'><p class='d'>Deep text</p>\
             </section></div></div>",
        );
        let mut held = block_tokens(&doc, &facts)[0].clone();
        held.sort_unstable();
        assert_eq!(held, ["b", "c", "d", "mid"]); // p, section, div; not the outer div
    }

    #[test]
    fn columns_and_bags_mark_the_same_tokens() {
        let (_, doc, facts) = page(
            "<div class='comments'><div class='comment-body'><p class='text'>Hi there</p></div></div>\
             <p>Outside</p><p class='text absent Text'>Last</p>",
        );
        let vocab = vocabulary(&["comments", "comment", "text", "absent", "nowhere"]);
        let dense = token_columns(&doc, &facts, &vocab);
        assert_eq!(&dense[..5], &[1.0, 1.0, 1.0, 0.0, 0.0]);
        assert_eq!(&dense[5..10], &[0.0; 5]);
        assert_eq!(&dense[10..], &[0.0, 0.0, 1.0, 1.0, 0.0]);
        let (indices, offsets) = token_bags(&doc, &facts, &vocab);
        assert_eq!(indices, [0, 1, 2, 2, 3]);
        assert_eq!(offsets, [0, 3, 3, 5]);
    }

    #[test]
    fn a_token_listed_twice_takes_its_last_column() {
        let vocab = vocabulary(&["a", "b", "a"]);
        assert_eq!((vocab.position("a"), vocab.len()), (Some(2), 3));
        assert!(vocabulary(&[]).is_empty());
    }

    #[test]
    fn a_page_without_blocks_has_empty_bags() {
        let (_, doc, facts) = page("");
        let (indices, offsets) = token_bags(&doc, &facts, &vocabulary(&["x"]));
        assert!(indices.is_empty() && offsets == [0]);
        assert!(token_columns(&doc, &facts, &vocabulary(&["x"])).is_empty());
    }
}
