//! Parsing decoded text into a [`Dom`], in time linear in the input, whatever the input.
//!
//! html5ever follows the HTML standard, whose tree-building steps search the
//! stack of open elements: a page nested 100,000 deep makes every start tag
//! cost 100,000 steps. Browsers cap the tree's depth instead (Blink at 512),
//! attaching deeper elements at the cap and keeping their text. [`DepthFilter`]
//! does that between the tokenizer and the tree builder: it learns the depth of
//! the builder's current node from the sink and drops start tags (and their
//! end tags) that would open an element deeper than [`Limits::max_depth`]. The
//! depth is the tree's own, so elements that the standard closes implicitly
//! (`<p>`, `<li>`, `<option>`, `<td>` ...) never count as nesting.
//!
//! The tokenizer checks every new attribute of a tag against the earlier
//! ones, which is quadratic in one tag's attributes; [`cap_attributes`] keeps
//! the first [`Limits::max_attributes`] of each tag before tokenizing.

use crate::hash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts, TreeSink};
use html5ever::LocalName;

use crate::document::{is_block_tag, is_heading_tag};
use crate::dom::{is_void, Dom, NodeId, Sink};

mod tokenize;

/// Bounds that keep parsing linear on hostile pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Attributes kept per start tag; browsers keep all, no real page needs more than a few dozen.
    pub max_attributes: usize,
    /// Depth of the deepest element the tree may hold; deeper start tags are dropped, their text kept.
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_attributes: 256,
            max_depth: 400,
        }
    }
}

/// Parse `html` as a whole HTML document (scripting disabled, so `<noscript>` holds markup).
///
/// A frameset page has no body: its readable content is what it offers browsers without
/// frames, the markup inside `<noframes>`, which the standard reads as raw text. That
/// markup is parsed as the page instead.
pub fn parse(html: &str, limits: Limits) -> Dom {
    let dom = parse_once(html, limits);
    match noframes_markup(&dom) {
        Some(markup) => parse_once(&markup, limits),
        None => dom,
    }
}

/// The `<noframes>` markup of a frameset page (one without a body), when it holds any text.
fn noframes_markup(dom: &Dom) -> Option<String> {
    let root = dom.root_element()?;
    let mut frameset = false;
    let mut child = dom.node(root).first_child;
    while child != crate::dom::NONE {
        match dom.tag(child) {
            "body" => return None,
            "frameset" => frameset = true,
            _ => {}
        }
        child = dom.node(child).next_sibling;
    }
    if !frameset {
        return None;
    }
    let markup: String = dom
        .descendants(Dom::DOCUMENT)
        .filter(|&id| {
            crate::budget::check();
            dom.tag(id) == "noframes"
        })
        .map(|id| dom.text_content(id))
        .collect::<Vec<_>>()
        .join("\n");
    (!markup.trim().is_empty()).then_some(markup)
}

fn parse_once(html: &str, limits: Limits) -> Dom {
    // Every element and every text run but the last starts at a `<` (implied elements aside).
    let markup = memchr::memchr_iter(b'<', html.as_bytes()).count();
    let filter = DepthFilter::new(limits.max_depth, markup, html.len());
    tokenize::run(html, limits.max_attributes, &filter);
    filter.inner.sink.finish()
}

/// [`parse_once`] with html5ever's tokenizer alone: what the fast path must equal.
///
/// A byte-order mark is dropped at the start of the page only. html5ever's `discard_bom`
/// drops one at the start of every `feed`, and a feed returns after each `<meta charset>`
/// and `</script>`, so left on it would drop a U+FEFF that follows one of those too, where
/// the standard (and the fast path) keeps it as text.
#[cfg(test)]
fn parse_once_html5ever(html: &str, limits: Limits) -> Dom {
    use html5ever::tokenizer::{BufferQueue, Tokenizer, TokenizerOpts};
    use html5ever::TokenizerResult;
    let html = html.strip_prefix('\u{feff}').unwrap_or(html);
    let source = cap_attributes(html, limits.max_attributes);
    let options = TokenizerOpts {
        discard_bom: false,
        ..TokenizerOpts::default()
    };
    let tokenizer = Tokenizer::new(DepthFilter::new(limits.max_depth, 0, 0), options);
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(&source));
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    tokenizer.sink.inner.sink.finish()
}

