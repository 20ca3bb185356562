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
    let mut out = Vec::with_capacity(doc.blocks.len() * others.len());
    let any = others.iter().any(|set| !set.is_empty());
    for block in &doc.blocks {
        // The block's distinct words, borrowed from one lower-cased copy of its text.
        let lower = if any {
            block.text.to_lowercase()
        } else {
            String::new()
        };
        let words: HashSet<&str> = lower
            .split(|c: char| !is_word(c))
            .filter(|w| !w.is_empty())
            .collect();
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
}
