//! Byte scans that find where the tokenizer's states end a tag or a script, following
//! html5ever's tokenizer state by state on the characters that change its state.

use std::ops::Range;

use html5ever::{local_name, LocalName};

pub(super) fn is_space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | b'\x0c' | b' ')
}

/// A tag as scanned: byte ranges of its name and attributes (values without their quotes).
pub(super) struct Scanned {
    pub(super) name: Range<usize>,
    pub(super) attrs: Vec<(Range<usize>, Range<usize>)>,
    pub(super) self_closing: bool,
    /// Just past the closing `>`.
    pub(super) end: usize,
    /// Whether an attribute value holds `&` (a character reference to decode).
    pub(super) amp: bool,
}

/// Scan a tag whose name starts at `name_start`, following html5ever's tag states from
/// the tag name state to the `>` that emits it; `None` when the input ends first.
pub(super) fn scan_tag(bytes: &[u8], name_start: usize) -> Option<Scanned> {
    let len = bytes.len();
    let mut i = name_start;
    while i < len && !is_space(bytes[i]) && bytes[i] != b'/' && bytes[i] != b'>' {
        i += 1;
    }
    let mut tag = Scanned {
        name: name_start..i,
        attrs: Vec::new(),
        self_closing: false,
        end: 0,
        amp: false,
    };
    // Each turn starts in the before-attribute-name state (which the states after a name
    // or value, and the self-closing state, agree with on every character they reconsume).
    loop {
        let byte = *bytes.get(i)?;
        match byte {
            b'>' => {
                tag.end = i + 1;
                return Some(tag);
            }
            b'/' => {
                i += 1;
                if *bytes.get(i)? == b'>' {
                    tag.self_closing = true;
                    tag.end = i + 1;
                    return Some(tag);
                }
            }
            _ if is_space(byte) => i += 1,
            _ => {
                // An attribute name: its first character may be anything here (`=` too).
                let name_at = i;
                i += 1;
                while i < len && !is_space(bytes[i]) && !matches!(bytes[i], b'/' | b'>' | b'=') {
                    i += 1;
                }
                let name = name_at..i;
                while i < len && is_space(bytes[i]) {
                    i += 1;
                }
                if *bytes.get(i)? != b'=' {
                    tag.attrs.push((name, i..i));
                    continue;
                }
                i += 1;
                while i < len && is_space(bytes[i]) {
                    i += 1;
                }
                let value = match *bytes.get(i)? {
                    quote @ (b'"' | b'\'') => {
                        let close = i + 1 + memchr::memchr(quote, &bytes[i + 1..])?;
                        let value = i + 1..close;
                        i = close + 1;
                        value
                    }
                    b'>' => i..i,
                    _ => {
                        let start = i;
                        while i < len && !is_space(bytes[i]) && bytes[i] != b'>' {
                            i += 1;
                        }
                        start..i
                    }
                };
                tag.amp |= memchr::memchr(b'&', &bytes[value.clone()]).is_some();
                tag.attrs.push((name, value));
            }
        }
    }
}

/// `text` with ASCII capitals lowered, as the tokenizer lowers tag and attribute names.
pub(super) fn lowered(text: &str) -> LocalName {
    if let Some(name) = common(text.as_bytes()) {
        return name;
    }
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        LocalName::from(text.to_ascii_lowercase())
    } else {
        LocalName::from(text)
    }
}

