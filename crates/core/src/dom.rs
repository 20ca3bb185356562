//! A compact arena DOM and the `TreeSink` that html5ever's tree builder writes into.
//!
//! Nodes live in one vector and refer to each other by index, so building a
//! page of a million elements is a million pushes, not a million allocations,
//! and every later pass can follow the links without recursion. The sink also
//! keeps the depth of the tree builder's insertion point, which the depth
//! filter (`parse.rs`) reads to keep the builder's stack of open elements short.

use crate::hash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use compact_str::CompactString;
use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{ns, Attribute, LocalName, QualName};

/// Index of a node in [`Dom::nodes`].
pub type NodeId = u32;
/// The absent link: no parent, child or sibling.
pub const NONE: NodeId = u32::MAX;

/// What a node is. `data` in [`Node`] indexes the element or text tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The document, or a template's content fragment.
    Document,
    Element,
    Text,
    /// Comments, doctypes and processing instructions: never page text.
    Other,
}

/// One node's links. Links are [`NONE`] where absent.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub kind: Kind,
    /// Index into [`Dom::names`]/[`Dom::attrs`] for elements, into [`Dom::texts`] for text.
    pub data: u32,
    pub parent: NodeId,
    pub first_child: NodeId,
    pub last_child: NodeId,
    pub prev_sibling: NodeId,
    pub next_sibling: NodeId,
    /// Depth below the document when the node was inserted (the document is 0).
    pub depth: u32,
}

impl Node {
    fn new(kind: Kind, data: u32) -> Self {
        Node {
            kind,
            data,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            prev_sibling: NONE,
            next_sibling: NONE,
            depth: 0,
        }
    }
}

/// A parsed page.
#[derive(Debug, Default)]
pub struct Dom {
    pub nodes: Vec<Node>,
    pub names: Vec<QualName>,
    pub attrs: Attributes,
    pub texts: Texts,
}

/// The attributes of every element, indexed by the element's `data`.
///
/// The elements' attributes are written end to end into chunks of [`ATTRIBUTE_CHUNK`]
/// attributes (an element's all in one chunk, which is made larger for an element that
/// needs more), so an element costs no allocation of its own and no chunk is ever copied
/// to grow: a page's attributes are not known before the parse, and a table that doubled
/// would copy itself whole in one step of the tree builder (see `Sink::with_capacity`).
/// The few attributes an element gains after others were written (`<html>` and `<body>`
/// tags met again take the attributes the first one lacked) move its list to one of its own.
#[derive(Debug, Default)]
pub struct Attributes {
    /// The elements' attributes end to end; no chunk grows past the room it was made with.
    chunks: Vec<Vec<Attr>>,
    /// Each element's place.
    spans: Vec<AttrSpan>,
    /// The attribute lists that grew after others were written.
    grown: Vec<Vec<Attr>>,
}

/// Attributes per chunk of [`Attributes`].
pub const ATTRIBUTE_CHUNK: usize = 4096;

/// Where one element's attributes are: `chunks[chunk][start..end]`, `grown[start]` when
/// `chunk` is [`GROWN_CHUNK`], none when it is [`NO_CHUNK`].
#[derive(Clone, Copy, Debug)]
struct AttrSpan {
    chunk: u32,
    start: u32,
    end: u32,
}

const GROWN_CHUNK: u32 = u32::MAX;
const NO_CHUNK: u32 = u32::MAX - 1;

impl Attributes {
    /// Room for `elements` elements.
    fn with_capacity(elements: usize) -> Self {
        Attributes {
            chunks: Vec::new(),
            spans: Vec::with_capacity(elements),
            grown: Vec::new(),
        }
    }

    /// How many elements there are.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The attributes of element `index`.
    #[inline]
    pub fn get(&self, index: usize) -> &[Attr] {
        let AttrSpan { chunk, start, end } = self.spans[index];
        match chunk {
            NO_CHUNK => &[],
            GROWN_CHUNK => &self.grown[start as usize],
            _ => &self.chunks[chunk as usize][start as usize..end as usize],
        }
    }

