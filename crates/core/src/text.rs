//! White space as Python's `str.split()` sees it, so block texts and counts are the
//! ones the Python layer (and the models trained on it) expect.

/// Python's `str.isspace()` for one character: Unicode's White_Space, plus the
/// information separators U+001C to U+001F.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Whether `text` is non-empty and all white space (read a byte at a time while it is ASCII).
pub fn is_all_space(text: &str) -> bool {
    let bytes = text.as_bytes();
    match bytes.iter().position(|&b| !is_ascii_space(b)) {
        None => !text.is_empty(),
        // Only ASCII comes before `at`, so it starts a character.
        Some(at) => {
            bytes[at] >= 0x80
                && text
                    .get(at..)
                    .is_some_and(|rest| rest.chars().all(is_space))
        }
    }
}

/// `text` without its leading and trailing white space, as `text.trim_matches(is_space)`,
/// read a byte at a time while the edges are ASCII.
pub fn trim_space(text: &str) -> &str {
    let start = text
        .bytes()
        .position(|b| !is_ascii_space(b))
        .unwrap_or(text.len());
    // Only ASCII comes before `start` (and after `end` below): both are character boundaries.
    let mut rest = text.get(start..).unwrap_or_default();
    if rest.as_bytes().first().is_some_and(|&b| b >= 0x80) {
        rest = rest.trim_start_matches(is_space);
    }
    let end = rest
        .bytes()
        .rposition(|b| !is_ascii_space(b))
        .map_or(0, |at| at + 1);
    rest = rest.get(..end).unwrap_or_default();
    if rest.as_bytes().last().is_some_and(|&b| b >= 0x80) {
        rest = rest.trim_end_matches(is_space);
    }
    rest
}

/// `bytes` as a `str` when they are strict UTF-8. `simdutf8` validates in wide steps; only on
/// failure does the standard library's check run, to say where and why.
pub fn utf8_str(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    simdutf8::basic::from_utf8(bytes).or_else(|_| std::str::from_utf8(bytes))
}

/// `bytes` read as strict UTF-8 (what Python's `bytes.decode("utf-8")` accepts): its count of
/// characters and whether it is non-empty and all white space (`str.isspace()`); None when
/// it is not valid UTF-8.
pub fn utf8_facts(bytes: &[u8]) -> Option<(usize, bool)> {
    let text = utf8_str(bytes).ok()?;
    // A character begins at every byte that is not a continuation byte (0b10xxxxxx). Counted
    // in runs of 255 bytes, each into a u8, which the compiler makes byte-wide vector adds.
    let continuations: usize = bytes
        .chunks(255)
        .map(|run| {
            let in_run: u8 = run.iter().map(|&b| u8::from((b as i8) < -0x40)).sum();
            usize::from(in_run)
        })
        .sum();
    Some((bytes.len() - continuations, is_all_space(text)))
}

/// Whether an ASCII byte is white space to Python (`\x1c` to `\x1f` included).
#[inline]
fn is_ascii_space(byte: u8) -> bool {
    BYTE_CLASSES[byte as usize] == ASCII_SPACE
}

/// [`BYTE_CLASSES`]: a byte of a non-ASCII character.
const NON_ASCII: u8 = 0;
/// [`BYTE_CLASSES`]: ASCII white space.
const ASCII_SPACE: u8 = 1;
/// [`BYTE_CLASSES`]: any other ASCII character.
const ASCII_WORD: u8 = 2;

/// The class of every byte, so that the scans below test a byte with one lookup.
static BYTE_CLASSES: [u8; 256] = {
    let mut classes = [NON_ASCII; 256];
    let mut byte = 0;
    while byte < 0x80 {
        classes[byte] = match byte as u8 {
            b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | b' ' | 0x1c..=0x1f => ASCII_SPACE,
            _ => ASCII_WORD,
        };
        byte += 1;
    }
    classes
};

/// The first byte from `at` whose class is not `class` (or the end).
#[inline]
fn run_of(bytes: &[u8], at: usize, class: u8) -> usize {
    bytes[at..]
        .iter()
        .position(|&b| BYTE_CLASSES[b as usize] != class)
        .map_or(bytes.len(), |n| at + n)
}

/// The length in bytes of the non-ASCII character at `at`, and whether it is white space.
/// Only characters led by `\xc2`, `\xe1`, `\xe2` or `\xe3` can be (U+0085, U+00A0,
/// U+1680, U+2000 to U+205F, U+3000); the others are not decoded.
fn non_ascii(text: &str, at: usize, lead: u8) -> (usize, bool) {
    let len = match lead {
        ..0xe0 => 2,
        0xe0..0xf0 => 3,
        _ => 4,
    };
    let space = matches!(lead, 0xc2 | 0xe1 | 0xe2 | 0xe3)
        && text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(is_space);
    (len, space)
}

/// The white-space-separated words of `text` (`str.split()`'s), read a byte at a time
/// where the text is ASCII.
pub fn words(text: &str) -> Words<'_> {
    Words { text, at: 0 }
}

