//! The one rule for what a browser would not show, read by everything that asks.
//!
//! An element is hidden by the `hidden` attribute (except `hidden="until-found"`, which a
//! browser reveals on find-in-page), by `aria-hidden="true"`, or by an inline `display: none`
//! or `visibility: hidden` style ([`signal`] says which). The tree facts' `hidden` column
//! reads it, and declutter prunes by its style signal. The walk still reads hidden elements:
//! collapsed FAQ answers, tabs and streamed content hold most of their words in labelled main
//! content (docs/native-core.md). `<template>` is never walked (see `document::tags`).
//!
//! A text node is machine data, not prose, when it is a JSON object or array, or (outside a
//! link, where a shown URL is read) a long run of URL, base64 or hash characters with digits
//! or slashes among them and no white space; the walk leaves such text out of the blocks.

use crate::dom::Attr;
use crate::text::{hides, is_space, trim_space};

/// Characters of a JSON text below which it is too short to be a data blob (an inline example
/// in a sentence, say).
pub const MIN_JSON_CHARS: usize = 40;
/// Characters of a run without white space from which it is a data blob.
pub const MIN_BLOB_CHARS: usize = 100;

/// Which attribute hides an element: `"hidden"` (not `until-found`), `"aria-hidden"` (`true`)
/// or `"style"` (an inline style), the first met in `attrs` (name, value) order; None when none.
pub fn signal<'a>(attrs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<&'static str> {
    attrs.into_iter().find_map(|(name, value)| {
        let value = trim_space(value);
        match name {
            "hidden" if !value.eq_ignore_ascii_case("until-found") => Some("hidden"),
            "aria-hidden" if value.eq_ignore_ascii_case("true") => Some("aria-hidden"),
            "style" if hides(value) => Some("style"),
            _ => None,
        }
    })
}

/// Hidden by its own attributes (any [`signal`]).
pub fn hidden_by(attrs: &[Attr]) -> bool {
    signal(attrs.iter().map(|a| (&*a.name, a.value.as_str()))).is_some()
}

/// A text node that is data for scripts or crawlers, not text to read (`in_link`: the text of
/// a link, where a shown URL is text).
pub fn is_data_text(text: &str, in_link: bool) -> bool {
    let body = trim_space(text);
    is_json(body) || (!in_link && is_blob(body))
}

fn is_json(body: &str) -> bool {
    let framed = (body.starts_with('{') && body.ends_with('}'))
        || (body.starts_with('[') && body.ends_with(']'));
    framed && body.len() >= MIN_JSON_CHARS && body.contains("\":")
}

fn is_blob(body: &str) -> bool {
    if body.len() < MIN_BLOB_CHARS || body.chars().any(is_space) {
        return false;
    }
    let data = body
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric() || b"+/=_-.:%?&#~,;".contains(b))
        .count();
    // Machine data mixes digits or path separators into its letters; a long run of letters alone
    // (a stretched word, a made-up name) is not read as data.
    let machine = body.bytes().any(|b| b.is_ascii_digit() || b == b'/');
    machine && data * 10 >= body.len() * 9
}

#[cfg(test)]
mod tests {
    use super::*;
    use html5ever::LocalName;

    fn attr(name: &str, value: &str) -> Attr {
        Attr {
            name: LocalName::from(name),
            value: value.into(),
        }
    }

    #[test]
    fn hiding_attributes() {
        assert!(hidden_by(&[attr("hidden", "")]));
        assert!(hidden_by(&[attr("aria-hidden", " TRUE ")]));
        assert!(hidden_by(&[attr("style", "color:red; display : none")]));
        assert!(!hidden_by(&[attr("hidden", "until-found")]));
        assert!(!hidden_by(&[attr("aria-hidden", "false")]));
        assert!(!hidden_by(&[attr("class", "hidden")]));
        assert_eq!(
            signal([("id", "x"), ("style", "display:none"), ("hidden", "")]),
            Some("style")
        );
        assert_eq!(signal([("aria-hidden", "false")]), None);
    }

    #[test]
    fn data_texts() {
        let json =
            r#"{"@type": "Article", "datePublished": "2024-01-01T10:00:00Z", "tags": ["a", "b"]}"#;
        assert!(is_data_text(json, false));
        assert!(is_data_text(&format!("  [{json}, {json}] "), true));
        assert!(is_data_text(
            &"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(4),
            false
        ));
        let url = format!("https://cdn.example.com/images/{}.jpg", "a1b2c3".repeat(15));
        assert!(is_data_text(&url, false));
        assert!(!is_data_text(&url, true)); // a link that shows its URL
        assert!(!is_data_text(r#"{"a": 1}"#, false)); // an inline example
        assert!(!is_data_text(
            "A sentence that mentions {braces} and [brackets] in prose, long enough.",
            false
        ));
        assert!(!is_data_text(
            "{ this is a template placeholder that has no key in it at all }",
            false
        ));
        assert!(!is_data_text(&"word ".repeat(40), false));
        assert!(!is_data_text(&"x".repeat(150), false));
    }
}