    /// Add an element with `attrs`; returns its index.
    fn push(&mut self, attrs: impl IntoIterator<Item = Attr, IntoIter: ExactSizeIterator>) -> u32 {
        let index = u32::try_from(self.spans.len()).expect("more elements than a page can hold");
        let attrs = attrs.into_iter();
        let count = attrs.len();
        if count == 0 {
            self.spans.push(AttrSpan {
                chunk: NO_CHUNK,
                start: 0,
                end: 0,
            });
            return index;
        }
        let room = self
            .chunks
            .last()
            .map_or(0, |chunk| chunk.capacity() - chunk.len());
        if room < count {
            self.chunks
                .push(Vec::with_capacity(count.max(ATTRIBUTE_CHUNK)));
        }
        let chunk = self.chunks.len() - 1;
        let table = &mut self.chunks[chunk];
        let start = table.len();
        table.extend(attrs);
        let span = AttrSpan {
            chunk: u32::try_from(chunk).expect("more attributes than a page can hold"),
            start: u32::try_from(start).expect("a chunk holds fewer than 2^32 attributes"),
            end: u32::try_from(table.len()).expect("a chunk holds fewer than 2^32 attributes"),
        };
        self.spans.push(span);
        index
    }

    /// Add `attr` to the attributes of element `index`.
    fn append(&mut self, index: usize, attr: Attr) {
        let AttrSpan { chunk, start, end } = self.spans[index];
        if chunk == GROWN_CHUNK {
            self.grown[start as usize].push(attr);
            return;
        }
        // In place when the element's attributes end its chunk, the last, which has room.
        let last = self.chunks.len().wrapping_sub(1);
        if chunk as usize == last {
            let table = &mut self.chunks[last];
            if end as usize == table.len() && table.len() < table.capacity() {
                table.push(attr);
                self.spans[index].end = end + 1;
                return;
            }
        }
        let mut own = self.get(index).to_vec();
        own.push(attr);
        let at = u32::try_from(self.grown.len()).expect("fewer grown lists than elements");
        self.spans[index] = AttrSpan {
            chunk: GROWN_CHUNK,
            start: at,
            end: 0,
        };
        self.grown.push(own);
    }
}

/// The text of every text node, indexed by the node's `data`.
///
/// Texts are written end to end into one string, so a text node costs no allocation of its
/// own. The tree builder may add text to a node after others were written (text merged into
/// its previous sibling, say after a comment between the two): that text moves to a string
/// of its own, which grows in place from then on, so no text is ever copied twice over.
#[derive(Debug, Default)]
pub struct Texts {
    /// The texts written end to end.
    arena: String,
    /// Each text's place: a range of `arena`, or its string in `grown`.
    spans: Vec<TextSpan>,
    /// The texts that grew after others were written.
    grown: Vec<String>,
}

/// Where one text is: `arena[start..end]`, or `grown[end]` when `start` is [`GROWN`].
#[derive(Clone, Copy, Debug)]
struct TextSpan {
    start: usize,
    end: usize,
}

/// The `start` of a [`TextSpan`] whose text is in [`Texts::grown`].
const GROWN: usize = usize::MAX;

impl Texts {
    /// Room for `count` texts of `bytes` bytes in all.
    fn with_capacity(count: usize, bytes: usize) -> Self {
        Texts {
            arena: String::with_capacity(bytes),
            spans: Vec::with_capacity(count),
            grown: Vec::new(),
        }
    }

    /// How many texts there are.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Text `index`.
    #[inline]
    pub fn get(&self, index: usize) -> &str {
        let TextSpan { start, end } = self.spans[index];
        if start == GROWN {
            &self.grown[end]
        } else {
            &self.arena[start..end]
        }
    }

    /// Add `text`; returns its index.
    fn push(&mut self, text: &str) -> u32 {
        let index = u32::try_from(self.spans.len()).expect("more texts than a page can hold");
        let start = self.arena.len();
        self.arena.push_str(text);
        self.spans.push(TextSpan {
            start,
            end: self.arena.len(),
        });
        index
    }

