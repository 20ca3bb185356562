//! Counts of text cues (prices, reply links, dates ...) in a page's text: the page-type
//! classifier's `text_*` signals.
//!
//! The patterns are given by the caller (`thresher.features.pagetype.TEXT_CUES`, the one
//! definition) and matched by the `regex` crate, in time linear in the text. A count is the
//! number of non-overlapping leftmost-first matches, as Python's `re.finditer` gives for the
//! same pattern: both engines prefer the earlier alternative.
//!
//! The character classes are Unicode, as Python's `re` reads them on a `str`: `\d` is the
//! category Nd in both. `\s` in the regex crate is the White_Space property, which lacks the
//! separators U+001C to U+001F that Python's `str.isspace` holds; the patterns spell those out.
//! `\b` differs only where a cue touches a combining mark or a connector other than `_`
//! (word characters here, not in Python), or a numeral of category No (the reverse).

use regex::Regex;

/// Compiled cue patterns. Immutable; shared by threads.
#[derive(Clone, Debug)]
pub struct TextCues {
    patterns: Vec<Regex>,
}

impl TextCues {
    /// The cues of `patterns`, in order; the regex crate's error for one it cannot read.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<Self, regex::Error> {
        let patterns = patterns
            .iter()
            .map(|p| Regex::new(p.as_ref()))
            .collect::<Result<_, _>>()?;
        Ok(TextCues { patterns })
    }

    /// How many patterns there are.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Per pattern, its non-overlapping matches in `text`. Reads the budget between patterns.
    pub fn counts(&self, text: &str) -> Vec<u64> {
        self.patterns
            .iter()
            .map(|pattern| {
                crate::budget::check();
                pattern.find_iter(text).count() as u64
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::TextCues;

    #[test]
    fn counts_non_overlapping_matches_per_pattern_in_order() {
        let cues = TextCues::new(&[r"\b(?:reply|replies)\b", r"\d+", r"\bab"]).unwrap();
        assert_eq!(cues.len(), 3);
        assert_eq!(
            cues.counts("reply, replies; replying 12 345 abab"),
            vec![2, 2, 1]
        );
    }

    #[test]
    fn an_earlier_alternative_wins_as_in_python() {
        // Leftmost-first: "ab" matches the first alternative, so "abc" is never seen whole.
        let cues = TextCues::new(&["ab|abc", "abc|ab"]).unwrap();
        assert_eq!(cues.counts("abcabc"), vec![2, 2]);
    }

    #[test]
    fn unicode_digits_and_separators_count() {
        let cues = TextCues::new(&[r"\d", r"[\s\x1c-\x1f]"]).unwrap();
        assert_eq!(cues.counts("٣ 5\u{1c}\u{a0}"), vec![2, 3]);
    }

    #[test]
    fn a_pattern_it_cannot_read_is_an_error() {
        assert!(TextCues::new(&["(unclosed"]).is_err());
        assert!(TextCues::new::<&str>(&[]).unwrap().is_empty());
    }
}
