//! How much of each block's vocabulary another text (the title, the structured data) holds.

use crate::hash::HashSet;

use super::unicode::is_word;
use crate::document::Document;

/// The distinct lower-cased words of `text`, words being runs of Python's `\w`.
pub fn word_set(text: &str) -> HashSet<String> {
    text.to_lowercase()
        .split(|c: char| !is_word(c))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Per block and per word set of `others`: the share of the block's distinct words that the
/// set holds (0 for a block without words, and for every block when the set is empty).
/// Row-major, one row per block.
pub fn overlaps(doc: &Document, others: &[HashSet<String>]) -> Vec<f64> {
    if others.iter().all(HashSet::is_empty) {
        return vec![0.0; doc.blocks.len() * others.len()];
    }
    // Every block's text lower-cased into one buffer, so that one set of borrowed words
    // serves every block in turn.
    let mut lower = String::with_capacity(doc.blocks.iter().map(|b| b.text.len()).sum());
    let mut ends = Vec::with_capacity(doc.blocks.len());
    for block in &doc.blocks {
        crate::budget::check();
        let start = lower.len();
        if block.text.is_ascii() {
            lower.push_str(&block.text);
            lower[start..].make_ascii_lowercase();
        } else {
            lower.push_str(&block.text.to_lowercase());
        }
        ends.push(lower.len());
    }
    let mut out = Vec::with_capacity(doc.blocks.len() * others.len());
    let mut words: HashSet<&str> = HashSet::default();
    let mut start = 0;
    for end in ends {
        crate::budget::check();
        words.clear();
        words.extend(
            lower[start..end]
                .split(|c: char| !is_word(c))
                .filter(|w| !w.is_empty()),
        );
        start = end;
        for set in others {
            let share = if set.is_empty() || words.is_empty() {
                0.0
            } else {
                words.iter().filter(|w| set.contains(**w)).count() as f64 / words.len() as f64
            };
            out.push(share);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_cased_runs_of_word_characters() {
        let words = word_set("The cat's Hat_2, the CAT.");
        let mut sorted: Vec<_> = words.into_iter().collect();
        sorted.sort();
        assert_eq!(sorted, ["cat", "hat_2", "s", "the"]);
    }

    #[test]
    fn shares_of_each_blocks_distinct_words() {
        let dom = crate::parse(
            "<p>The CAT, the cat</p><p>Ölçü dog</p><p>--</p>",
            crate::Limits::default(),
        );
        let doc = crate::build(&dom);
        let sets = [word_set("cat ÖLÇÜ"), HashSet::default()];
        assert_eq!(overlaps(&doc, &sets), [0.5, 0.0, 0.5, 0.0, 0.0, 0.0]);
        assert_eq!(overlaps(&doc, &[HashSet::default()]), [0.0; 3]);
    }
}
