//! CSS selectors over the arena DOM, for `prune`.
//!
//! Servo's `selectors` crate parses and matches (Selectors Level 4: compound and complex
//! selectors, every combinator, attribute operators with the `i`/`s` flags, `:not()`, `:is()`,
//! `:where()`, `:has()`, the `:nth-*()` family, `:first-child`, `:empty`, `:root` ...). This
//! module gives it the DOM: [`DomElement`] is the crate's [`Element`] for an arena node, and
//! [`Html`] says which string types a parsed selector holds. The only non-structural
//! pseudo-classes are `:link` and `:any-link` (an `<a>`, `<area>` or `<link>` with `href`: a
//! page as thresher reads it has no visited links, hover or focus); pseudo-elements match no
//! element and are refused.
//!
//! Matching is per element of the walk's element table ([`Document::nodes`] maps an element
//! index to its DOM node), so the answer is in the element indices every other column uses.
//! Elements below a matching one are not asked (they are inside it anyway), and the blocks
//! inside the matches come from the elements' block ranges with one running count, so a page
//! costs one pass over its elements and one over its blocks besides the matching itself.

use std::fmt;

use cssparser::{BasicParseErrorKind, ParseError, ParseErrorKind, ToCss};
use selectors::attr::{AttrSelectorOperation, CaseSensitivity, NamespaceConstraint};
use selectors::bloom::BloomFilter;
use selectors::context::{
    MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags, QuirksMode,
    SelectorCaches,
};
use selectors::matching::{matches_selector_list, ElementSelectorFlags};
use selectors::parser::{ParseRelative, SelectorParseErrorKind};
use selectors::{OpaqueElement, SelectorList};

use crate::document::Document;
use crate::dom::{Dom, Kind, NodeId, NONE};

#[cfg(test)]
mod tests;

/// Characters a selector may have. A selector is the caller's text (an HTTP request's, in the
/// service), and the crate's parser recurses into `:is(...)` and the like.
pub const MAX_SELECTOR_CHARS: usize = 1000;
/// Depth of nested blocks (`(...)`, `[...]`, functions) a selector may have: cssparser refuses
/// deeper ones, which bounds that recursion.
pub const MAX_NESTING: usize = 32;

/// The selector implementation: HTML documents, strings as the crate needs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Html;

/// An identifier of a selector (a tag, class, id or attribute name, a namespace prefix).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ident(String);

/// An attribute value of a selector (`[lang=en]`'s `en`), or a namespace URL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Value(String);

impl From<&str> for Ident {
    fn from(text: &str) -> Self {
        Ident(text.to_owned())
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Self {
        Value(text.to_owned())
    }
}

impl AsRef<str> for Value {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Ident {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Value {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl ToCss for Ident {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        cssparser::serialize_identifier(&self.0, dest)
    }
}

impl ToCss for Value {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        cssparser::serialize_string(&self.0, dest)
    }
}

/// FNV-1a: the crate keys its Bloom filter of ancestors with these hashes (matching here uses
/// no filter, so they only have to be stable).
fn fnv(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

impl precomputed_hash::PrecomputedHash for Ident {
    fn precomputed_hash(&self) -> u32 {
        fnv(&self.0)
    }
}

impl precomputed_hash::PrecomputedHash for Value {
    fn precomputed_hash(&self) -> u32 {
        fnv(&self.0)
    }
}

/// The non-structural pseudo-classes thresher matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PseudoClass {
    /// `:link` and `:any-link`: every link is unvisited.
    AnyLink,
}

impl ToCss for PseudoClass {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        match self {
            PseudoClass::AnyLink => dest.write_str(":any-link"),
        }
    }
}

impl selectors::parser::NonTSPseudoClass for PseudoClass {
    fn is_active_or_hover(&self) -> bool {
        false
    }

