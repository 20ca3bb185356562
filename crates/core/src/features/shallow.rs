//! Kohlschütter et al.'s shallow text features of each block, with thresher's additions.

use crate::hash::HashSet;

use super::unicode::{is_decimal, is_word};
use crate::document::{Block, Document};
use crate::text::is_space;

/// The columns, in order.
pub const COLUMNS: [&str; 18] = [
    "log_chars",
    "log_words",
    "link_density",
    "link_word_share",
    "stopword_density",
    "text_density",
    "punct_density",
    "sentence_ends",
    "digit_ratio",
    "upper_ratio",
    "avg_word_len",
    "ends_with_punct",
    "log_tags",
    "tags_per_word",
    "is_heading",
    "has_copyright",
    "date_like",
    "starts_upper",
];

/// Last characters that end a sentence or a quotation (`ends_with_punct`).
const ENDINGS: &[char] = &['.', '!', '?', ':', ';', '"', '\'', '\u{201d}', ')'];
/// Lines of the text-density measure wrap at this many characters.
const WRAP: usize = 80;

/// One row of [`COLUMNS`] per block, row-major. `stop_words` holds lower-cased words.
pub fn shallow_text(doc: &Document, stop_words: &HashSet<String>) -> Vec<f32> {
    let mut out = Vec::with_capacity(doc.blocks.len() * COLUMNS.len());
    let mut scratch = Scratch::new();
    for block in &doc.blocks {
        crate::budget::check();
        out.extend(row(block, stop_words, &mut scratch).map(|v| v as f32));
    }
    out
}

/// What [`row`] works in, made once for all of a page's blocks rather than per block.
struct Scratch {
    /// An ASCII word lower-cased (see [`is_stop_word`]).
    buffer: String,
    /// A long text's word lengths (see [`stop_word_count`]).
    lengths: Vec<usize>,
    /// A text's characters (see [`has_date`]).
    chars: Vec<char>,
    /// Finds "opyright" as `str::contains` does.
    copyright: memchr::memmem::Finder<'static>,
}

impl Scratch {
    fn new() -> Self {
        Scratch {
            buffer: String::new(),
            lengths: Vec::new(),
            chars: Vec::new(),
            copyright: memchr::memmem::Finder::new("opyright"),
        }
    }
}

/// Counts of one text's characters by class, and its first and last characters.
#[derive(Default)]
struct Classes {
    letters: u32,
    upper: u32,
    digits: u32,
    punct: u32,
    sentence_ends: u32,
    first: Option<char>,
    last: Option<char>,
}

impl Classes {
    /// Counts `c`; `next` is the character after it (None at the end).
    fn count(&mut self, c: char, next: Option<char>) {
        let upper = c.is_ascii_uppercase();
        self.upper += u32::from(upper);
        self.letters += u32::from(upper || c.is_ascii_lowercase() || c >= '\u{c0}');
        self.digits += u32::from(c.is_ascii_digit());
        self.punct += u32::from(matches!(c, '.' | ',' | ';' | ':' | '!' | '?'));
        let ends = matches!(c, '.' | '!' | '?') && next.is_none_or(is_space);
        self.sentence_ends += u32::from(ends);
    }
}

fn classes(text: &str) -> Classes {
    let mut counts = Classes::default();
    if text.is_ascii() {
        // One byte per character: no decoding.
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            counts.count(char::from(b), bytes.get(i + 1).map(|&n| char::from(n)));
        }
    } else {
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            counts.count(c, chars.peek().copied());
        }
    }
    counts.first = text.chars().next();
    counts.last = text.chars().next_back();
    counts
}

