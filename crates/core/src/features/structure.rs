//! The page's structure as each block sees it: repeated texts, and the side of the main
//! heading the block lies on.
//!
//! `text_repeats`: other blocks with the same short text (menus, "Add to cart", per-item
//! labels repeat). `copies_before` / `copies_after`: earlier / later blocks with the same
//! text, of any length and case, under another parent ([`text_copies`]): a page often renders
//! a text twice, the main text holds it once, and which copy comes first tells them apart.
//! `main_heading_side`: -1 before the main heading, 1 after it, 0 on it or when the page has
//! none; the side only, never the distance (a distance makes the end of a long article look
//! like a footer).

use crate::hash::{HashMap, HashMapExt, HashSet};
use std::hash::Hash;

use super::columns::{flag, Columns};
use super::overlap::word_set;
use super::unicode::python_lower;
use crate::document::Document;

/// Texts shorter than this many words are labels, buttons and menu entries when they repeat;
/// a repeated paragraph is a duplicate rendering and says nothing about boilerplate by itself.
pub const SHORT_TEXT_WORDS: u32 = 20;

/// One number per distinct key, in the order keys are first met (equal keys, equal numbers;
/// every number below the count of keys).
pub fn group_ids<K: Eq + Hash>(keys: impl IntoIterator<Item = K>) -> Vec<usize> {
    let mut ids: HashMap<K, usize> = HashMap::new();
    keys.into_iter()
        .map(|key| {
            crate::budget::check();
            let next = ids.len();
            *ids.entry(key).or_insert(next)
        })
        .collect()
}

/// Per group number of `groups` (each below `groups.len()`): how many numbers before it, and
/// how many after it, are equal to it.
pub fn equal_before_after(groups: &[usize]) -> (Vec<u64>, Vec<u64>) {
    let mut total = vec![0u64; groups.len()];
    for &g in groups {
        total[g] += 1;
    }
    let mut seen = vec![0u64; groups.len()];
    let mut before = Vec::with_capacity(groups.len());
    let mut after = Vec::with_capacity(groups.len());
    for &g in groups {
        before.push(seen[g]);
        after.push(total[g] - seen[g] - 1);
        seen[g] += 1;
    }
    (before, after)
}

/// Per text: how many texts before it, and how many after it, are the same (case ignored, as
/// Python's `str.lower` ignores it) under another parent than its own (`parents`, one per
/// text). Copies under the same parent are a container's own repeated items (a table's equal
/// cells, an article's repeated paragraph), not a second rendering of it.
pub fn text_copies(texts: &[&str], parents: &[i64]) -> (Vec<u64>, Vec<u64>) {
    let text = lower_groups(texts);
    let (before, after) = equal_before_after(&text);
    let (same_before, same_after) = equal_before_after(&group_ids(text.iter().zip(parents)));
    (
        before
            .iter()
            .zip(&same_before)
            .map(|(a, b)| a - b)
            .collect(),
        after.iter().zip(&same_after).map(|(a, b)| a - b).collect(),
    )
}

/// [`group_ids`] of the texts lower-cased as Python's `str.lower` does, without holding the
/// lower-cased copies (a page of 500,000 blocks would hold its text twice more): a hash of
/// each distinct lower-cased text is kept, and a text whose hash was met before is compared
/// with the earlier ones by lower-casing them again.
fn lower_groups(texts: &[&str]) -> Vec<usize> {
    use std::hash::BuildHasher;
    const NONE: usize = usize::MAX;
    let state = foldhash::fast::RandomState::default();
    // Hash -> the last distinct text with it; per distinct text, its first position and the
    // distinct text before it with the same hash.
    let mut by_hash: HashMap<u64, usize> = HashMap::new();
    let (mut firsts, mut earlier): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    texts
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            crate::budget::check();
            let lower = python_lower(t);
            let hash = state.hash_one(lower.as_str());
            let last = by_hash.get(&hash).copied().unwrap_or(NONE);
            let mut k = last;
            while k != NONE {
                let other = texts[firsts[k]];
                if other == t || python_lower(other) == lower {
                    return k;
                }
                k = earlier[k];
            }
            let k = firsts.len();
            firsts.push(i);
            earlier.push(last);
            by_hash.insert(hash, k);
            k
        })
        .collect()
}

/// The block of the page's main heading: the heading whose distinct lower-cased words best
/// match the title's (Jaccard; the first of equals), else the first `<h1>` block.
/// `block_tags`: each block's tag.
pub fn main_heading(doc: &Document, block_tags: &[&str], title: &str) -> Option<usize> {
    let title = word_set(title);
    let mut best = (0.0f64, None);
    if !title.is_empty() {
        for (i, block) in doc.blocks.iter().enumerate() {
            if !block.is_heading {
                continue;
            }
            let words: HashSet<String> = word_set(&block.text);
            let shared = words.iter().filter(|w| title.contains(*w)).count();
            let overlap = shared as f64 / (words.len() + title.len() - shared) as f64;
            if overlap > best.0 {
                best = (overlap, Some(i));
            }
        }
    }
    best.1
        .or_else(|| block_tags.iter().position(|&tag| tag == "h1"))
}

