//! Python's character classes, as the feature definitions use them.

use unicode_general_category::{get_general_category, GeneralCategory as G};

/// `re`'s `\d` on `str`: a Unicode decimal digit (category Nd).
pub fn is_decimal(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    get_general_category(c) == G::DecimalNumber
}

/// `re`'s `\w` on `str`: a letter or a number (what `str.isalnum` accepts), or `_`.
pub fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
    )
}

/// Code points that Rust's (newer) Unicode tables lower-case but that the Unicode database of
/// the Python the models were trained with (14.0) does not yet assign, so `str.lower` keeps them
/// (ascending: the first range starts the lowest).
const UNCASED_IN_PYTHON: &[(char, char)] = &[
    ('\u{1c89}', '\u{1c89}'),
    ('\u{a7cb}', '\u{a7cc}'),
    ('\u{a7ce}', '\u{a7ce}'),
    ('\u{a7d2}', '\u{a7d2}'),
    ('\u{a7d4}', '\u{a7d4}'),
    ('\u{a7da}', '\u{a7da}'),
    ('\u{a7dc}', '\u{a7dc}'),
    ('\u{10d50}', '\u{10d65}'),
    ('\u{16ea0}', '\u{16eb8}'),
];

fn uncased_in_python(c: char) -> bool {
    c >= UNCASED_IN_PYTHON[0].0
        && UNCASED_IN_PYTHON
            .iter()
            .any(|&(low, high)| (low..=high).contains(&c))
}

/// Python's `str.lower`: full case mapping (`İ` becomes `i` and a combining dot), with the
/// final-sigma rule, as Rust's `str::to_lowercase` does them, except that the code points
/// Python's Unicode database does not assign stay as they are. Such a code point is neither
/// cased nor case-ignorable for Python, so it bounds the final-sigma context: lower-casing the
/// runs between them apart gives Python's result.
pub fn python_lower(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    if !text.chars().any(uncased_in_python) {
        return text.to_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if uncased_in_python(c) {
            out.push_str(&text[start..at].to_lowercase());
            out.push(c);
            start = at + c.len_utf8();
        }
    }
    out.push_str(&text[start..].to_lowercase());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_characters_are_letters_numbers_and_underscore() {
        for c in ['a', 'Z', '7', '_', 'é', 'ж', '中', '٣', 'Ⅻ', '½'] {
            assert!(is_word(c), "{c}");
        }
        // Combining marks (a Devanagari vowel sign) are not word characters for Python.
        for c in ['-', ' ', '.', '\u{93e}', '\u{301}', '©'] {
            assert!(!is_word(c), "{c:?}");
        }
    }

    #[test]
    fn lower_casing_follows_python() {
        assert_eq!(python_lower("ΟΔΟΣ Σ ΑΣ."), "οδος σ ας.");
        assert_eq!(python_lower("İ"), "i\u{307}");
        // Unassigned for Python: kept, and a boundary of the final-sigma context.
        assert_eq!(python_lower("A\u{a7cb}ΑΣ\u{a7cc}Σ"), "a\u{a7cb}ας\u{a7cc}σ");
        assert_eq!(python_lower("\u{10d50}"), "\u{10d50}");
        assert_eq!(python_lower(""), "");
    }

    #[test]
    fn decimal_digits_of_any_script() {
        assert!(is_decimal('7') && is_decimal('٣') && is_decimal('７'));
        assert!(!is_decimal('½') && !is_decimal('Ⅻ') && !is_decimal('a'));
    }
}
