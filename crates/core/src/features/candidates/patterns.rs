//! Readability's class/id patterns (`REGEXPS` in Readability.js) as literal substrings,
//! matched in one pass over an id or class value by a byte trie.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::text::is_space;

/// Readability's class/id patterns (`REGEXPS` in Readability.js), as literal substrings.
const UNLIKELY: &[&str] = &[
    "-ad-",
    "ai2html",
    "banner",
    "breadcrumbs",
    "combx",
    "comment",
    "community",
    "cover-wrap",
    "disqus",
    "extra",
    "footer",
    "gdpr",
    "header",
    "legends",
    "menu",
    "related",
    "remark",
    "replies",
    "rss",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "social",
    "sponsor",
    "supplemental",
    "ad-break",
    "agegate",
    "pagination",
    "pager",
    "popup",
    "yom-remote",
];
const MAYBE_CANDIDATE: &[&str] = &[
    "and", "article", "body", "column", "content", "main", "mathjax", "shadow",
];
const POSITIVE: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "hentry",
    "h-entry",
    "main",
    "page",
    "pagination",
    "post",
    "text",
    "blog",
    "story",
];
const NEGATIVE: &[&str] = &[
    "-ad-",
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "footer",
    "gdpr",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "widget",
];
/// Readability's negative pattern also holds "hid" as a whole (white-space separated) word.
const NEGATIVE_WORD: &str = "hid";

pub const UNLIKELY_BIT: u8 = 1;
pub const MAYBE_BIT: u8 = 2;
pub const POSITIVE_BIT: u8 = 4;
pub const NEGATIVE_BIT: u8 = 8;
const GROUPS: [(&[&str], u8); 4] = [
    (UNLIKELY, UNLIKELY_BIT),
    (MAYBE_CANDIDATE, MAYBE_BIT),
    (POSITIVE, POSITIVE_BIT),
    (NEGATIVE, NEGATIVE_BIT),
];

/// Bytes a literal can hold, as trie columns: letters (either case: the value is read
/// lower-cased), digits and '-'.
const CLASSES: usize = 37;

fn class(byte: u8) -> Option<usize> {
    match byte.to_ascii_lowercase() {
        b @ b'a'..=b'z' => Some(usize::from(b - b'a')),
        b @ b'0'..=b'9' => Some(26 + usize::from(b - b'0')),
        b'-' => Some(36),
        _ => None,
    }
}

/// The literals as a byte trie: `next[node][class]` is the child (0: none; the root, node 0,
/// is no one's child) and `ends[node]` the bits of the literal ending there, if one does. A
/// literal counts for every group with a literal inside it ("pagination" holds "page").
struct Trie {
    next: Vec<[u16; CLASSES]>,
    ends: Vec<Option<u8>>,
}

fn trie() -> &'static Trie {
    static TRIE: OnceLock<Trie> = OnceLock::new();
    TRIE.get_or_init(|| {
        let mut trie = Trie {
            next: vec![[0; CLASSES]],
            ends: vec![None],
        };
        for (group, _) in GROUPS {
            for literal in group {
                let bits = GROUPS
                    .iter()
                    .filter(|(other, _)| other.iter().any(|g| literal.contains(g)))
                    .fold(0, |acc, (_, bit)| acc | bit);
                let mut node = 0;
                for &byte in literal.as_bytes() {
                    // every literal byte has a class (checked by the unit tests)
                    let column = class(byte).unwrap_or(0);
                    if trie.next[node][column] == 0 {
                        trie.next[node][column] = trie.next.len() as u16;
                        trie.next.push([0; CLASSES]);
                        trie.ends.push(None);
                    }
                    node = usize::from(trie.next[node][column]);
                }
                trie.ends[node] = Some(bits);
            }
        }
        trie
    })
}

impl Trie {
    /// The end and bits of the longest literal starting at `bytes[0]`, if one does.
    fn longest(&self, bytes: &[u8]) -> Option<(usize, u8)> {
        let (mut node, mut found) = (0usize, None);
        for (length, &byte) in bytes.iter().enumerate() {
            let Some(column) = class(byte) else { break };
            node = usize::from(self.next[node][column]);
            if node == 0 {
                break;
            }
            if let Some(bits) = self.ends[node] {
                found = Some((length + 1, bits));
            }
        }
        found
    }
}

/// The Readability pattern groups (`*_BIT`) an id or class value matches: the literals found
/// by one left-to-right scan of the lower-cased value, taking the longest literal at each
/// position and going on after it (non-overlapping matches, as `re.findall` gives them).
/// An ASCII value is read as it is (its letters folded by the trie); any other is lower-cased
/// first, as Python does (the Kelvin sign becomes an ASCII k).
pub fn pattern_bits(value: &str) -> u8 {
    let lowered: Cow<str> = if value.is_ascii() {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(value.to_lowercase())
    };
    let bytes = lowered.as_bytes();
    let trie = trie();
    let mut bits = 0;
    let mut at = 0;
    while at < bytes.len() {
        match trie.longest(&bytes[at..]) {
            Some((length, literal_bits)) => {
                bits |= literal_bits;
                at += length;
            }
            None => at += 1,
        }
    }
    if lowered
        .split(is_space)
        .any(|word| word.eq_ignore_ascii_case(NEGATIVE_WORD))
    {
        bits |= NEGATIVE_BIT;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_literal_is_in_the_trie_with_its_groups() {
        for (group, bit) in GROUPS {
            for literal in group {
                assert!(literal.bytes().all(|b| class(b).is_some()), "{literal}");
                let (length, bits) = trie().longest(literal.as_bytes()).unwrap();
                assert_eq!(length, literal.len());
                assert!(bits & bit != 0, "{literal}");
            }
        }
        assert!(trie().next.len() < usize::from(u16::MAX));
    }
}
