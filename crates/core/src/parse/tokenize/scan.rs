//! Byte scans that find where the tokenizer's states end a tag or a script, following
//! html5ever's tokenizer state by state on the characters that change its state.

use std::ops::Range;

use html5ever::{local_name, LocalName};

pub(super) fn is_space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | b'\x0c' | b' ')
}

/// The byte ranges of one attribute's name and value (the value without its quotes).
pub(super) type AttrRanges = (Range<usize>, Range<usize>);

/// A tag as scanned: the byte range of its name (its attributes go to the caller's buffer).
pub(super) struct Scanned {
    pub(super) name: Range<usize>,
    pub(super) self_closing: bool,
    /// Just past the closing `>`.
    pub(super) end: usize,
    /// Whether an attribute value holds `&` (a character reference to decode).
    pub(super) amp: bool,
}

/// Scan a tag whose name starts at `name_start`, following html5ever's tag states from
/// the tag name state to the `>` that emits it; `None` when the input ends first.
///
/// `attrs` receives the tag's attributes (it is cleared first): one buffer serves every
/// tag of a page, so a tag costs no allocation of its own.
pub(super) fn scan_tag(
    bytes: &[u8],
    name_start: usize,
    attrs: &mut Vec<AttrRanges>,
) -> Option<Scanned> {
    attrs.clear();
    let mut i = run_until(bytes, name_start, ENDS_NAME).0;
    let mut tag = Scanned {
        name: name_start..i,
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
                i = run_until(bytes, i + 1, ENDS_ATTR_NAME).0;
                let name = name_at..i;
                i = skip_space(bytes, i);
                if *bytes.get(i)? != b'=' {
                    attrs.push((name, i..i));
                    continue;
                }
                i = skip_space(bytes, i + 1);
                let value = match *bytes.get(i)? {
                    quote @ (b'"' | b'\'') => {
                        let body = i + 1;
                        let found = body + memchr::memchr2(quote, b'&', &bytes[body..])?;
                        let close = if bytes[found] == quote {
                            found
                        } else {
                            tag.amp = true;
                            found + 1 + memchr::memchr(quote, &bytes[found + 1..])?
                        };
                        i = close + 1;
                        body..close
                    }
                    b'>' => i..i,
                    _ => {
                        let start = i;
                        let (end, seen) = run_until(bytes, i, ENDS_UNQUOTED);
                        tag.amp |= seen & AMP != 0;
                        i = end;
                        start..i
                    }
                };
                attrs.push((name, value));
            }
        }
    }
}

/// Byte classes of the tag states, as bits of [`CLASSES`]: the bytes that end a tag name,
/// an attribute name or an unquoted attribute value, and `&`.
const ENDS_NAME: u8 = 1;
const ENDS_ATTR_NAME: u8 = 2;
const ENDS_UNQUOTED: u8 = 4;
const AMP: u8 = 8;

/// The class bits of every byte.
static CLASSES: [u8; 256] = {
    let mut classes = [0u8; 256];
    let spaces = [b'\t', b'\n', b'\x0c', b' '];
    let mut k = 0;
    while k < spaces.len() {
        classes[spaces[k] as usize] = ENDS_NAME | ENDS_ATTR_NAME | ENDS_UNQUOTED;
        k += 1;
    }
    classes[b'/' as usize] = ENDS_NAME | ENDS_ATTR_NAME;
    classes[b'>' as usize] = ENDS_NAME | ENDS_ATTR_NAME | ENDS_UNQUOTED;
    classes[b'=' as usize] = ENDS_ATTR_NAME;
    classes[b'&' as usize] = AMP;
    classes
};

/// The first byte from `at` of class `ends` (or the input's end), and the classes of the
/// bytes before it.
fn run_until(bytes: &[u8], mut at: usize, ends: u8) -> (usize, u8) {
    let mut seen = 0;
    while let Some(&byte) = bytes.get(at) {
        let class = CLASSES[byte as usize];
        if class & ends != 0 {
            break;
        }
        seen |= class;
        at += 1;
    }
    (at, seen)
}

