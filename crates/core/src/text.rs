//! White space as Python's `str.split()` sees it, so block texts and counts are the
//! ones the Python layer (and the models trained on it) expect.

/// Python's `str.isspace()` for one character: Unicode's White_Space, plus the
/// information separators U+001C to U+001F.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Whether `text` is non-empty and all white space.
pub fn is_all_space(text: &str) -> bool {
    !text.is_empty() && text.chars().all(is_space)
}

/// `text`'s words joined by single spaces, and how many there are.
pub fn collapse_whitespace(text: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut words = 0;
    for word in text.split(is_space).filter(|w| !w.is_empty()) {
        if words > 0 {
            out.push(' ');
        }
        out.push_str(word);
        words += 1;
    }
    (out, words)
}

/// How many white-space-separated words `text` holds.
pub fn split_count(text: &str) -> usize {
    text.split(is_space).filter(|w| !w.is_empty()).count()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_unicode_and_separator_space() {
        assert_eq!(
            collapse_whitespace("  a\u{a0}b\u{1f}c\n\t d "),
            ("a b c d".to_owned(), 4)
        );
        assert_eq!(collapse_whitespace(" \u{2003} "), (String::new(), 0));
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
