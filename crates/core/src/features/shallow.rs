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

/// Characters counted as punctuation (`punct_density`).
const PUNCTUATION: &[char] = &['.', ',', ';', ':', '!', '?'];
/// Last characters that end a sentence or a quotation (`ends_with_punct`).
const ENDINGS: &[char] = &['.', '!', '?', ':', ';', '"', '\'', '\u{201d}', ')'];
/// Lines of the text-density measure wrap at this many characters.
const WRAP: usize = 80;

/// One row of [`COLUMNS`] per block, row-major. `stop_words` holds lower-cased words.
pub fn shallow_text(doc: &Document, stop_words: &HashSet<String>) -> Vec<f32> {
    let mut out = Vec::with_capacity(doc.blocks.len() * COLUMNS.len());
    for block in &doc.blocks {
        out.extend(row(block, stop_words).map(|v| v as f32));
    }
    out
}

/// Counts of one text's characters by class.
#[derive(Default)]
struct Classes {
    letters: f64,
    upper: f64,
    digits: f64,
    punct: f64,
    sentence_ends: f64,
}

fn classes(chars: &[char]) -> Classes {
    let mut counts = Classes::default();
    for (i, &c) in chars.iter().enumerate() {
        let upper = c.is_ascii_uppercase();
        counts.upper += f64::from(u8::from(upper));
        counts.letters += f64::from(u8::from(upper || c.is_ascii_lowercase() || c >= '\u{c0}'));
        counts.digits += f64::from(u8::from(c.is_ascii_digit()));
        counts.punct += f64::from(u8::from(PUNCTUATION.contains(&c)));
        let ends =
            matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|&next| is_space(next));
        counts.sentence_ends += f64::from(u8::from(ends));
    }
    counts
}

fn row(block: &Block, stop_words: &HashSet<String>) -> [f64; 18] {
    let text = &block.text;
    let chars_of: Vec<char> = text.chars().collect();
    let chars = f64::from(block.chars);
    let words = f64::from(block.words);
    let n_words = words.max(1.0);
    let safe_chars = chars.max(1.0);
    let tags = f64::from(block.tags);
    let counts = classes(&chars_of);
    let stops = text
        .split(is_space)
        .filter(|w| !w.is_empty() && stop_words.contains(&w.to_lowercase()))
        .count() as f64;
    let density = if block.chars as usize > WRAP {
        text_density(text)
    } else {
        words
    };
    let last = chars_of.last().copied().unwrap_or('\0');
    let first = chars_of.first().copied().unwrap_or('\0');
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
        counts.punct / safe_chars,
        counts.sentence_ends.ln_1p(),
        counts.digits / safe_chars,
        counts.upper / counts.letters.max(1.0),
        (chars / n_words).min(30.0),
        f64::from(u8::from(ENDINGS.contains(&last))),
        tags.ln_1p(),
        (tags / n_words).min(10.0),
        f64::from(u8::from(block.is_heading)),
        f64::from(u8::from(
            text.contains('\u{a9}') || text.contains("opyright"),
        )),
        f64::from(u8::from(has_date(&chars_of))),
        f64::from(u8::from(first.is_uppercase())),
    ]
}

/// Kohlschütter's text density: words per line when the text is wrapped greedily at
/// [`WRAP`] characters (a longer word gets a line of its own), the last line excluded
/// when there are several.
pub fn text_density(text: &str) -> f64 {
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
    fn text_density_wraps_at_eighty_characters() {
        assert_eq!(text_density("one two three"), 3.0);
        let text = "word ".repeat(40); // 199 characters: lines of 16 words, the last excluded
        assert_eq!(text_density(&text), 16.0);
        let long = "x".repeat(100);
        assert_eq!(text_density(&format!("{long} a b")), 1.0);
    }

    #[test]
    fn sentence_ends_are_stops_before_white_space_or_the_end() {
        let chars: Vec<char> = "One. Two!Three? Four.".chars().collect();
        assert_eq!(classes(&chars).sentence_ends, 3.0);
    }
}