    /// Add `text` to the end of text `index`.
    fn append(&mut self, index: usize, text: &str) {
        let TextSpan { start, end } = self.spans[index];
        if start == GROWN {
            self.grown[end].push_str(text);
        } else if end == self.arena.len() {
            self.arena.push_str(text);
            self.spans[index].end = self.arena.len();
        } else {
            let mut own = String::with_capacity(end - start + text.len());
            own.push_str(&self.arena[start..end]);
            own.push_str(text);
            self.spans[index] = TextSpan {
                start: GROWN,
                end: self.grown.len(),
            };
            self.grown.push(own);
        }
    }
}

/// One attribute: its local name (namespaces of foreign attributes are not kept) and value.
///
/// The value is a [`CompactString`]: most values (classes, ids, short names) fit in its
/// 24 bytes, which spares an allocation per attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    pub name: LocalName,
    pub value: CompactString,
}

impl Dom {
    /// The document node.
    pub const DOCUMENT: NodeId = 0;

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The local name of element `id` (`""` for other nodes).
    pub fn tag(&self, id: NodeId) -> &str {
        let node = self.node(id);
        if node.kind == Kind::Element {
            &self.names[node.data as usize].local
        } else {
            ""
        }
    }

    /// The local name of element `id` as its atom (None for other nodes).
    pub fn local_name(&self, id: NodeId) -> Option<&LocalName> {
        let node = self.node(id);
        (node.kind == Kind::Element).then(|| &self.names[node.data as usize].local)
    }

    /// Whether element `id` is in the HTML namespace.
    pub fn is_html(&self, id: NodeId) -> bool {
        let node = self.node(id);
        node.kind == Kind::Element && self.names[node.data as usize].ns == ns!(html)
    }

    /// The attributes of element `id` (empty for other nodes).
    pub fn attributes(&self, id: NodeId) -> &[Attr] {
        let node = self.node(id);
        if node.kind == Kind::Element {
            self.attrs.get(node.data as usize)
        } else {
            &[]
        }
    }

    /// The value of attribute `name` of element `id`.
    pub fn attr(&self, id: NodeId, name: &str) -> Option<&str> {
        attr_value(self.attributes(id), name)
    }

    /// The text of a text node (`""` for other nodes).
    pub fn text(&self, id: NodeId) -> &str {
        let node = self.node(id);
        if node.kind == Kind::Text {
            self.texts.get(node.data as usize)
        } else {
            ""
        }
    }

    /// The document's root element (`<html>`), if the parse produced one.
    pub fn root_element(&self) -> Option<NodeId> {
        let mut child = self.node(Self::DOCUMENT).first_child;
        while child != NONE {
            if self.node(child).kind == Kind::Element {
                return Some(child);
            }
            child = self.node(child).next_sibling;
        }
        None
    }

    /// Node `id` and its descendants in document order, without recursion.
    pub fn descendants(&self, id: NodeId) -> Descendants<'_> {
        Descendants {
            dom: self,
            root: id,
            next: id,
        }
    }

    /// The concatenated text of the text nodes below `id`.
    pub fn text_content(&self, id: NodeId) -> String {
        let mut out = String::new();
        for node in self.descendants(id) {
            out.push_str(self.text(node));
        }
        out
    }
}

/// Pre-order iterator over a subtree; see [`Dom::descendants`].
pub struct Descendants<'a> {
    dom: &'a Dom,
    root: NodeId,
    next: NodeId,
}

impl Iterator for Descendants<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        let current = self.next;
        if current == NONE {
            return None;
        }
        let node = self.dom.node(current);
        self.next = if node.first_child == NONE {
            self.after(current)
        } else {
            node.first_child
        };
        Some(current)
    }
}

impl Descendants<'_> {
    /// The node after `id`'s subtree, staying inside the root's subtree.
    fn after(&self, mut id: NodeId) -> NodeId {
        while id != self.root {
            let node = self.dom.node(id);
            if node.next_sibling != NONE {
                return node.next_sibling;
            }
            id = node.parent;
        }
        NONE
    }
}

impl From<Attribute> for Attr {
    fn from(attr: Attribute) -> Self {
        Attr {
            name: attr.name.local,
            value: CompactString::from(&*attr.value),
        }
    }
}