/// Forwards tokens to the tree builder, dropping start tags that would nest too deep.
struct DepthFilter {
    inner: TreeBuilder<NodeId, Sink>,
    max_depth: u32,
    /// Start tags dropped and not yet matched by an end tag, by name.
    dropped: RefCell<HashMap<LocalName, u32>>,
}

impl DepthFilter {
    /// `markup`: the `<`s of the page, which bound the nodes it makes; `text`: the page's
    /// length, which about bounds its text (see [`Sink::with_capacity`]).
    fn new(max_depth: u32, markup: usize, text: usize) -> Self {
        let builder = TreeBuilder::new(
            Sink::with_capacity(markup, text),
            TreeBuilderOpts {
                scripting_enabled: false,
                ..TreeBuilderOpts::default()
            },
        );
        DepthFilter {
            inner: builder,
            max_depth,
            dropped: RefCell::new(HashMap::new()),
        }
    }

    fn too_deep(&self, tag: &Tag) -> bool {
        if is_void(&tag.name) || holds_text_only(&tag.name) {
            return false;
        }
        let depth = self.inner.sink.probe_current(|| {
            self.inner
                .adjusted_current_node_present_but_not_in_html_namespace();
        });
        depth >= self.max_depth
    }

    /// Whether `tag` closes a start tag that was dropped; counts it off if so.
    fn closes_dropped(&self, tag: &Tag) -> bool {
        let mut dropped = self.dropped.borrow_mut();
        if dropped.is_empty() {
            return false;
        }
        match dropped.get_mut(&tag.name) {
            Some(open) if *open > 0 => {
                *open -= 1;
                true
            }
            _ => false,
        }
    }
}

impl DepthFilter {
    /// A dropped block-level tag still separates the words on either side of it.
    fn keep_words_apart(&self, separates: bool, line_number: u64) -> TokenSinkResult<NodeId> {
        if separates {
            self.inner.process_token(
                Token::CharacterTokens(StrTendril::from_slice(" ")),
                line_number,
            )
        } else {
            TokenSinkResult::Continue
        }
    }
}

/// Elements whose content the tokenizer reads as text (raw text, RCDATA, plaintext; with
/// scripting off, `<noscript>` holds markup and is not among them). They
/// are never dropped: they cannot nest, so they add one level at most, and the tree builder
/// must see both their tags to leave its text mode.
fn holds_text_only(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "title"
            | "textarea"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "noscript"
            | "plaintext"
    )
}

/// Tags that end a block of text (block-level elements and line breaks).
fn separates_words(tag: &Tag) -> bool {
    is_block_tag(&tag.name)
        || is_heading_tag(&tag.name)
        || matches!(&*tag.name, "pre" | "textarea" | "br")
}

impl TokenSink for DepthFilter {
    type Handle = NodeId;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<NodeId> {
        // Every token of the page, from either tokenizer, passes here into the tree builder.
        crate::budget::check();
        let Token::TagToken(tag) = token else {
            return self.inner.process_token(token, line_number);
        };
        match tag.kind {
            TagKind::StartTag if self.too_deep(&tag) => {
                let separates = separates_words(&tag);
                *self.dropped.borrow_mut().entry(tag.name).or_insert(0) += 1;
                self.keep_words_apart(separates, line_number)
            }
            TagKind::StartTag => self.inner.process_token(Token::TagToken(tag), line_number),
            TagKind::EndTag if self.closes_dropped(&tag) => {
                self.keep_words_apart(separates_words(&tag), line_number)
            }
            TagKind::EndTag => self.inner.process_token(Token::TagToken(tag), line_number),
        }
    }