    fn is_user_action_state(&self) -> bool {
        false
    }
}

/// Pseudo-elements: none is accepted (a pseudo-element holds no element to prune).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PseudoElement {}

impl ToCss for PseudoElement {
    fn to_css<W: fmt::Write>(&self, _dest: &mut W) -> fmt::Result {
        match *self {}
    }
}

impl selectors::parser::PseudoElement for PseudoElement {}

impl selectors::SelectorImpl for Html {
    type ExtraMatchingData<'a> = ();
    type AttrValue = Value;
    type Identifier = Ident;
    type LocalName = Ident;
    type NamespaceUrl = Value;
    type NamespacePrefix = Ident;
    type BorrowedNamespaceUrl = str;
    type BorrowedLocalName = str;
    type NonTSPseudoClass = PseudoClass;
    type PseudoElement = PseudoElement;
}

/// The parser's switches: the Level 4 selectors on, the pseudo-classes above.
struct Parser;

impl<'i> selectors::Parser<'i> for Parser {
    type Impl = Html;
    type Error = SelectorParseErrorKind;

    fn parse_is_and_where(&self) -> bool {
        true
    }

    fn parse_has(&self) -> bool {
        true
    }

    fn parse_nth_child_of(&self) -> bool {
        true
    }

    /// A selector inside `:is()` or `:where()` that cannot be read is an error, as it is
    /// elsewhere, not dropped in silence (a typo there would otherwise prune nothing).
    fn allow_forgiving_selectors(&self) -> bool {
        false
    }

    fn parse_non_ts_pseudo_class(
        &self,
        name: &str,
    ) -> Result<PseudoClass, ParseError<SelectorParseErrorKind>> {
        if name.eq_ignore_ascii_case("link") || name.eq_ignore_ascii_case("any-link") {
            Ok(PseudoClass::AnyLink)
        } else {
            Err(ParseError::custom(
                SelectorParseErrorKind::UnsupportedPseudoClassOrElement,
            ))
        }
    }
}

/// A selector `prune` could not read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectorError {
    pub selector: String,
    pub reason: String,
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad CSS selector {:?}: {}", self.selector, self.reason)
    }
}

impl std::error::Error for SelectorError {}

/// Parsed selector lists: an element matches when it matches any selector of any list.
#[derive(Clone, Debug)]
pub struct Selectors {
    lists: Vec<SelectorList<Html>>,
}

/// What went wrong in a parse, in words; `column` is where the parser stopped (from 1).
fn reason(error: &ParseError<SelectorParseErrorKind>, column: u32) -> String {
    let what = match &error.kind {
        ParseErrorKind::Basic(BasicParseErrorKind::EndOfInput) => "it ends too early".to_owned(),
        ParseErrorKind::Basic(BasicParseErrorKind::UnexpectedToken) => "unexpected text".to_owned(),
        ParseErrorKind::Basic(BasicParseErrorKind::TooManyNestedBlocks) => {
            format!("brackets nested deeper than {MAX_NESTING}")
        }
        ParseErrorKind::Basic(other) => other.to_string(),
        ParseErrorKind::Custom(SelectorParseErrorKind::UnsupportedPseudoClassOrElement) => {
            "an unsupported pseudo-class or pseudo-element".to_owned()
        }
        ParseErrorKind::Custom(SelectorParseErrorKind::EmptySelector) => {
            "a selector is missing".to_owned()
        }
        ParseErrorKind::Custom(SelectorParseErrorKind::DanglingCombinator) => {
            "a combinator without a selector after it".to_owned()
        }
        ParseErrorKind::Custom(other) => words(&format!("{other:?}")),
    };
    format!("{what} (near column {column})")
}