/// The value of attribute `name` among `attrs` (an element's attributes, or the ones a
/// document holds of them).
pub fn attr_value<'a>(attrs: &'a [Attr], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|a| &*a.name == name)
        .map(|a| a.value.as_str())
}

/// html5ever's void elements: inserted and never pushed on the stack of open elements.
pub fn is_void(tag: &str) -> bool {
    matches!(
        tag,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "image"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// The tree builder's sink. Interior mutability because html5ever's sink API takes `&self`.
pub struct Sink {
    dom: RefCell<Dom>,
    templates: RefCell<HashMap<NodeId, NodeId>>,
    /// The element whose name the tree builder asked for last (see [`Sink::probe_current`]).
    named: Cell<NodeId>,
}

impl Default for Sink {
    fn default() -> Self {
        Sink::with_capacity(0, 0)
    }
}

impl Sink {
    /// A sink whose tables have room for `markup` start tags and as many text runs, of
    /// `text` bytes in all (a page's text is at most about as long as the page).
    ///
    /// A page's tables grow to hundreds of megabytes; growing one by doubling copies it
    /// whole in a single step of the tree builder, which then takes long enough to delay a
    /// stop of the time budget. Room that is never written costs address space, not memory.
    pub fn with_capacity(markup: usize, text: usize) -> Self {
        let mut dom = Dom {
            nodes: Vec::with_capacity(2 * markup + 1),
            names: Vec::with_capacity(markup),
            attrs: Attributes::with_capacity(markup),
            texts: Texts::with_capacity(markup + 1, text),
        };
        dom.nodes.push(Node::new(Kind::Document, 0));
        Sink {
            dom: RefCell::new(dom),
            templates: RefCell::new(HashMap::new()),
            named: Cell::new(NONE),
        }
    }

    /// The depth of the element `ask` makes the tree builder name, or 0 when it names none.
    ///
    /// The tree builder reads element names through [`TreeSink::elem_name`]; asking it
    /// whether its current node is foreign content makes it name that node, which is how
    /// the depth filter learns where the next element would go without a copy of the
    /// builder's stack of open elements.
    pub fn probe_current(&self, ask: impl FnOnce()) -> u32 {
        self.named.set(NONE);
        ask();
        let named = self.named.get();
        if named == NONE {
            0
        } else {
            self.dom.borrow().node(named).depth
        }
    }

    fn add(&self, kind: Kind, data: u32) -> NodeId {
        let mut dom = self.dom.borrow_mut();
        let id = NodeId::try_from(dom.nodes.len()).expect("more nodes than a page can hold");
        dom.nodes.push(Node::new(kind, data));
        id
    }

    fn new_other(&self) -> NodeId {
        self.add(Kind::Other, 0)
    }

    fn new_text(dom: &mut Dom, text: &str) -> NodeId {
        let data = dom.texts.push(text);
        let id = dom.nodes.len() as NodeId;
        dom.nodes.push(Node::new(Kind::Text, data));
        id
    }

    /// The text node `id` if it is one, to merge adjacent text into.
    fn text_node(dom: &Dom, id: NodeId) -> Option<u32> {
        (id != NONE && dom.node(id).kind == Kind::Text).then(|| dom.node(id).data)
    }
}

fn detach(dom: &mut Dom, id: NodeId) {
    let Node {
        parent,
        prev_sibling: prev,
        next_sibling: next,
        ..
    } = *dom.node(id);
    if parent == NONE {
        return;
    }
    if prev == NONE {
        dom.nodes[parent as usize].first_child = next;
    } else {
        dom.nodes[prev as usize].next_sibling = next;
    }
    if next == NONE {
        dom.nodes[parent as usize].last_child = prev;
    } else {
        dom.nodes[next as usize].prev_sibling = prev;
    }
    let node = &mut dom.nodes[id as usize];
    node.parent = NONE;
    node.prev_sibling = NONE;
    node.next_sibling = NONE;
}

/// Link `id` as `parent`'s child, before `before` (or last when `before` is [`NONE`]).
fn link(dom: &mut Dom, parent: NodeId, id: NodeId, before: NodeId) {
    detach(dom, id);
    let prev = if before == NONE {
        dom.node(parent).last_child
    } else {
        dom.node(before).prev_sibling
    };
    let depth = dom.node(parent).depth + 1;
    {
        let node = &mut dom.nodes[id as usize];
        node.parent = parent;
        node.prev_sibling = prev;
        node.next_sibling = before;
        node.depth = depth;
    }
    if prev == NONE {
        dom.nodes[parent as usize].first_child = id;
    } else {
        dom.nodes[prev as usize].next_sibling = id;
    }
    if before == NONE {
        dom.nodes[parent as usize].last_child = id;
    } else {
        dom.nodes[before as usize].prev_sibling = id;
    }
}

impl Sink {
    fn insert(&self, parent: NodeId, before: NodeId, child: NodeOrText<NodeId>) {
        let mut dom = self.dom.borrow_mut();
        match child {
            NodeOrText::AppendNode(id) => {
                link(&mut dom, parent, id, before);
            }
            NodeOrText::AppendText(text) => {
                let neighbour = if before == NONE {
                    dom.node(parent).last_child
                } else {
                    dom.node(before).prev_sibling
                };
                if let Some(data) = Self::text_node(&dom, neighbour) {
                    dom.texts.append(data as usize, &text);
                } else {
                    let id = Self::new_text(&mut dom, &text);
                    link(&mut dom, parent, id, before);
                }
            }
        }
    }
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = Dom;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Dom {
        self.dom.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        Dom::DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        self.named.set(*target);
        Ref::map(self.dom.borrow(), |dom| {
            let node = dom.node(*target);
            assert!(node.kind == Kind::Element, "not an element");
            &dom.names[node.data as usize]
        })
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        _flags: ElementFlags,
    ) -> NodeId {
        let data = {
            let mut dom = self.dom.borrow_mut();
            let data = dom.names.len() as u32;
            dom.names.push(name);
            dom.attrs.push(attrs.into_iter().map(Attr::from));
            data
        };
        self.add(Kind::Element, data)
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.new_other()
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.new_other()
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.insert(*parent, NONE, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self.dom.borrow().node(*element).parent != NONE;
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        _name: StrTendril,
        _public_id: StrTendril,
        _system_id: StrTendril,
    ) {
        let id = self.new_other();
        self.insert(Dom::DOCUMENT, NONE, NodeOrText::AppendNode(id));
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        if let Some(&fragment) = self.templates.borrow().get(target) {
            return fragment;
        }
        let fragment = self.add(Kind::Document, 0);
        {
            let mut dom = self.dom.borrow_mut();
            let depth = dom.node(*target).depth + 1;
            dom.nodes[fragment as usize].depth = depth;
        }
        self.templates.borrow_mut().insert(*target, fragment);
        fragment
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        let parent = self.dom.borrow().node(*sibling).parent;
        if parent != NONE {
            self.insert(parent, *sibling, new_node);
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        let mut dom = self.dom.borrow_mut();
        let data = dom.node(*target).data as usize;
        for attr in attrs {
            if !dom
                .attrs
                .get(data)
                .iter()
                .any(|a| a.name == attr.name.local)
            {
                dom.attrs.append(data, Attr::from(attr));
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        detach(&mut self.dom.borrow_mut(), *target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut dom = self.dom.borrow_mut();
        let mut child = dom.node(*node).first_child;
        while child != NONE {
            let next = dom.node(child).next_sibling;
            link(&mut dom, *new_parent, child, NONE);
            child = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_grow_in_the_arena_or_on_their_own() {
        let mut texts = Texts::with_capacity(0, 0);
        let a = texts.push("one");
        texts.append(a as usize, " two");
        let b = texts.push("three");
        // `a` is no longer the last text: it moves to a string of its own.
        texts.append(a as usize, " four");
        texts.append(a as usize, " five");
        texts.append(b as usize, "!");
        let c = texts.push("");
        assert_eq!(texts.len(), 3);
        assert_eq!(texts.get(a as usize), "one two four five");
        assert_eq!(texts.get(b as usize), "three!");
        assert_eq!(texts.get(c as usize), "");
        assert_eq!(texts.arena, "one twothree!");
    }

    #[test]
    fn text_merged_around_other_nodes_reads_whole() {
        // The text fostered out of a table goes before it, one node that grows while the
        // cells' own texts are written (a comment, a node itself, keeps texts apart).
        let dom = crate::parse::parse(
            "<p>a<!--x-->b</p><table><tr><td>c</td>d<td>e</td>f</tr></table>",
            crate::parse::Limits::default(),
        );
        let texts: Vec<&str> = dom
            .descendants(Dom::DOCUMENT)
            .filter(|&id| dom.node(id).kind == Kind::Text)
            .map(|id| dom.text(id))
            .collect();
        assert_eq!(texts, ["a", "b", "df", "c", "e"]);
        assert_eq!(dom.texts.grown, ["df"]);
    }

    fn names_and_values(attrs: &[Attr]) -> Vec<(&str, &str)> {
        attrs.iter().map(|a| (&*a.name, a.value.as_str())).collect()
    }

    #[test]
    fn attributes_grow_in_the_table_or_on_their_own() {
        let attr = |name: &str, value: &str| Attr {
            name: LocalName::from(name),
            value: value.into(),
        };
        let mut attrs = Attributes::with_capacity(0);
        let a = attrs.push([attr("id", "x")]) as usize;
        attrs.append(a, attr("class", "c"));
        let b = attrs.push([]) as usize;
        let c = attrs.push([attr("href", &"long/".repeat(20))]) as usize;
        attrs.append(a, attr("lang", "en"));
        attrs.append(b, attr("title", "t"));
        assert_eq!(attrs.len(), 3);
        assert_eq!(
            names_and_values(attrs.get(a)),
            [("id", "x"), ("class", "c"), ("lang", "en")]
        );
        assert_eq!(names_and_values(attrs.get(b)), [("title", "t")]);
        assert_eq!(attrs.get(c)[0].value, "long/".repeat(20));
        // `a` grew after `c` was written, `b` (which had none) after `a`: both moved.
        assert_eq!(attrs.grown.len(), 2);
        assert_eq!(attrs.chunks.len(), 1);
    }

    #[test]
    fn attribute_chunks_never_grow() {
        let attr = |i: usize| Attr {
            name: LocalName::from("id"),
            value: i.to_string().into(),
        };
        let mut attrs = Attributes::with_capacity(0);
        let mut elements = Vec::new();
        for i in 0..3 * ATTRIBUTE_CHUNK / 7 {
            elements.push(attrs.push((0..7).map(|k| attr(7 * i + k))));
        }
        let wide = attrs.push((0..2 * ATTRIBUTE_CHUNK).map(attr));
        let after = attrs.push([attr(1)]);
        for chunk in &attrs.chunks {
            assert!(chunk.len() <= chunk.capacity());
            assert!(chunk.capacity() == ATTRIBUTE_CHUNK || chunk.capacity() == 2 * ATTRIBUTE_CHUNK);
        }
        for (i, &element) in elements.iter().enumerate() {
            let values: Vec<&str> = attrs
                .get(element as usize)
                .iter()
                .map(|a| a.value.as_str())
                .collect();
            let expected: Vec<String> = (0..7).map(|k| (7 * i + k).to_string()).collect();
            assert_eq!(values, expected);
        }
        assert_eq!(attrs.get(wide as usize).len(), 2 * ATTRIBUTE_CHUNK);
        assert_eq!(attrs.get(after as usize)[0].value, "1");
    }

    #[test]
    fn a_body_met_again_adds_the_attributes_it_lacked() {
        let dom = crate::parse::parse(
            "<body class=a><p id=p>x</p><body class=b lang=en data-x=1>",
            crate::parse::Limits::default(),
        );
        let find = |tag: &str| {
            (0..dom.nodes.len() as NodeId)
                .find(|&id| dom.tag(id) == tag)
                .expect(tag)
        };
        assert_eq!(
            names_and_values(dom.attributes(find("body"))),
            [("class", "a"), ("lang", "en"), ("data-x", "1")]
        );
        assert_eq!(names_and_values(dom.attributes(find("p"))), [("id", "p")]);
        assert_eq!(dom.attr(find("body"), "lang"), Some("en"));
    }
}