/// The first byte from `at` that is not white space (or the input's end).
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&b| is_space(b)) {
        at += 1;
    }
    at
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
pub(super) fn common(name: &[u8]) -> Option<LocalName> {
    Some(match name {
        b"a" => local_name!("a"),
        b"abbr" => local_name!("abbr"),
        b"accept" => local_name!("accept"),
        b"action" => local_name!("action"),
        b"align" => local_name!("align"),
        b"allow" => local_name!("allow"),
        b"allowfullscreen" => local_name!("allowfullscreen"),
        b"alt" => local_name!("alt"),
        b"aria-controls" => local_name!("aria-controls"),
        b"aria-current" => local_name!("aria-current"),
        b"aria-describedby" => local_name!("aria-describedby"),
        b"aria-expanded" => local_name!("aria-expanded"),
        b"aria-hidden" => local_name!("aria-hidden"),
        b"aria-label" => local_name!("aria-label"),
        b"aria-labelledby" => local_name!("aria-labelledby"),
        b"article" => local_name!("article"),
        b"as" => local_name!("as"),
        b"aside" => local_name!("aside"),
        b"async" => local_name!("async"),
        b"audio" => local_name!("audio"),
        b"autocomplete" => local_name!("autocomplete"),
        b"b" => local_name!("b"),
        b"blockquote" => local_name!("blockquote"),
        b"body" => local_name!("body"),
        b"border" => local_name!("border"),
        b"br" => local_name!("br"),
        b"button" => local_name!("button"),
        b"canvas" => local_name!("canvas"),
        b"caption" => local_name!("caption"),
        b"cellpadding" => local_name!("cellpadding"),
        b"cellspacing" => local_name!("cellspacing"),
        b"center" => local_name!("center"),
        b"charset" => local_name!("charset"),
        b"circle" => local_name!("circle"),
        b"cite" => local_name!("cite"),
        b"class" => local_name!("class"),
        b"clip-rule" => local_name!("clip-rule"),
        b"code" => local_name!("code"),
        b"color" => local_name!("color"),
        b"colspan" => local_name!("colspan"),
        b"content" => local_name!("content"),
        b"crossorigin" => local_name!("crossorigin"),
        b"cx" => local_name!("cx"),
        b"cy" => local_name!("cy"),
        b"d" => local_name!("d"),
        b"data" => local_name!("data"),
        b"datetime" => local_name!("datetime"),
        b"dd" => local_name!("dd"),
        b"decoding" => local_name!("decoding"),
        b"defer" => local_name!("defer"),
        b"del" => local_name!("del"),
        b"details" => local_name!("details"),
        b"dir" => local_name!("dir"),
        b"div" => local_name!("div"),
        b"dl" => local_name!("dl"),
        b"dt" => local_name!("dt"),
        b"em" => local_name!("em"),
        b"enctype" => local_name!("enctype"),
        b"figcaption" => local_name!("figcaption"),
        b"figure" => local_name!("figure"),
        b"fill" => local_name!("fill"),
        b"fill-rule" => local_name!("fill-rule"),
        b"font" => local_name!("font"),
        b"footer" => local_name!("footer"),
        b"for" => local_name!("for"),
        b"form" => local_name!("form"),
        b"frameborder" => local_name!("frameborder"),
        b"g" => local_name!("g"),
        b"h1" => local_name!("h1"),
        b"h2" => local_name!("h2"),
        b"h3" => local_name!("h3"),
        b"h4" => local_name!("h4"),
        b"h5" => local_name!("h5"),
        b"h6" => local_name!("h6"),
        b"head" => local_name!("head"),
        b"header" => local_name!("header"),
        b"headers" => local_name!("headers"),
        b"height" => local_name!("height"),
        b"hidden" => local_name!("hidden"),
        b"hr" => local_name!("hr"),
        b"href" => local_name!("href"),
        b"hreflang" => local_name!("hreflang"),
        b"html" => local_name!("html"),
        b"http-equiv" => local_name!("http-equiv"),
        b"i" => local_name!("i"),
        b"id" => local_name!("id"),
        b"iframe" => local_name!("iframe"),
        b"img" => local_name!("img"),
        b"input" => local_name!("input"),
        b"ins" => local_name!("ins"),
        b"integrity" => local_name!("integrity"),
        b"itemprop" => local_name!("itemprop"),
        b"itemscope" => local_name!("itemscope"),
        b"itemtype" => local_name!("itemtype"),
        b"kbd" => local_name!("kbd"),
        b"label" => local_name!("label"),
        b"lang" => local_name!("lang"),
        b"li" => local_name!("li"),
        b"link" => local_name!("link"),
        b"loading" => local_name!("loading"),
        b"main" => local_name!("main"),
        b"mark" => local_name!("mark"),
        b"media" => local_name!("media"),
        b"meta" => local_name!("meta"),
        b"method" => local_name!("method"),
        b"name" => local_name!("name"),
        b"nav" => local_name!("nav"),
        b"noscript" => local_name!("noscript"),
        b"ol" => local_name!("ol"),
        b"onclick" => local_name!("onclick"),
        b"opacity" => local_name!("opacity"),
        b"option" => local_name!("option"),
        b"p" => local_name!("p"),
        b"path" => local_name!("path"),
        b"picture" => local_name!("picture"),
        b"placeholder" => local_name!("placeholder"),
        b"points" => local_name!("points"),
        b"pre" => local_name!("pre"),
        b"property" => local_name!("property"),
        b"q" => local_name!("q"),
        b"r" => local_name!("r"),
        b"rect" => local_name!("rect"),
        b"rel" => local_name!("rel"),
        b"role" => local_name!("role"),
        b"rowspan" => local_name!("rowspan"),
        b"rx" => local_name!("rx"),
        b"ry" => local_name!("ry"),
        b"s" => local_name!("s"),
        b"samp" => local_name!("samp"),
        b"scope" => local_name!("scope"),
        b"script" => local_name!("script"),
        b"section" => local_name!("section"),
        b"select" => local_name!("select"),
        b"size" => local_name!("size"),
        b"sizes" => local_name!("sizes"),
        b"small" => local_name!("small"),
        b"source" => local_name!("source"),
        b"span" => local_name!("span"),
        b"src" => local_name!("src"),
        b"srcset" => local_name!("srcset"),
        b"stroke" => local_name!("stroke"),
        b"stroke-width" => local_name!("stroke-width"),
        b"strong" => local_name!("strong"),
        b"style" => local_name!("style"),
        b"sub" => local_name!("sub"),
        b"summary" => local_name!("summary"),
        b"sup" => local_name!("sup"),
        b"svg" => local_name!("svg"),
        b"symbol" => local_name!("symbol"),
        b"tabindex" => local_name!("tabindex"),
        b"table" => local_name!("table"),
        b"target" => local_name!("target"),
        b"tbody" => local_name!("tbody"),
        b"td" => local_name!("td"),
        b"template" => local_name!("template"),
        b"tfoot" => local_name!("tfoot"),
        b"th" => local_name!("th"),
        b"thead" => local_name!("thead"),
        b"time" => local_name!("time"),
        b"title" => local_name!("title"),
        b"tr" => local_name!("tr"),
        b"transform" => local_name!("transform"),
        b"tt" => local_name!("tt"),
        b"type" => local_name!("type"),
        b"u" => local_name!("u"),
        b"ul" => local_name!("ul"),
        b"use" => local_name!("use"),
        b"valign" => local_name!("valign"),
        b"value" => local_name!("value"),
        b"var" => local_name!("var"),
        b"version" => local_name!("version"),
        b"video" => local_name!("video"),
        b"viewbox" => local_name!("viewbox"),
        b"width" => local_name!("width"),
        b"x" => local_name!("x"),
        b"xmlns" => local_name!("xmlns"),
        b"y" => local_name!("y"),
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
        let names = "a abbr accept action align allow allowfullscreen alt aria-controls aria-current \
                     aria-describedby aria-expanded aria-hidden aria-label aria-labelledby article as \
                     aside async audio autocomplete b blockquote body border br button canvas caption \
                     cellpadding cellspacing center charset circle cite class clip-rule code color \
                     colspan content crossorigin cx cy d data datetime dd decoding defer del details \
                     dir div dl dt em enctype figcaption figure fill fill-rule font footer for form \
                     frameborder g h1 h2 h3 h4 h5 h6 head header headers height hidden hr href \
                     hreflang html http-equiv i id iframe img input ins integrity itemprop itemscope \
                     itemtype kbd label lang li link loading main mark media meta method name nav \
                     noscript ol onclick opacity option p path picture placeholder points pre \
                     property q r rect rel role rowspan rx ry s samp scope script section select size \
                     sizes small source span src srcset stroke stroke-width strong style sub summary \
                     sup svg symbol tabindex table target tbody td template tfoot th thead time title \
                     tr transform tt type u ul use valign value var version video viewbox width x \
                     xmlns y";
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
        let mut buffer = vec![(0..0, 0..0)];
        let tag = scan_tag(html, 1, &mut buffer).expect("a whole tag");
        assert_eq!(&html[tag.name.clone()], b"div");
        let attrs: Vec<(&[u8], &[u8])> = buffer
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
        assert!(scan_tag(b"<br/>", 1, &mut buffer).is_some_and(|t| t.self_closing));
        assert!(
            buffer.is_empty(),
            "the buffer holds only the last tag's attributes"
        );
        assert!(scan_tag(b"<div a='x", 1, &mut buffer).is_none());
    }

    #[test]
    fn byte_classes_are_the_tag_states_delimiters() {
        for byte in 0..=255u8 {
            let class = CLASSES[byte as usize];
            let space = is_space(byte);
            assert_eq!(class & ENDS_NAME != 0, space || matches!(byte, b'/' | b'>'));
            let ends_attr_name = space || matches!(byte, b'/' | b'>' | b'=');
            assert_eq!(class & ENDS_ATTR_NAME != 0, ends_attr_name);
            assert_eq!(class & ENDS_UNQUOTED != 0, space || byte == b'>');
            assert_eq!(class & AMP != 0, byte == b'&');
        }
    }

    #[test]
    fn marks_tags_whose_values_hold_references() {
        let mut buffer = Vec::new();
        let amp = |html: &str, buffer: &mut Vec<AttrRanges>| {
            scan_tag(html.as_bytes(), 1, buffer).map(|tag| tag.amp)
        };
        assert_eq!(amp("<a b='x&amp;y' c=d>", &mut buffer), Some(true));
        assert_eq!(amp("<a b=\"x\" c=d&e>", &mut buffer), Some(true));
        assert_eq!(amp("<a b=\"x\" c=d e&f>", &mut buffer), Some(false));
        assert_eq!(amp("<a b='x&y>", &mut buffer), None);
        assert_eq!(amp("<a b='x' c=\"&\">", &mut buffer), Some(true));
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