/// `NoIdentForPseudo` as "no ident for pseudo": the crate's error names in words.
fn words(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// One comma-separated selector list.
fn parse_list(text: &str) -> Result<SelectorList<Html>, SelectorError> {
    let error = |reason: String| SelectorError {
        selector: text.to_owned(),
        reason,
    };
    if text.chars().count() > MAX_SELECTOR_CHARS {
        return Err(error(format!(
            "longer than {MAX_SELECTOR_CHARS} characters"
        )));
    }
    let mut parser = cssparser::Parser::new(text);
    parser.set_nested_block_limit(MAX_NESTING as u8);
    let parsed = SelectorList::parse(&Parser, &mut parser, ParseRelative::No).and_then(|list| {
        parser.expect_exhausted()?;
        Ok(list)
    });
    parsed.map_err(|e| error(reason(&e, parser.current_source_location().column)))
}

impl Selectors {
    /// Parse every comma-separated selector list of `texts`.
    pub fn parse<S: AsRef<str>>(texts: &[S]) -> Result<Self, SelectorError> {
        let lists = texts
            .iter()
            .map(|text| parse_list(text.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Selectors { lists })
    }

    /// Whether element node `node` of `dom` matches one of the selectors.
    pub fn matches(&self, dom: &Dom, node: NodeId, caches: &mut SelectorCaches) -> bool {
        let mut context = MatchingContext::new(
            MatchingMode::Normal,
            None,
            caches,
            QuirksMode::NoQuirks,
            NeedsSelectorFlags::No,
            MatchingForInvalidation::No,
        );
        let element = DomElement { dom, id: node };
        self.lists
            .iter()
            .any(|list| matches_selector_list(list, element, &mut context))
    }

    /// Per element of `doc`: it or an ancestor matches one of the selectors.
    pub fn inside_matches(&self, dom: &Dom, doc: &Document) -> Vec<bool> {
        let mut caches = SelectorCaches::default();
        let mut inside = Vec::with_capacity(doc.len());
        for (i, &node) in doc.nodes.iter().enumerate() {
            crate::budget::check();
            // Elements are in pre-order: a parent's answer is known before its children's.
            let parent = parent_of(doc, i).is_some_and(|p| inside[p]);
            inside.push(parent || self.matches(dom, node, &mut caches));
        }
        inside
    }

    /// Per block of `doc`: it lies inside an element that matches one of the selectors.
    pub fn pruned_blocks(&self, dom: &Dom, doc: &Document) -> Vec<bool> {
        let blocks = doc.blocks.len();
        // +1 where a matching element's blocks start, -1 where they end; a block is pruned
        // while the running sum is positive.
        let mut edges = vec![0i64; blocks + 1];
        let inside = self.inside_matches(dom, doc);
        for (i, &here) in inside.iter().enumerate() {
            if !here || parent_of(doc, i).is_some_and(|p| inside[p]) {
                continue; // only the outermost match of a subtree counts its range
            }
            let clamp = |index: i64| usize::try_from(index).unwrap_or(0).min(blocks);
            let (first, end) = (clamp(doc.first_blocks[i]), clamp(doc.end_blocks[i]));
            if first < end {
                edges[first] += 1;
                edges[end] -= 1;
            }
        }
        let mut open = 0i64;
        edges[..blocks]
            .iter()
            .map(|edge| {
                open += edge;
                open > 0
            })
            .collect()
    }
}

/// The parent element index of element `i` (elements are in pre-order: a parent comes first).
fn parent_of(doc: &Document, i: usize) -> Option<usize> {
    usize::try_from(doc.parents[i]).ok().filter(|&p| p < i)
}

/// An element of the arena DOM, as the `selectors` crate sees it.
#[derive(Clone, Copy)]
pub struct DomElement<'a> {
    dom: &'a Dom,
    id: NodeId,
}

impl fmt::Debug for DomElement<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}> (node {})", self.dom.tag(self.id), self.id)
    }
}

impl<'a> DomElement<'a> {
    /// Node `id` of `dom` when it is an element.
    pub fn new(dom: &'a Dom, id: NodeId) -> Option<Self> {
        (id != NONE && dom.node(id).kind == Kind::Element).then_some(DomElement { dom, id })
    }

    /// The first element among `id` and the nodes `step` leads to from it.
    fn first_element(&self, mut id: NodeId, step: impl Fn(NodeId) -> NodeId) -> Option<Self> {
        while id != NONE {
            if let Some(element) = Self::new(self.dom, id) {
                return Some(element);
            }
            id = step(id);
        }
        None
    }

