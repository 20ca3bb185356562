//! Python's character classes, as the feature definitions use them.

use unicode_general_category::{get_general_category, GeneralCategory as G};

/// `re`'s `\d` on `str`: a Unicode decimal digit (category Nd).
pub fn is_decimal(c: char) -> bool {
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
    fn decimal_digits_of_any_script() {
        assert!(is_decimal('7') && is_decimal('٣') && is_decimal('７'));
        assert!(!is_decimal('½') && !is_decimal('Ⅻ') && !is_decimal('a'));
    }
}