/// The atoms of the commonest tag and attribute names, matched on their lower-case bytes:
/// the atoms `LocalName::from` gives, without hashing the name to find them.
fn common(name: &[u8]) -> Option<LocalName> {
    Some(match name {
        b"a" => local_name!("a"),
        b"abbr" => local_name!("abbr"),
        b"alt" => local_name!("alt"),
        b"article" => local_name!("article"),
        b"aside" => local_name!("aside"),
        b"b" => local_name!("b"),
        b"body" => local_name!("body"),
        b"br" => local_name!("br"),
        b"button" => local_name!("button"),
        b"charset" => local_name!("charset"),
        b"class" => local_name!("class"),
        b"content" => local_name!("content"),
        b"d" => local_name!("d"),
        b"data" => local_name!("data"),
        b"datetime" => local_name!("datetime"),
        b"dd" => local_name!("dd"),
        b"div" => local_name!("div"),
        b"dl" => local_name!("dl"),
        b"dt" => local_name!("dt"),
        b"em" => local_name!("em"),
        b"fill" => local_name!("fill"),
        b"figcaption" => local_name!("figcaption"),
        b"figure" => local_name!("figure"),
        b"footer" => local_name!("footer"),
        b"form" => local_name!("form"),
        b"h1" => local_name!("h1"),
        b"h2" => local_name!("h2"),
        b"h3" => local_name!("h3"),
        b"h4" => local_name!("h4"),
        b"h5" => local_name!("h5"),
        b"h6" => local_name!("h6"),
        b"head" => local_name!("head"),
        b"header" => local_name!("header"),
        b"height" => local_name!("height"),
        b"hidden" => local_name!("hidden"),
        b"hr" => local_name!("hr"),
        b"href" => local_name!("href"),
        b"html" => local_name!("html"),
        b"i" => local_name!("i"),
        b"id" => local_name!("id"),
        b"iframe" => local_name!("iframe"),
        b"img" => local_name!("img"),
        b"input" => local_name!("input"),
        b"itemprop" => local_name!("itemprop"),
        b"label" => local_name!("label"),
        b"lang" => local_name!("lang"),
        b"li" => local_name!("li"),
        b"link" => local_name!("link"),
        b"loading" => local_name!("loading"),
        b"main" => local_name!("main"),
        b"meta" => local_name!("meta"),
        b"name" => local_name!("name"),
        b"nav" => local_name!("nav"),
        b"noscript" => local_name!("noscript"),
        b"ol" => local_name!("ol"),
        b"option" => local_name!("option"),
        b"p" => local_name!("p"),
        b"path" => local_name!("path"),
        b"picture" => local_name!("picture"),
        b"pre" => local_name!("pre"),
        b"property" => local_name!("property"),
        b"rel" => local_name!("rel"),
        b"role" => local_name!("role"),
        b"script" => local_name!("script"),
        b"section" => local_name!("section"),
        b"select" => local_name!("select"),
        b"sizes" => local_name!("sizes"),
        b"small" => local_name!("small"),
        b"source" => local_name!("source"),
        b"span" => local_name!("span"),
        b"src" => local_name!("src"),
        b"srcset" => local_name!("srcset"),
        b"strong" => local_name!("strong"),
        b"style" => local_name!("style"),
        b"sub" => local_name!("sub"),
        b"sup" => local_name!("sup"),
        b"svg" => local_name!("svg"),
        b"table" => local_name!("table"),
        b"target" => local_name!("target"),
        b"tbody" => local_name!("tbody"),
        b"td" => local_name!("td"),
        b"th" => local_name!("th"),
        b"title" => local_name!("title"),
        b"tr" => local_name!("tr"),
        b"type" => local_name!("type"),
        b"ul" => local_name!("ul"),
        b"value" => local_name!("value"),
        b"width" => local_name!("width"),
        _ => return None,
    })
}

/// Whether `bytes` at `at` start with `word`, ASCII case ignored.
pub(super) fn starts_with_ignoring_case(bytes: &[u8], at: usize, word: &[u8]) -> bool {
    bytes
        .get(at..at + word.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(word))
}

/// The first `</name` from `pos` followed by white space, `/` or `>` (name case ignored):
/// where the raw text of an element named `name` ends.
pub(super) fn appropriate_end_tag(bytes: &[u8], pos: usize, name: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(&bytes[pos..], b"</")
        .map(|at| pos + at)
        .find(|&lt| is_end_tag(bytes, lt, name))
}

/// Whether `bytes` at `lt` hold `</name` followed by white space, `/` or `>`.
fn is_end_tag(bytes: &[u8], lt: usize, name: &[u8]) -> bool {
    bytes.get(lt + 1) == Some(&b'/')
        && starts_with_ignoring_case(bytes, lt + 2, name)
        && bytes
            .get(lt + 2 + name.len())
            .is_some_and(|&b| is_space(b) || b == b'/' || b == b'>')
}

/// The script data states that matter for where a script ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Data,
    Escaped,
    EscapedDash,
    EscapedDashDash,
    Double,
    DoubleDash,
    DoubleDashDash,
}