/// See [`words`].
pub struct Words<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let text = self.text;
        let bytes = text.as_bytes();
        let len = bytes.len();
        let mut at = self.at;
        while at < len {
            let byte = bytes[at];
            if byte < 0x80 {
                if !is_ascii_space(byte) {
                    break;
                }
                at += 1;
            } else {
                let (n, space) = non_ascii(text, at, byte);
                if !space {
                    break;
                }
                at += n;
            }
        }
        if at >= len {
            self.at = len;
            return None;
        }
        let start = at;
        while at < len {
            let byte = bytes[at];
            if byte < 0x80 {
                if is_ascii_space(byte) {
                    break;
                }
                at += 1;
            } else {
                let (n, space) = non_ascii(text, at, byte);
                if space {
                    break;
                }
                at += n;
            }
        }
        self.at = at;
        Some(text.get(start..at).unwrap_or_default())
    }
}

/// `text`'s words joined by single spaces, and how many there are.
pub fn collapse_whitespace(text: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    for word in words(text) {
        if count > 0 {
            out.push(' ');
        }
        out.push_str(word);
        count += 1;
    }
    (out, count)
}

/// [`collapse_whitespace`] of the concatenation of `pieces`, without making it: a word may
/// run on from one piece into the next. `capacity`: bytes to reserve for the text.
pub fn collapse_pieces<'a>(
    pieces: impl IntoIterator<Item = &'a str>,
    capacity: usize,
) -> (String, usize) {
    let mut out = String::with_capacity(capacity);
    let mut count = 0;
    // Whether the last character read belongs to a word.
    let mut in_word = false;
    for piece in pieces {
        let bytes = piece.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let byte = bytes[at];
            // Runs of ASCII white space and of ASCII word characters are taken whole.
            let (end, space) = match BYTE_CLASSES[byte as usize] {
                ASCII_SPACE => (run_of(bytes, at + 1, ASCII_SPACE), true),
                ASCII_WORD => (run_of(bytes, at + 1, ASCII_WORD), false),
                _ => {
                    let (n, space) = non_ascii(piece, at, byte);
                    (at + n, space)
                }
            };
            if space {
                in_word = false;
            } else {
                if !in_word {
                    if count > 0 {
                        out.push(' ');
                    }
                    count += 1;
                    in_word = true;
                }
                out.push_str(piece.get(at..end).unwrap_or_default());
            }
            at = end;
        }
    }
    (out, count)
}

/// The characters and words of [`collapse_whitespace`]'s text, without making it.
pub fn collapsed_counts(text: &str) -> (usize, usize) {
    let (mut chars, mut count) = (0usize, 0usize);
    for word in words(text) {
        chars += word.chars().count();
        count += 1;
    }
    (chars + count.saturating_sub(1), count)
}

/// How many white-space-separated words `text` holds.
pub fn split_count(text: &str) -> usize {
    words(text).count()
}

/// A `pre` block's text: line breaks kept, trailing white space of each line and
/// blank lines at both ends removed. Linear in the text, however many blank lines lead it.
pub fn pre_text(raw: &str) -> String {
    let normalized = raw.replace("\r\n", "\n");
    let lines: Vec<&str> = normalized
        .split('\n')
        .map(|line| line.trim_end_matches(is_space))
        .collect();
    let first = lines.iter().position(|line| !line.is_empty());
    let Some(first) = first else {
        return String::new();
    };
    let last = lines
        .iter()
        .rposition(|line| !line.is_empty())
        .unwrap_or(first);
    lines[first..=last].join("\n")
}

/// An inline style that hides its element: `display: none` or `visibility: hidden`,
/// in any case, with any white space around the colon.
pub fn hides(style: &str) -> bool {
    let lower = style.to_lowercase();
    declares(&lower, "display", "none") || declares(&lower, "visibility", "hidden")
}

fn declares(style: &str, property: &str, value: &str) -> bool {
    style.match_indices(property).any(|(at, _)| {
        let rest = style[at + property.len()..].trim_start_matches(is_space);
        rest.strip_prefix(':')
            .is_some_and(|rest| rest.trim_start_matches(is_space).starts_with(value))
    })
}