/// `text_repeats`, `main_heading_side`, `has_main_heading`, `copies_before`, `copies_after`.
pub fn columns(doc: &Document, block_tags: &[&str], title: &str) -> Columns {
    let n = doc.blocks.len();
    let texts: Vec<&str> = doc.blocks.iter().map(|b| b.text.as_str()).collect();
    // Equal texts have equal word counts: a short text's copies are all short.
    let same = group_ids(texts.iter().copied());
    let mut count = vec![0u64; n];
    for &g in &same {
        count[g] += 1;
    }
    let repeats = doc.blocks.iter().zip(&same).map(|(b, &g)| {
        if b.words < SHORT_TEXT_WORDS {
            (count[g] - 1) as f64
        } else {
            0.0
        }
    });
    // The parent of each block's element, shifted so that the root's (none) is a value too.
    let parents: Vec<i64> = doc
        .blocks
        .iter()
        .map(|b| doc.parents.get(b.element as usize).copied().unwrap_or(-1) + 1)
        .collect();
    let (before, after) = text_copies(&texts, &parents);
    let heading = main_heading(doc, block_tags, title);
    let side = (0..n).map(|i| match heading {
        Some(h) => flag(i > h) - flag(i < h),
        None => 0.0,
    });
    let mut cols = Columns::default();
    cols.push("text_repeats", repeats.map(f64::ln_1p));
    cols.push("main_heading_side", side);
    cols.push("has_main_heading", vec![flag(heading.is_some()); n]);
    cols.push("copies_before", before.iter().map(|&c| (c as f64).ln_1p()));
    cols.push("copies_after", after.iter().map(|&c| (c as f64).ln_1p()));
    cols
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build, parse, Limits};

    fn page(html: &str) -> (crate::Dom, Document) {
        let dom = parse(html, Limits::default());
        let doc = build(&dom);
        (dom, doc)
    }

    fn tags<'a>(dom: &'a crate::Dom, doc: &Document) -> Vec<&'a str> {
        doc.blocks
            .iter()
            .map(|b| dom.tag(doc.nodes[b.element as usize]))
            .collect()
    }

    #[test]
    fn equal_keys_are_counted_on_each_side() {
        let groups = group_ids(["a", "b", "a", "a"]);
        assert_eq!(groups, [0, 1, 0, 0]);
        let (before, after) = equal_before_after(&groups);
        assert_eq!(before, [0, 0, 1, 2]);
        assert_eq!(after, [2, 0, 1, 0]);
        assert_eq!(equal_before_after(&[]), (vec![], vec![]));
    }

    #[test]
    fn copies_ignore_case_and_leave_out_the_same_parent() {
        let (before, after) = text_copies(&["Hi", "hi", "HI", "x", "hi"], &[1, 2, 3, 4, 3]);
        assert_eq!(before, [0, 1, 2, 0, 2]);
        assert_eq!(after, [3, 2, 0, 0, 0]);
        assert_eq!(text_copies(&[], &[]), (vec![], vec![]));
    }

    #[test]
    fn lower_groups_number_as_the_lower_cased_texts_would() {
        let texts = ["Hi", "hi", "x", "HI", "\u{212a}", "k", "X", "", ""];
        let lower: Vec<String> = texts.iter().map(|t| python_lower(t)).collect();
        assert_eq!(
            lower_groups(&texts),
            group_ids(lower.iter().map(String::as_str))
        );
        assert!(lower_groups(&[]).is_empty());
    }

    #[test]
    fn the_main_heading_matches_the_title_else_is_the_first_h1() {
        let (dom, doc) = page("<h1>Site</h1><p>menu</p><h2>Flood in the valley</h2><p>text</p>");
        let t = tags(&dom, &doc);
        assert_eq!(
            main_heading(&doc, &t, "Flood in the valley | News"),
            Some(2)
        );
        assert_eq!(main_heading(&doc, &t, ""), Some(0));
        assert_eq!(main_heading(&doc, &t, "nothing alike"), Some(0));
        let (dom, doc) = page("<h2>Menu</h2><p>text</p>");
        assert_eq!(main_heading(&doc, &tags(&dom, &doc), "Other"), None);
    }

    #[test]
    fn repeats_and_sides() {
        let (dom, doc) = page("<p>Buy</p><h1>Title here</h1><p>Buy</p><div><p>Buy</p></div>");
        let cols = columns(&doc, &tags(&dom, &doc), "Title here");
        assert_eq!(
            cols.column("main_heading_side").unwrap(),
            [-1.0, 0.0, 1.0, 1.0]
        );
        let two = (2.0f64).ln_1p() as f32;
        assert_eq!(cols.column("text_repeats").unwrap(), [two, 0.0, two, two]);
        // The first two "Buy" share the body as parent; the third is under a div.
        let one = (1.0f64).ln_1p() as f32;
        assert_eq!(cols.column("copies_before").unwrap(), [0.0, 0.0, 0.0, two]);
        assert_eq!(cols.column("copies_after").unwrap(), [one, 0.0, one, 0.0]);
        assert_eq!(cols.column("has_main_heading").unwrap(), [1.0; 4]);
        let (dom, doc) = page("");
        let cols = columns(&doc, &tags(&dom, &doc), "t");
        assert!(cols.values.iter().all(Vec::is_empty));
    }
}