    fn end(&self) {
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// `html` with every start tag cut to its first `max_attributes` attributes.
///
/// Tags are read as the tokenizer reads them (names, `=`, quoted and unquoted
/// values, the closing `>`), each once, so the pass is linear. A tag that runs
/// to the end of the input without `>` is closed after its kept attributes.
/// What only looks like a tag is left alone: a name of other characters than
/// letters, digits, `-` and `:` (script text such as `i<n;`), or a `<` before
/// the closing `>` outside quoted values (a comparison in a script, followed by
/// the script's own end tag).
pub fn cap_attributes(html: &str, max_attributes: usize) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'<', &bytes[at..]) {
        crate::budget::check();
        let start = at + found;
        if !bytes.get(start + 1).is_some_and(u8::is_ascii_alphabetic) {
            at = start + 1;
            continue;
        }
        let tag = scan_tag(bytes, start + 1, max_attributes);
        if let Some(cut) = tag.cut {
            let buffer = out.get_or_insert_with(|| String::with_capacity(html.len()));
            buffer.push_str(&html[copied..cut]);
            buffer.push('>');
            copied = tag.end;
        }
        if tag.end >= bytes.len() {
            break;
        }
        at = tag.end;
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut buffer) => {
            buffer.push_str(&html[copied..]);
            Cow::Owned(buffer)
        }
    }
}

/// Where scanning goes on after a start tag (just past its `>`, at the `<` that shows it
/// was no tag, or the input's end) and, when it has more than the allowed attributes,
/// where its kept part ends.
struct ScannedTag {
    end: usize,
    cut: Option<usize>,
}

fn is_tag_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r')
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'-' || byte == b':'
}

fn scan_tag(bytes: &[u8], name_start: usize, max_attributes: usize) -> ScannedTag {
    let len = bytes.len();
    let mut i = name_start;
    while i < len && is_name_byte(bytes[i]) {
        i += 1;
    }
    if i < len && !is_tag_space(bytes[i]) && !matches!(bytes[i], b'/' | b'>') {
        return ScannedTag { end: i, cut: None };
    }
    let mut count = 0;
    let mut kept_end = None;
    let finish = |end: usize, count: usize, kept_end: Option<usize>| ScannedTag {
        end,
        cut: if count > max_attributes {
            kept_end
        } else {
            None
        },
    };
    loop {
        while i < len && (is_tag_space(bytes[i]) || bytes[i] == b'/') {
            i += 1;
        }
        if i >= len {
            return finish(len, count, kept_end);
        }
        match bytes[i] {
            b'>' => return finish(i + 1, count, kept_end),
            b'<' => return ScannedTag { end: i, cut: None },
            _ => {}
        }
        // An attribute name (its first character may be "="), then an optional value.
        i += 1;
        while i < len && !is_tag_space(bytes[i]) && !matches!(bytes[i], b'/' | b'>' | b'=' | b'<') {
            i += 1;
        }
        while i < len && is_tag_space(bytes[i]) {
            i += 1;
        }
        if i < len && bytes[i] == b'=' {
            i = skip_value(bytes, i + 1);
        }
        count += 1;
        if count == max_attributes.max(1) {
            kept_end = Some(i);
        }
    }
}