/// Calls `f` with each of `text`'s words: its runs between white space ([`is_space`]).
fn each_word<'a>(text: &'a str, mut f: impl FnMut(&'a str)) {
    if !text.is_ascii() {
        text.split(is_space).filter(|w| !w.is_empty()).for_each(f);
        return;
    }
    // ASCII: one byte per character, white space being \t \n \x0b \x0c \r, 0x1c-0x1f and ' '.
    let mut start = None;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if matches!(b, 9..=13 | 28..=32) {
            if let Some(from) = start.take() {
                f(&text[from..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(from) = start {
        f(&text[from..]);
    }
}

/// Whether a word is a stop word once lower-cased. `buffer` is scratch space for
/// lower-casing ASCII words without an allocation each.
fn is_stop_word(word: &str, stop_words: &HashSet<String>, buffer: &mut String) -> bool {
    if !word.is_ascii() {
        stop_words.contains(&word.to_lowercase())
    } else if word.bytes().any(|b| b.is_ascii_uppercase()) {
        buffer.clear();
        buffer.push_str(word);
        buffer.make_ascii_lowercase();
        stop_words.contains(buffer.as_str())
    } else {
        stop_words.contains(word)
    }
}

/// How many of `text`'s words are stop words once lower-cased, and, with `lengths`, each
/// word's length in characters pushed there (what [`density_of_words`] reads).
fn stop_word_count(
    text: &str,
    stop_words: &HashSet<String>,
    buffer: &mut String,
    mut lengths: Option<&mut Vec<usize>>,
) -> usize {
    let ascii = text.is_ascii();
    let mut count = 0;
    each_word(text, |word| {
        count += usize::from(is_stop_word(word, stop_words, buffer));
        if let Some(lengths) = lengths.as_deref_mut() {
            lengths.push(if ascii {
                word.len()
            } else {
                word.chars().count()
            });
        }
    });
    count
}

/// Whether the text may hold a date: it has a decimal digit of some script.
fn has_digit(text: &str, ascii_digits: u32) -> bool {
    ascii_digits > 0 || (!text.is_ascii() && text.chars().any(is_decimal))
}

fn row(block: &Block, stop_words: &HashSet<String>, scratch: &mut Scratch) -> [f64; 18] {
    let text = &block.text;
    let chars = f64::from(block.chars);
    let words = f64::from(block.words);
    let n_words = words.max(1.0);
    let safe_chars = chars.max(1.0);
    let tags = f64::from(block.tags);
    let counts = classes(text);
    let long = block.chars as usize > WRAP;
    let lengths = &mut scratch.lengths;
    lengths.clear();
    let stops = stop_word_count(
        text,
        stop_words,
        &mut scratch.buffer,
        long.then_some(&mut *lengths),
    ) as f64;
    let density = if long {
        density_of_words(lengths, block.chars as usize)
    } else {
        words
    };
    let last = counts.last.unwrap_or('\0');
    let first = counts.first.unwrap_or('\0');
    let date = has_digit(text, counts.digits) && {
        scratch.chars.clear();
        scratch.chars.extend(text.chars());
        has_date(&scratch.chars)
    };
    let link_density = if chars > 0.0 {
        f64::from(block.link_chars) / chars
    } else {
        0.0
    };
    [
        chars.ln_1p(),
        words.ln_1p(),
        link_density,
        (f64::from(block.link_words) / n_words).min(1.0),
        stops / n_words,
        density,
        f64::from(counts.punct) / safe_chars,
        f64::from(counts.sentence_ends).ln_1p(),
        f64::from(counts.digits) / safe_chars,
        f64::from(counts.upper) / f64::from(counts.letters.max(1)),
        (chars / n_words).min(30.0),
        f64::from(u8::from(ENDINGS.contains(&last))),
        tags.ln_1p(),
        (tags / n_words).min(10.0),
        f64::from(u8::from(block.is_heading)),
        f64::from(u8::from(
            text.contains('\u{a9}') || scratch.copyright.find(text.as_bytes()).is_some(),
        )),
        f64::from(u8::from(date)),
        f64::from(u8::from(first.is_uppercase())),
    ]
}

/// Kohlschütter's text density: words per line when the text is wrapped greedily at
/// [`WRAP`] characters (a longer word gets a line of its own), the last line excluded
/// when there are several. The words are the text's runs between white space, joined by
/// single spaces; a line breaks at the last space within [`WRAP`] + 1 characters of its
/// start, or after its first word when that word is longer.
pub fn text_density(text: &str) -> f64 {
    let mut lengths = Vec::new();
    each_word(text, |w| lengths.push(w.chars().count()));
    density_of_words(&lengths, text.chars().count())
}

/// [`text_density`] of a text of `chars` characters whose words are `lengths` characters long.
fn density_of_words(lengths: &[usize], chars: usize) -> f64 {
    let m = lengths.len();
    if chars <= WRAP {
        return m as f64;
    }
    match full_lines(lengths, chars, WRAP) {
        (0, _) => m.max(1) as f64,
        (lines, words) => words as f64 / lines as f64,
    }
}

/// Boilerpipe's counts for Kohlschütter's text density of `text` wrapped at `width` characters
/// as [`text_density`] wraps it, where only words holding a letter or a digit count (runs of
/// punctuation are not words): (words, words on the lines before the last, those lines). A
/// text that fits on one line is one line of all its words. Boilerpipe adds the counts of
/// blocks it fuses, so it needs them rather than their ratio.
pub fn wrap_counts(text: &str, width: usize) -> (usize, usize, usize) {
    let (mut lengths, mut counted) = (Vec::new(), Vec::new());
    each_word(text, |w| {
        lengths.push(w.chars().count());
        counted.push(w.chars().any(|c| c != '_' && is_word(c)));
    });
    let words = counted.iter().filter(|&&c| c).count();
    match full_lines(&lengths, text.chars().count(), width) {
        (0, _) => (words, words, 1),
        (lines, on_lines) => (
            words,
            counted[..on_lines].iter().filter(|&&c| c).count(),
            lines,
        ),
    }
}

/// The greedy wrap at `width` characters of a text of `chars` characters whose words, joined by
/// single spaces, are `lengths` characters long: (lines before the last, words on them). A line
/// breaks at the last space within `width` + 1 characters of its start, or after its first word
/// when that word is longer. (0, 0) when the text fits on one line.
fn full_lines(lengths: &[usize], chars: usize, width: usize) -> (usize, usize) {
    let m = lengths.len();
    if chars <= width {
        return (0, 0);
    }
    // The joined line's length, and where the current line starts (at word `k`).
    let total = lengths.iter().sum::<usize>() + m.saturating_sub(1);
    let (mut start, mut k, mut lines) = (0usize, 0usize, 0usize);
    while total - start > width {
        // The last word from k followed by a space at or before start + width; else word k.
        let (mut j, mut end) = (k, start + lengths[k]);
        let mut fits = None;
        while j + 1 < m && end <= start + width {
            fits = Some((j, end));
            j += 1;
            end += 1 + lengths[j];
        }
        let (last, space) = match fits {
            Some(found) => found,
            None if k + 1 < m => (k, start + lengths[k]),
            None => break,
        };
        lines += 1;
        start = space + 1;
        k = last + 1;
    }
    (lines, k)
}

/// Whether the text holds a date-like run of digits: a year of 19xx or 20xx, or
/// d/m/y-style digits with `/`, `.` or `-` between them, standing as a word of its own.
/// (The regular expression `\d(?<!\w\d)(?:(?:(?<=1)9|(?<=2)0)\d\d\b|\d?[/.-]\d{1,2}[/.-]\d{2,4}\b)`
/// with Python's `\d`, `\w` and `\b`.)
pub fn has_date(chars: &[char]) -> bool {
    (0..chars.len()).any(|i| date_at(chars, i))
}

fn date_at(c: &[char], i: usize) -> bool {
    if !is_decimal(c[i]) || (i > 0 && is_word(c[i - 1])) {
        return false;
    }
    let digit = |p: usize| c.get(p).is_some_and(|&ch| is_decimal(ch));
    let separator = |p: usize| c.get(p).is_some_and(|ch| matches!(ch, '/' | '.' | '-'));
    let boundary = |p: usize| c.get(p).is_none_or(|&ch| !is_word(ch));
    let century =
        (c[i] == '1' && c.get(i + 1) == Some(&'9')) || (c[i] == '2' && c.get(i + 1) == Some(&'0'));
    if century && digit(i + 2) && digit(i + 3) && boundary(i + 4) {
        return true;
    }
    // \d? then a separator, 1 or 2 digits, a separator, 2 to 4 digits, a word boundary.
    let firsts = if digit(i + 1) {
        vec![i + 2, i + 1]
    } else {
        vec![i + 1]
    };
    firsts.into_iter().filter(|&p| separator(p)).any(|p| {
        (1..=2).filter(|&n| (1..=n).all(|k| digit(p + k))).any(|n| {
            let q = p + n + 1;
            separator(q) && (2..=4).any(|m| (1..=m).all(|k| digit(q + k)) && boundary(q + m + 1))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> bool {
        has_date(&text.chars().collect::<Vec<_>>())
    }

    #[test]
    fn dates_and_not_dates() {
        for text in [
            "in 1999.",
            "2024",
            "on 12/05/2023",
            "1.2.24 x",
            "(31-12-99)",
            "at 3/4/2021",
        ] {
            assert!(date(text), "{text}");
        }
        for text in [
            "a1999",
            "19999",
            "2100",
            "1/2/3",
            "12/05/20231",
            "x2024",
            "1999a",
            "1/2",
            "",
        ] {
            assert!(!date(text), "{text}");
        }
    }

    #[test]
    fn wrap_counts_count_words_with_a_letter_or_digit() {
        assert_eq!(wrap_counts("one two three", 80), (3, 3, 1));
        let pairs = ["abcd", "|"].repeat(20).join(" ");
        assert_eq!(wrap_counts(&pairs, 80), (20, 11, 1));
        assert_eq!(wrap_counts("x_y _ __ 2024", 80), (2, 2, 1));
        let long = format!("ab {} cd ef", "x".repeat(90));
        assert_eq!(wrap_counts(&long, 80), (4, 2, 2));
        let ten = ["abcd"; 10].join(" ");
        assert_eq!(wrap_counts(&ten, 20), (10, 8, 2));
        assert_eq!(wrap_counts(&" ".repeat(100), 80), (0, 0, 1));
    }

    #[test]
    fn wrap_counts_wrap_as_text_density_does() {
        for text in [
            "word ".repeat(60),
            format!("{} a b", "y".repeat(85)),
            "a ".repeat(45),
        ] {
            let (_, on_lines, lines) = wrap_counts(&text, WRAP);
            assert_eq!(
                on_lines as f64 / lines as f64,
                text_density(&text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn text_density_wraps_at_eighty_characters() {
        assert_eq!(text_density("one two three"), 3.0);
        let text = "word ".repeat(40); // 199 characters: lines of 16 words, the last excluded
        assert_eq!(text_density(&text), 16.0);
        let long = "x".repeat(100);
        assert_eq!(text_density(&format!("{long} a b")), 1.0);
    }

    /// The wrap as first written, over the joined line's characters: the reference that
    /// [`text_density`]'s count over word lengths must match.
    fn density_by_characters(text: &str) -> f64 {
        let line: Vec<char> = {
            let words: Vec<&str> = text.split(is_space).filter(|w| !w.is_empty()).collect();
            words.join(" ").chars().collect()
        };
        if text.chars().count() <= WRAP {
            return line.iter().filter(|&&c| c == ' ').count() as f64
                + f64::from(u8::from(!line.is_empty()));
        }
        let (mut start, mut lines, mut words_in_lines) = (0usize, 0usize, 0usize);
        while line.len() - start > WRAP {
            let window = &line[start..(start + WRAP + 1).min(line.len())];
            let end = match window.iter().rposition(|&c| c == ' ') {
                Some(at) => start + at,
                None => match line[start..].iter().position(|&c| c == ' ') {
                    Some(at) => start + at,
                    None => break,
                },
            };
            lines += 1;
            words_in_lines += line[start..end].iter().filter(|&&c| c == ' ').count() + 1;
            start = end + 1;
        }
        if lines == 0 {
            return (line.iter().filter(|&&c| c == ' ').count() + 1) as f64;
        }
        words_in_lines as f64 / lines as f64
    }

    #[test]
    fn text_density_counts_as_the_character_wrap_does() {
        // Word lengths drawn from a fixed pseudo-random sequence, white space of several kinds.
        let mut state = 7u64;
        let mut next = |below: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) % below
        };
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..next(40) {
                let length = match next(10) {
                    0 => 70 + next(30),
                    _ => 1 + next(12),
                };
                let letter = if next(4) == 0 { 'é' } else { 'a' };
                text.extend(std::iter::repeat_n(letter, length as usize));
                text.push_str([" ", "  ", "\n", " \u{a0}"][next(4) as usize]);
            }
            assert_eq!(
                text_density(&text),
                density_by_characters(&text),
                "{text:?}"
            );
        }
        for text in ["", " ", &" ".repeat(100), &"x".repeat(81), &"x ".repeat(41)] {
            assert_eq!(text_density(text), density_by_characters(text), "{text:?}");
        }
    }

    #[test]
    fn stop_words_are_counted_lower_cased() {
        let stops: HashSet<String> = ["the", "über", "and"]
            .iter()
            .map(|w| (*w).to_owned())
            .collect();
        let mut buffer = String::new();
        let mut lengths = Vec::new();
        assert_eq!(
            stop_word_count("Über a\u{1f}bc", &stops, &mut buffer, Some(&mut lengths)),
            1
        );
        assert_eq!(lengths, [4, 1, 2]);
        assert_eq!(
            stop_word_count("The cat AND Über the\u{a0}dog", &stops, &mut buffer, None),
            4
        );
        assert_eq!(stop_word_count("", &stops, &mut buffer, None), 0);
    }

    #[test]
    fn words_split_at_white_space_as_is_space_says() {
        let ascii: String = (0u8..128).map(char::from).collect::<String>() + " a\x1cb\x1fc ";
        for text in [ascii.as_str(), "x\u{a0}y\u{2028}z é", "", "   ", "one"] {
            let mut words = Vec::new();
            each_word(text, |w| words.push(w));
            let expected: Vec<&str> = text.split(is_space).filter(|w| !w.is_empty()).collect();
            assert_eq!(words, expected, "{text:?}");
        }
    }

    #[test]
    fn sentence_ends_are_stops_before_white_space_or_the_end() {
        assert_eq!(classes("One. Two!Three? Four.").sentence_ends, 3);
    }
}
