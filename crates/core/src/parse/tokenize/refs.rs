//! The character references the fast path decodes itself: a name with its semicolon
//! (`&amp;`, `&nbsp;`) and numeric ones (`&#8217;`, `&#x27;`), which html5ever decodes the
//! same in text and in attribute values. A name without its semicolon, an unknown name or
//! `&#` without digits is left to html5ever, whose rules for those depend on where they stand.

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

/// `text` with its character references decoded; `None` when one is not of the kinds above.
/// `text` ends before a character that cannot continue a reference (`<`, a quote, white
/// space, `>`), so a `&` at its end is a plain `&`.
pub(super) fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'&', &bytes[at..]) {
        let amp = at + found;
        let end = match bytes.get(amp + 1) {
            Some(b'#') => {
                let (c, end) = numeric(bytes, amp + 2)?;
                out.push_str(&text[copied..amp]);
                out.push(c);
                end
            }
            Some(b) if b.is_ascii_alphanumeric() => {
                let (first, second, end) = named(text, amp + 1)?;
                out.push_str(&text[copied..amp]);
                out.push(first);
                out.extend(second);
                end
            }
            // A `&` that starts no reference is text.
            _ => {
                at = amp + 1;
                continue;
            }
        };
        copied = end;
        at = end;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// The character of a numeric reference whose digits (after `&#`) start at `start`, and
/// the index after it (past its `;`, when it has one).
fn numeric(bytes: &[u8], start: usize) -> Option<(char, usize)> {
    let (base, digits) = match bytes.get(start) {
        Some(b'x' | b'X') => (16, start + 1),
        _ => (10, start),
    };
    let mut value: u32 = 0;
    let mut i = digits;
    while let Some(digit) = bytes.get(i).and_then(|&b| char::from(b).to_digit(base)) {
        value = value.saturating_mul(base).saturating_add(digit);
        i += 1;
    }
    if i == digits {
        return None;
    }
    if bytes.get(i) == Some(&b';') {
        i += 1;
    }
    Some((numeric_char(value), i))
}

/// The standard's reading of a numeric reference's value: U+FFFD for none, a surrogate or
/// past Unicode, the Windows-1252 character for a C1 control that has one.
fn numeric_char(value: u32) -> char {
    match value {
        0 | 0xD800..=0xDFFF | 0x11_0000.. => '\u{fffd}',
        0x80..=0x9F => C1_REPLACEMENTS[(value - 0x80) as usize]
            .or_else(|| char::from_u32(value))
            .unwrap_or('\u{fffd}'),
        _ => char::from_u32(value).unwrap_or('\u{fffd}'),
    }
}

/// The characters of the named reference whose name starts at `start`, when the name is
/// followed by `;` and names a character (with the `;`), and the index after the `;`.
fn named(text: &str, start: usize) -> Option<(char, Option<char>, usize)> {
    let bytes = text.as_bytes();
    let semicolon = start
        + bytes[start..]
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .unwrap_or(bytes.len() - start);
    if bytes.get(semicolon) != Some(&b';') {
        return None;
    }
    let &(first, second) = NAMED_ENTITIES.get(&text[start..=semicolon])?;
    let first = char::from_u32(first).filter(|_| first != 0)?;
    let second = if second == 0 {
        None
    } else {
        Some(char::from_u32(second)?)
    };
    Some((first, second, semicolon + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_named_and_numeric_references() {
        assert_eq!(
            decode("a&amp;b &nbsp;&#8217;&#x27;&#X41&#65;&").as_deref(),
            Some("a&b \u{a0}\u{2019}'AA&")
        );
        assert_eq!(
            decode("&NotEqualTilde;").as_deref(),
            Some("\u{2242}\u{338}")
        );
        assert_eq!(
            decode("& &; &#0;&#128;&#x81;&#xD800;&#99999999999;").as_deref(),
            Some("& &; \u{fffd}\u{20ac}\u{81}\u{fffd}\u{fffd}")
        );
    }

    #[test]
    fn leaves_the_context_dependent_references() {
        for text in ["&amp", "&nbsp x", "&unknown;", "&#;", "&#x;", "&ampx;"] {
            assert_eq!(decode(text), None, "{text}");
        }
    }
}