/// The end of an attribute value that starts at or after `i` (past the `=`).
fn skip_value(bytes: &[u8], mut i: usize) -> usize {
    let len = bytes.len();
    while i < len && is_tag_space(bytes[i]) {
        i += 1;
    }
    if i >= len {
        return len;
    }
    let quote = bytes[i];
    if quote == b'"' || quote == b'\'' {
        return memchr::memchr(quote, &bytes[i + 1..]).map_or(len, |q| i + 1 + q + 1);
    }
    while i < len && !is_tag_space(bytes[i]) && bytes[i] != b'>' && bytes[i] != b'<' {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::Kind;

    fn max_depth(dom: &Dom) -> u32 {
        dom.nodes.iter().map(|n| n.depth).max().unwrap_or(0)
    }

    fn all_text(dom: &Dom) -> String {
        dom.text_content(Dom::DOCUMENT)
    }

    #[test]
    fn builds_the_standard_tree() {
        let dom = parse("<p>one<p>two<table><td>cell</table>", Limits::default());
        let tags: Vec<&str> = (0..dom.nodes.len() as u32)
            .filter(|&id| dom.node(id).kind == Kind::Element)
            .map(|id| dom.tag(id))
            .collect();
        assert_eq!(
            tags,
            ["html", "head", "body", "p", "p", "table", "tbody", "tr", "td"]
        );
        assert_eq!(all_text(&dom), "onetwocell");
    }

    #[test]
    fn noscript_holds_markup_because_scripting_is_off() {
        let dom = parse("<noscript><p>shown</p></noscript>", Limits::default());
        let p = (0..dom.nodes.len() as u32).find(|&id| dom.tag(id) == "p");
        assert!(p.is_some());
    }

    #[test]
    fn the_depth_cap_bounds_the_tree_and_keeps_the_text() {
        let html = "<div>".repeat(100_000) + "deep" + &"</div>".repeat(100_000) + "<p>after</p>";
        let dom = parse(&html, Limits::default());
        assert!(max_depth(&dom) <= Limits::default().max_depth + 1);
        // The dropped block tags leave white space, never a word of their own.
        assert_eq!(
            all_text(&dom).split_whitespace().collect::<Vec<_>>(),
            ["deep", "after"]
        );
    }

    #[test]
    fn implicitly_closed_elements_do_not_nest() {
        let html = "<ul>".to_owned() + &"<li>x".repeat(5_000);
        let dom = parse(
            &html,
            Limits {
                max_depth: 10,
                ..Limits::default()
            },
        );
        let items = dom
            .nodes
            .iter()
            .enumerate()
            .filter(|(id, _)| dom.tag(*id as u32) == "li")
            .count();
        assert_eq!(items, 5_000);
        assert!(max_depth(&dom) <= 5);
    }

    #[test]
    fn attribute_floods_keep_the_first_attributes() {
        let flood: Vec<String> = (0..1000).map(|i| format!("a{i}=\"{i}\"")).collect();
        let html = format!("<div {}>text</div>", flood.join(" "));
        let capped = cap_attributes(&html, 3);
        assert_eq!(capped, "<div a0=\"0\" a1=\"1\" a2=\"2\">text</div>");
    }

    #[test]
    fn few_attributes_and_script_comparisons_are_left_alone() {
        let html = "<a href=x title='a > b'>t</a><script>if (i<n) { x y z w }</script>";
        assert!(matches!(cap_attributes(html, 2), Cow::Borrowed(_)));
        let words = "w ".repeat(50);
        let script = format!("<script>a<b {words}</script>");
        assert!(matches!(cap_attributes(&script, 3), Cow::Borrowed(_)));
    }

    #[test]
    fn a_tag_without_an_end_is_closed_after_its_kept_attributes() {
        assert_eq!(
            cap_attributes("<p>x</p><div a b c d e", 2),
            "<p>x</p><div a b >"
        );
    }

    #[test]
    fn a_frameset_page_is_read_from_its_noframes_markup() {
        let dom = parse(
            "<frameset><noframes><body><p>text</p></noframes></frameset>",
            Limits::default(),
        );
        assert_eq!(all_text(&dom), "text");
        assert!((0..dom.nodes.len() as u32).any(|id| dom.tag(id) == "p"));
    }

    #[test]
    fn dropped_block_tags_keep_words_apart() {
        let html = "<div>".repeat(20) + "one<p>two</p>three";
        let dom = parse(
            &html,
            Limits {
                max_depth: 5,
                ..Limits::default()
            },
        );
        assert_eq!(
            all_text(&dom).split_whitespace().collect::<Vec<_>>(),
            ["one", "two", "three"]
        );
    }
}
