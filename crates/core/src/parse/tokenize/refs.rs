//! Character references, decoded as html5ever's tokenizer decodes them: named ones by the
//! longest name of the entity table that the text starts with (the legacy names without
//! their semicolon included, except in an attribute value before `=` or a letter or digit),
//! numeric ones with the standard's replacements. A `&` that starts no reference is text.

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

/// `text` with its character references decoded; `in_attribute`: it is an attribute value.
/// `text` ends before a character that cannot continue a reference (`<`, a quote, white
/// space, `>`), so it ends a reference as the end of the input would.
pub(super) fn decode(text: &str, in_attribute: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'&', &bytes[at..]) {
        let amp = at + found;
        let reference = match bytes.get(amp + 1) {
            Some(b'#') => numeric(bytes, amp + 2).map(|(c, end)| (c, None, end)),
            Some(b) if b.is_ascii_alphanumeric() => named(text, amp + 1, in_attribute),
            _ => None,
        };
        let Some((first, second, end)) = reference else {
            at = amp + 1;
            continue;
        };
        out.push_str(&text[copied..amp]);
        out.push(first);
        out.extend(second);
        copied = end;
        at = end;
    }
    out.push_str(&text[copied..]);
    out
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

/// The characters of the named reference whose name starts at `start`, and the index
/// after it: the longest entity name that the text there starts with, read while the text
/// read is the start of some name. `None` for none, or (in an attribute value) for a name
/// without its semicolon followed by `=`, a letter or a digit.
fn named(text: &str, start: usize, in_attribute: bool) -> Option<(char, Option<char>, usize)> {
    let bytes = text.as_bytes();
    // The common case first: a name and its semicolon, which no longer name can extend.
    let run = start
        + bytes[start..]
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .unwrap_or(bytes.len() - start);
    if bytes.get(run) == Some(&b';') {
        if let Some(c) = common(&bytes[start..=run]) {
            return Some((c, None, run + 1));
        }
        if let Some(&(first, second)) = NAMED_ENTITIES.get(&text[start..=run]) {
            if first != 0 {
                let second = if second == 0 {
                    None
                } else {
                    Some(char::from_u32(second)?)
                };
                return Some((char::from_u32(first)?, second, run + 1));
            }
        }
    }
    let mut found = None;
    let mut end = start;
    // Entity names are ASCII letters, digits and a final `;`.
    while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b';') {
        end += 1;
        let Some(&(first, second)) = NAMED_ENTITIES.get(&text[start..end]) else {
            break;
        };
        if first != 0 {
            found = Some((first, second, end));
        }
    }
    let (first, second, end) = found?;
    let next = bytes.get(end).copied();
    if in_attribute
        && bytes[end - 1] != b';'
        && next.is_some_and(|b| b == b'=' || b.is_ascii_alphanumeric())
    {
        return None;
    }
    let second = if second == 0 {
        None
    } else {
        Some(char::from_u32(second)?)
    };
    Some((char::from_u32(first)?, second, end))
}

/// The character of a common named reference (with its semicolon), without hashing the
/// name to look it up in the entity table.
fn common(name: &[u8]) -> Option<char> {
    Some(match name {
        b"quot;" => '"',
        b"amp;" => '&',
        b"nbsp;" => '\u{a0}',
        b"gt;" => '>',
        b"lt;" => '<',
        b"apos;" => '\'',
        b"rsquo;" => '\u{2019}',
        b"lsquo;" => '\u{2018}',
        b"rdquo;" => '\u{201d}',
        b"ldquo;" => '\u{201c}',
        b"mdash;" => '\u{2014}',
        b"ndash;" => '\u{2013}',
        b"hellip;" => '\u{2026}',
        b"copy;" => '\u{a9}',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_references_are_the_entity_tables() {
        let names = [
            "quot;", "amp;", "nbsp;", "gt;", "lt;", "apos;", "rsquo;", "lsquo;", "rdquo;",
            "ldquo;", "mdash;", "ndash;", "hellip;", "copy;",
        ];
        for name in names {
            let (first, second) = NAMED_ENTITIES[name];
            assert_eq!(
                common(name.as_bytes()).map(u32::from),
                Some(first),
                "{name}"
            );
            assert_eq!(second, 0, "{name}");
        }
        assert_eq!(common(b"amp"), None);
        assert_eq!(common(b"notin;"), None);
    }

    #[test]
    fn decodes_named_and_numeric_references() {
        assert_eq!(
            decode("a&amp;b &nbsp;&#8217;&#x27;&#X41&#65;&", false),
            "a&b \u{a0}\u{2019}'AA&"
        );
        assert_eq!(decode("&NotEqualTilde;", false), "\u{2242}\u{338}");
        assert_eq!(
            decode("& &; &#0;&#128;&#x81;&#xD800;&#99999999999;&#;&#x;", false),
            "& &; \u{fffd}\u{20ac}\u{81}\u{fffd}\u{fffd}&#;&#x;"
        );
    }

    #[test]
    fn legacy_names_without_their_semicolon() {
        assert_eq!(
            decode("&amp &ampx &notit; &notin; &unknown;", false),
            "& &x ¬it; ∉ &unknown;"
        );
        assert_eq!(
            decode("?a=1&copy=2&amp;b&ampx&amp", true),
            "?a=1&copy=2&b&ampx&"
        );
    }
}