/// How deep arrays and objects nest in JSON text, brackets inside strings aside: a linear scan,
/// no parse (``thresher.document.jsonld.nesting_depth``). A string runs from its quote to the
/// next unescaped quote, or to the end of the text when it is never closed.
pub fn json_nesting_depth(raw: &str) -> usize {
    let bytes = raw.as_bytes();
    let (mut depth, mut deepest) = (0i64, 0i64);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    usize::try_from(deepest).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_facts_count_characters_and_read_space_as_python_does() {
        assert_eq!(utf8_facts("aé中😀".as_bytes()), Some((4, false)));
        assert_eq!(
            utf8_facts("\u{a0}\u{1c}\u{3000} ".as_bytes()),
            Some((4, true))
        );
        assert_eq!(utf8_facts(b""), Some((0, false)));
        // Invalid: a lone continuation byte, an encoded surrogate, an overlong encoding.
        for bad in [&b"a\x80"[..], b"\xed\xa0\x80", b"\xc0\xaf"] {
            assert_eq!(utf8_facts(bad), None);
        }
    }

    #[test]
    fn json_depth_skips_strings_and_unclosed_ones() {
        assert_eq!(json_nesting_depth(r#"{"a": [1, {"b": "[[[["}]}"#), 3);
        assert_eq!(json_nesting_depth(r#""\"[[" [ ]"#), 1);
        assert_eq!(json_nesting_depth(r#"]]] ["#), 0);
        assert_eq!(json_nesting_depth(r#""never closed [[["#), 0);
        assert_eq!(json_nesting_depth(""), 0);
    }

    #[test]
    fn collapses_unicode_and_separator_space() {
        assert_eq!(
            collapse_whitespace("  a\u{a0}b\u{1f}c\n\t d "),
            ("a b c d".to_owned(), 4)
        );
        assert_eq!(collapse_whitespace(" \u{2003} "), (String::new(), 0));
    }

    #[test]
    fn words_split_as_python_does() {
        let text = "\u{85}a\u{3000}bé\u{1c}c\u{200b}d \u{a0}";
        assert_eq!(words(text).collect::<Vec<_>>(), ["a", "bé", "c\u{200b}d"]);
        assert_eq!(collapsed_counts(text), (8, 3));
        assert_eq!(collapsed_counts(" "), (0, 0));
        assert_eq!(split_count("x\ty\u{2028}z"), 3);
    }

    #[test]
    fn words_agree_with_splitting_on_every_character() {
        let reference = |t: &str| -> Vec<String> {
            t.split(is_space)
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect()
        };
        for c in (0..0x1_0000).filter_map(char::from_u32) {
            let text = format!("a{c}b {c}{c}é{c}");
            assert_eq!(words(&text).collect::<Vec<_>>(), reference(&text), "{c:?}");
        }
    }

    /// Texts cut into pieces of white space (ASCII, Unicode, separators), letters and
    /// zero-width spaces, from a fixed pseudo-random sequence.
    fn cut_texts() -> Vec<Vec<String>> {
        let alphabet = [
            " ", "\n", "\t", "\u{1f}", "\u{a0}", "\u{3000}", "\u{85}", "a", "bc", "é", "\u{200b}",
            "日本", "x y", "",
        ];
        let mut state = 0x2545_f491_u32;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as usize % n
        };
        (0..3000)
            .map(|_| {
                (0..next(6))
                    .map(|_| {
                        (0..next(5))
                            .map(|_| alphabet[next(alphabet.len())])
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn collapsing_pieces_equals_collapsing_their_concatenation() {
        for pieces in cut_texts() {
            let whole = pieces.concat();
            assert_eq!(
                collapse_pieces(pieces.iter().map(String::as_str), 0),
                collapse_whitespace(&whole),
                "{pieces:?}"
            );
        }
    }

    #[test]
    fn trimming_and_all_space_agree_with_the_char_predicate() {
        for pieces in cut_texts() {
            let whole = pieces.concat();
            assert_eq!(
                trim_space(&whole),
                whole.trim_matches(is_space),
                "{whole:?}"
            );
            let all = !whole.is_empty() && whole.chars().all(is_space);
            assert_eq!(is_all_space(&whole), all, "{whole:?}");
        }
        assert_eq!(trim_space(" \u{a0}\tx\u{2003} y\u{3000}\n "), "x\u{2003} y");
        assert_eq!(trim_space("\u{a0} \u{a0}"), "");
    }

    #[test]
    fn byte_classes_agree_with_python_white_space() {
        for byte in 0..=255u8 {
            let class = BYTE_CLASSES[byte as usize];
            if byte < 0x80 {
                assert_eq!(is_ascii_space(byte), is_space(char::from(byte)), "{byte}");
                assert_eq!(class == ASCII_WORD, !is_space(char::from(byte)), "{byte}");
            } else {
                assert_eq!(class, NON_ASCII, "{byte}");
            }
        }
    }

    #[test]
    fn zero_width_space_is_not_white_space() {
        assert!(!is_all_space("\u{200b}"));
        assert!(is_all_space(" \u{3000}\n"));
        assert!(!is_all_space(""));
    }

    #[test]
    fn pre_text_trims_blank_edges_and_line_ends() {
        assert_eq!(
            pre_text("\n\n  \r\n  x = 1  \n\n    y\t\n \n"),
            "  x = 1\n\n    y"
        );
        assert_eq!(pre_text(" \n \n"), "");
    }

    #[test]
    fn pre_text_is_linear_in_leading_blank_lines() {
        let raw = "\n".repeat(300_000) + "code";
        assert_eq!(pre_text(&raw), "code");
    }

    #[test]
    fn hidden_styles() {
        assert!(hides("color: red; DISPLAY : none"));
        assert!(hides("visibility:hidden"));
        assert!(!hides("display: block; visibility: visible"));
        assert!(!hides("display-none: x"));
    }
}