    fn attr(&self, name: &str) -> Option<&'a str> {
        self.dom.attr(self.id, name)
    }
}

impl selectors::Element for DomElement<'_> {
    type Impl = Html;

    fn opaque(&self) -> OpaqueElement {
        OpaqueElement::new(self.dom.node(self.id))
    }

    fn parent_element(&self) -> Option<Self> {
        Self::new(self.dom, self.dom.node(self.id).parent)
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        false
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        None
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        let dom = self.dom;
        self.first_element(dom.node(self.id).prev_sibling, |id| {
            dom.node(id).prev_sibling
        })
    }

    fn next_sibling_element(&self) -> Option<Self> {
        let dom = self.dom;
        self.first_element(dom.node(self.id).next_sibling, |id| {
            dom.node(id).next_sibling
        })
    }

    fn first_element_child(&self) -> Option<Self> {
        let dom = self.dom;
        self.first_element(dom.node(self.id).first_child, |id| {
            dom.node(id).next_sibling
        })
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.dom.is_html(self.id)
    }

    fn has_local_name(&self, local_name: &str) -> bool {
        self.dom.tag(self.id) == local_name
    }

    fn has_namespace(&self, namespace: &str) -> bool {
        let node = self.dom.node(self.id);
        &*self.dom.names[node.data as usize].ns == namespace
    }

    fn is_same_type(&self, other: &Self) -> bool {
        let name = |e: &Self| &e.dom.names[e.dom.node(e.id).data as usize];
        name(self) == name(other)
    }

    fn attr_matches(
        &self,
        namespace: &NamespaceConstraint<&Value>,
        local_name: &Ident,
        operation: &AttrSelectorOperation<&Value>,
    ) -> bool {
        // The DOM keeps attributes' local names only: they are all in no namespace here.
        if let NamespaceConstraint::Specific(url) = namespace {
            if !url.0.is_empty() {
                return false;
            }
        }
        self.attr(&local_name.0)
            .is_some_and(|value| operation.eval_str(value))
    }

    fn match_non_ts_pseudo_class(
        &self,
        class: &PseudoClass,
        _context: &mut MatchingContext<Html>,
    ) -> bool {
        match class {
            PseudoClass::AnyLink => self.is_link(),
        }
    }

    fn match_pseudo_element(
        &self,
        element: &PseudoElement,
        _context: &mut MatchingContext<Html>,
    ) -> bool {
        match *element {}
    }

    fn apply_selector_flags(&self, _flags: ElementSelectorFlags) {}

    fn is_link(&self) -> bool {
        self.dom.is_html(self.id)
            && matches!(self.dom.tag(self.id), "a" | "area" | "link")
            && self.attr("href").is_some()
    }

    fn is_html_slot_element(&self) -> bool {
        false
    }

    fn has_id(&self, id: &Ident, case_sensitivity: CaseSensitivity) -> bool {
        self.attr("id")
            .is_some_and(|value| case_sensitivity.eq(value.as_bytes(), id.0.as_bytes()))
    }

    fn has_class(&self, name: &Ident, case_sensitivity: CaseSensitivity) -> bool {
        self.attr("class").is_some_and(|value| {
            value
                .split_ascii_whitespace()
                .any(|token| case_sensitivity.eq(token.as_bytes(), name.0.as_bytes()))
        })
    }

    fn has_custom_state(&self, _name: &Ident) -> bool {
        false
    }

    fn imported_part(&self, _name: &Ident) -> Option<Ident> {
        None
    }

    fn is_part(&self, _name: &Ident) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        let dom = self.dom;
        let mut child = dom.node(self.id).first_child;
        while child != NONE {
            match dom.node(child).kind {
                Kind::Element => return false,
                Kind::Text if !dom.text(child).is_empty() => return false,
                _ => {}
            }
            child = dom.node(child).next_sibling;
        }
        true
    }

    fn is_root(&self) -> bool {
        self.dom.node(self.id).parent == Dom::DOCUMENT
    }

    fn add_element_unique_hashes(&self, _filter: &mut BloomFilter) -> bool {
        false
    }
}