/// Where a script's text from `pos` ends: the `<` of its end tag, which the script data
/// states accept only outside the double-escaped states (`<!--` escapes, a `<script` inside
/// the escape escapes doubly, `</script` or `-->` undoes it). `None` when the input ends first.
pub(super) fn script_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let mut state = Script::Data;
    let mut i = pos;
    while i < bytes.len() {
        let byte = bytes[i];
        if state == Script::Data {
            // Only `<` changes this state: jump to the next one.
            let lt = i + memchr::memchr(b'<', &bytes[i..])?;
            if is_end_tag(bytes, lt, b"script") {
                return Some(lt);
            }
            if bytes[lt + 1..].starts_with(b"!--") {
                state = Script::EscapedDashDash;
                i = lt + 4;
            } else {
                i = lt + 1;
            }
            continue;
        }
        let double = matches!(
            state,
            Script::Double | Script::DoubleDash | Script::DoubleDashDash
        );
        match byte {
            b'-' => {
                state = match state {
                    Script::Escaped => Script::EscapedDash,
                    Script::EscapedDash | Script::EscapedDashDash => Script::EscapedDashDash,
                    Script::Double => Script::DoubleDash,
                    _ => Script::DoubleDashDash,
                };
                i += 1;
            }
            b'>' if matches!(state, Script::EscapedDashDash | Script::DoubleDashDash) => {
                state = Script::Data;
                i += 1;
            }
            b'<' if !double => {
                if is_end_tag(bytes, i, b"script") {
                    return Some(i);
                }
                // `</name` of another element, or `<` before no letter, stays escaped;
                // `<script` followed by white space, `/` or `>` escapes doubly.
                let (letters, after) = letters_after(bytes, i + 1);
                state = if letters.eq_ignore_ascii_case(b"script") && ends_name(bytes, after) {
                    i = after + 1;
                    Script::Double
                } else {
                    i = after.max(i + 1);
                    Script::Escaped
                };
            }
            b'<' => {
                // `</script` followed by white space, `/` or `>` leaves the double escape.
                if bytes.get(i + 1) == Some(&b'/') {
                    let (letters, after) = letters_after(bytes, i + 2);
                    state = if letters.eq_ignore_ascii_case(b"script") && ends_name(bytes, after) {
                        i = after + 1;
                        Script::Escaped
                    } else {
                        i = after;
                        Script::Double
                    };
                } else {
                    state = Script::Double;
                    i += 1;
                }
            }
            _ => {
                state = if double {
                    Script::Double
                } else {
                    Script::Escaped
                };
                i += 1;
            }
        }
    }
    None
}

/// The ASCII letters from `at`, and the index after them.
fn letters_after(bytes: &[u8], at: usize) -> (&[u8], usize) {
    let end = bytes[at.min(bytes.len())..]
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .map_or(bytes.len(), |n| at + n);
    (&bytes[at.min(end)..end], end)
}

/// Whether the byte at `at` ends a tag name (white space, `/` or `>`).
fn ends_name(bytes: &[u8], at: usize) -> bool {
    bytes
        .get(at)
        .is_some_and(|&b| is_space(b) || b == b'/' || b == b'>')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_names_are_the_atoms_of_their_text() {
        let names = "a abbr alt article aside b body br button charset class content d data datetime \
                     dd div dl dt em fill figcaption figure footer form h1 h2 h3 h4 h5 h6 head header \
                     height hidden hr href html i id iframe img input itemprop label lang li link \
                     loading main meta name nav noscript ol option p path picture pre property rel role \
                     script section select sizes small source span src srcset strong style sub sup svg \
                     table target tbody td th title tr type ul value width";
        for name in names.split_whitespace() {
            let atom = common(name.as_bytes()).expect(name);
            assert_eq!(atom, LocalName::from(name));
            assert_eq!(&*atom, name);
            assert_eq!(lowered(&name.to_ascii_uppercase()), atom);
        }
        assert_eq!(common(b"DIV"), None);
        assert_eq!(common(b"data-src"), None);
        assert_eq!(&*lowered("Data-Src"), "data-src");
    }

    #[test]
    fn scans_a_tag_with_every_kind_of_value() {
        let html = b"<div a=1 b='2' c=\"3 > 4\" d e = f/>rest";
        let tag = scan_tag(html, 1).expect("a whole tag");
        assert_eq!(&html[tag.name.clone()], b"div");
        let attrs: Vec<(&[u8], &[u8])> = tag
            .attrs
            .iter()
            .map(|(n, v)| (&html[n.clone()], &html[v.clone()]))
            .collect();
        assert_eq!(
            attrs,
            [
                (&b"a"[..], &b"1"[..]),
                (b"b", b"2"),
                (b"c", b"3 > 4"),
                (b"d", b""),
                (b"e", b"f/")
            ]
        );
        assert!(!tag.self_closing);
        assert_eq!(&html[tag.end..], b"rest");
        assert!(scan_tag(b"<br/>", 1).is_some_and(|t| t.self_closing));
        assert!(scan_tag(b"<div a='x", 1).is_none());
    }

    #[test]
    fn finds_where_a_script_ends() {
        fn end(s: &str) -> Option<&str> {
            script_end(s.as_bytes(), 0).map(|at| &s[at..])
        }
        assert_eq!(end("a<b</script>x"), Some("</script>x"));
        assert_eq!(
            end("<!-- <script> </script> --> </SCRIPT >"),
            Some("</SCRIPT >")
        );
        assert_eq!(end("<!-- x </script> y"), Some("</script> y"));
        assert_eq!(end("<!-- <script> x"), None);
        assert_eq!(end("</scriptx></script/>"), Some("</script/>"));
    }

    #[test]
    fn finds_the_end_tag_of_raw_text() {
        let html = b"a</styles></STYLE\n>";
        assert_eq!(appropriate_end_tag(html, 0, b"style"), Some(10));
        assert_eq!(&*lowered("DiV"), "div");
    }
}
