//! The document model: one walk over the DOM into an element table and blocks.
//!
//! Elements are listed in document pre-order, so a parent's index is always
//! smaller than its children's. Blocks are segmented as jusText does: every
//! block-level element and every run of two or more `<br>` ends the current
//! block and starts a new one. Each block knows the element that delimits it
//! (its innermost open block-level element); each element knows the range of
//! blocks its subtree holds. The walk follows the tree's links, never the
//! call stack, so depth costs nothing.

use crate::dom::{Attr, Dom, Kind, NodeId, NONE};
use crate::hidden::is_data_text;
use crate::text::{
    collapse_pieces, collapse_whitespace, collapsed_counts, hides, is_all_space, pre_text,
    split_count,
};

mod tags;

pub use tags::{
    is_block_tag, is_heading_tag, is_skipped_tag, BLOCK_TAGS, HEADING_TAGS, SKIPPED_TAGS,
};
use tags::{role, Role};

/// A run of text and the element that directly holds it. `text` is a text node, or
/// [`NONE`] for the line break a single `<br>` stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub text: NodeId,
    pub element: u32,
}

/// A segment of text between two block boundaries, with its shallow statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Whitespace-collapsed text (`pre` keeps its line breaks).
    pub text: String,
    /// Index of the delimiting element.
    pub element: u32,
    /// This block's spans: `spans[start..end]` of [`Document::spans`].
    pub span_start: u32,
    pub span_end: u32,
    /// Characters (Unicode scalar values) of `text`.
    pub chars: u32,
    pub words: u32,
    pub link_chars: u32,
    pub link_words: u32,
    /// Start tags opened while this block was read.
    pub tags: u32,
    pub is_heading: bool,
    /// Characters of block text before this block.
    pub offset: u64,
}

/// The attributes of element `index` as the Python document holds them: all of them with
/// `all`, otherwise only `<html>`'s and the skipped elements' (script, head ...).
pub fn held_attributes<'a>(dom: &'a Dom, doc: &Document, index: usize, all: bool) -> &'a [Attr] {
    held_node_attributes(dom, doc.nodes[index], all)
}

/// [`held_attributes`] of the element whose DOM node is `node`.
pub fn held_node_attributes(dom: &Dom, node: NodeId, all: bool) -> &[Attr] {
    let tag = dom.tag(node);
    if all || tag == "html" || is_skipped_tag(tag) {
        dom.attributes(node)
    } else {
        &[]
    }
}

/// The page facts that live outside its text: `<title>`, meta tags, JSON-LD, the canonical link.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeadFacts {
    pub title: String,
    pub meta: Vec<(String, String)>,
    pub json_ld: Vec<String>,
}

/// A page's element table, blocks and head facts.
#[derive(Debug, Default)]
pub struct Document {
    /// The DOM node of each element.
    pub nodes: Vec<NodeId>,
    /// Parent element index of each element; -1 for the root.
    pub parents: Vec<i64>,
    pub depths: Vec<i64>,
    /// Blocks `[first_blocks[i], end_blocks[i])` lie inside element `i`.
    pub first_blocks: Vec<i64>,
    pub end_blocks: Vec<i64>,
    /// Elements whose content was not walked (script, style, head ...).
    pub skipped: Vec<u32>,
    pub blocks: Vec<Block>,
    pub spans: Vec<Span>,
    pub head: HeadFacts,
}

impl Document {
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// This document without the blocks where `keep` is false: the elements stay, their
    /// block ranges renumbered (a range of dropped blocks becomes empty), and the kept
    /// blocks' offsets count only the kept text.
    pub fn keep_blocks(&self, keep: &[bool]) -> Document {
        let mut before = Vec::with_capacity(self.blocks.len() + 1);
        before.push(0i64);
        for (i, block_kept) in keep.iter().enumerate().take(self.blocks.len()) {
            before.push(before[i] + i64::from(*block_kept));
        }
        let renumber =
            |index: &i64| before[usize::try_from(*index).unwrap_or(0).min(before.len() - 1)];
        let mut blocks = Vec::new();
        let mut offset = 0u64;
        for (block, _) in self.blocks.iter().zip(keep).filter(|(_, k)| **k) {
            blocks.push(Block {
                offset,
                ..block.clone()
            });
            offset += u64::from(block.chars);
        }
        Document {
            nodes: self.nodes.clone(),
            parents: self.parents.clone(),
            depths: self.depths.clone(),
            first_blocks: self.first_blocks.iter().map(renumber).collect(),
            end_blocks: self.end_blocks.iter().map(renumber).collect(),
            skipped: self.skipped.clone(),
            blocks,
            spans: self.spans.clone(),
            head: self.head.clone(),
        }
    }

    /// Per element, the nearest ancestor-or-self whose tag is one of `tags` (-1: none).
    /// Elements are in pre-order, so a parent's answer is known before its children's.
    pub fn nearest(&self, dom: &Dom, tags: &[String]) -> Vec<i64> {
        let mut out: Vec<i64> = Vec::with_capacity(self.len());
        for (i, &node) in self.nodes.iter().enumerate() {
            let own = tags.iter().any(|t| t == dom.tag(node));
            let inherited = usize::try_from(self.parents[i])
                .ok()
                .filter(|&p| p < i)
                .map_or(-1, |p| out[p]);
            out.push(if own { i as i64 } else { inherited });
        }
        out
    }

    /// The blocks' texts to identify the page's language from: the longest first (in page
    /// order among equals), those that read as markup (escaped HTML) skipped, until `limit`
    /// characters are taken, joined by line breaks.
    pub fn language_sample(&self, limit: usize) -> String {
        let mut order: Vec<usize> = (0..self.blocks.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.blocks[i].chars));
        let mut taken: Vec<&str> = Vec::new();
        let mut size = 0usize;
        for i in order {
            let text = self.blocks[i].text.as_str();
            if text
                .trim_start_matches(|c: char| {
                    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
                })
                .starts_with('<')
            {
                continue;
            }
            taken.push(text);
            size += self.blocks[i].chars as usize;
            if size >= limit {
                break;
            }
        }
        taken.join("\n")
    }

    /// The text of one span.
    pub fn span_text<'a>(&self, dom: &'a Dom, span: Span) -> &'a str {
        if span.text == NONE {
            "\n"
        } else {
            dom.text(span.text)
        }
    }
}

/// The counters of the block being read.
#[derive(Default)]
struct Pending {
    spans_from: usize,
    has_text: bool,
    pre: bool,
    link_chars: u32,
    link_words: u32,
    tags: u32,
    brs: u32,
}

/// An element the walk is inside of.
struct Open {
    node: NodeId,
    index: usize,
    role: Role,
    /// The inherited bits outside this element.
    inherited: u8,
}

struct Walker<'a> {
    dom: &'a Dom,
    doc: Document,
    pending: Pending,
    block_owners: Vec<u32>,
    headings: u32,
}

impl Walker<'_> {
    /// Make a block of the pending text, when there is any, and start a new one.
    fn flush(&mut self) {
        if self.pending.has_text {
            self.add_block();
        }
        self.pending = Pending {
            spans_from: self.doc.spans.len(),
            ..Pending::default()
        };
    }

    fn add_block(&mut self) {
        let owner = *self.block_owners.last().unwrap_or(&0);
        let spans = &self.doc.spans[self.pending.spans_from..];
        let pieces = spans.iter().map(|span| self.doc.span_text(self.dom, *span));
        let (text, words) = if self.pending.pre {
            let raw: String = pieces.collect();
            let text = pre_text(&raw);
            let words = split_count(&text);
            (text, words)
        } else {
            let bytes = spans
                .iter()
                .map(|span| self.doc.span_text(self.dom, *span).len())
                .sum();
            collapse_pieces(pieces, bytes)
        };
        let chars = text.chars().count() as u32;
        let tag = self.dom.tag(self.doc.nodes[owner as usize]);
        let offset = self
            .doc
            .blocks
            .last()
            .map_or(0, |b| b.offset + u64::from(b.chars));
        self.doc.blocks.push(Block {
            text,
            element: owner,
            span_start: self.pending.spans_from as u32,
            span_end: self.doc.spans.len() as u32,
            chars,
            words: words as u32,
            link_chars: self.pending.link_chars.min(chars),
            link_words: self.pending.link_words,
            tags: self.pending.tags,
            is_heading: self.headings > 0 || is_heading_tag(tag),
            offset,
        });
    }

    fn add_text(&mut self, node: NodeId, parent: usize, inherited: u8) {
        let text = self.dom.text(node);
        if text.is_empty() {
            return;
        }
        // White space is never data (`is_data_text` reads the text without its white space).
        let space = is_all_space(text);
        if !space && inherited & Role::PRE == 0 && self.is_data(text, parent, inherited) {
            return;
        }
        let span = Span {
            text: node,
            element: parent as u32,
        };
        if !space {
            self.doc.spans.push(span);
            self.pending.has_text = true;
            self.pending.brs = 0;
            if inherited & Role::PRE != 0 {
                self.pending.pre = true;
            }
            if inherited & Role::ANCHOR != 0 {
                let (chars, words) = collapsed_counts(text);
                self.pending.link_chars += chars as u32;
                self.pending.link_words += words as u32;
            }
        } else if self.pending.has_text || inherited & Role::PRE != 0 {
            // White space before a block's first text is not kept.
            self.doc.spans.push(span);
        }
    }

    /// Record element `node`; returns its index.
    fn add_element(&mut self, node: NodeId, parent: i64, depth: i64) -> usize {
        let index = self.doc.nodes.len();
        self.doc.nodes.push(node);
        self.doc.parents.push(parent);
        self.doc.depths.push(depth);
        self.doc.first_blocks.push(self.doc.blocks.len() as i64);
        self.doc.end_blocks.push(self.doc.blocks.len() as i64);
        index
    }

    /// A `<br>`: one is a line break inside the block, a second in a row ends the block.
    fn line_break(&mut self, index: usize) {
        if self.pending.brs == 0 {
            self.doc.spans.push(Span {
                text: NONE,
                element: index as u32,
            });
            self.pending.brs = 1;
        } else {
            self.flush();
            self.pending.brs = 1;
        }
    }

    /// A text node of machine data (JSON, a data blob) outside code, where it is not prose.
    fn is_data(&self, text: &str, parent: usize, inherited: u8) -> bool {
        is_data_text(text, inherited & Role::ANCHOR != 0)
            && !matches!(
                self.dom.tag(self.doc.nodes[parent]),
                "code" | "kbd" | "samp" | "tt" | "var"
            )
    }

    fn is_hidden_math(&self, node: NodeId) -> bool {
        let parent = self.dom.node(node).parent;
        [node, parent].into_iter().any(|n| {
            n != NONE
                && self.dom.node(n).kind == Kind::Element
                && self.dom.attr(n, "style").is_some_and(hides)
        })
    }

    /// Close the innermost open element.
    fn close(&mut self, open: &Open) {
        if open.role.has(Role::BLOCK) {
            self.flush();
            self.block_owners.pop();
            if open.role.has(Role::HEADING) {
                self.headings -= 1;
            }
            self.doc.end_blocks[open.index] = self.doc.blocks.len() as i64;
        } else {
            self.doc.end_blocks[open.index] =
                self.doc.blocks.len() as i64 + i64::from(self.pending.has_text);
        }
    }

    fn walk(&mut self, root: NodeId) {
        let mut open: Vec<Open> = Vec::new();
        let mut node = root;
        // Whether `node` is still to be entered (else: go on past it).
        let mut enter = true;
        loop {
            crate::budget::check();
            if !enter {
                // Past `node`: on to its next sibling, or out of the open elements.
                let mut next = if open.is_empty() {
                    NONE
                } else {
                    self.dom.node(node).next_sibling
                };
                while next == NONE {
                    let Some(done) = open.pop() else { break };
                    self.close(&done);
                    if open.is_empty() {
                        break;
                    }
                    next = self.dom.node(done.node).next_sibling;
                }
                if next == NONE {
                    break;
                }
                node = next;
            }
            enter = false;
            let (parent, inherited) = open.last().map_or((-1, 0), |o| {
                (o.index as i64, o.inherited | (o.role.0 & Role::INHERITED))
            });
            match self.dom.node(node).kind {
                Kind::Text if parent >= 0 => self.add_text(node, parent as usize, inherited),
                Kind::Element => {
                    if let Some(child) = self.enter_element(node, parent, open.len() as i64) {
                        let index = self.doc.len() - 1;
                        open.push(Open {
                            node,
                            index,
                            role: child.0,
                            inherited,
                        });
                        if child.1 != NONE {
                            node = child.1;
                            enter = true;
                        } else {
                            // Opened without children: close it at once.
                            let done = open.pop().expect("just pushed");
                            self.close(&done);
                            if open.is_empty() {
                                break;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        self.flush();
    }

    /// Record an element; returns its role and first child when the walk goes inside it.
    fn enter_element(&mut self, node: NodeId, parent: i64, depth: i64) -> Option<(Role, NodeId)> {
        let tag = self.dom.tag(node);
        let mut role = role(tag);
        if role.has(Role::BLOCK) {
            self.flush();
        }
        let index = self.add_element(node, parent, depth);
        if role.has(Role::SKIP) || (role.has(Role::MATH) && self.is_hidden_math(node)) {
            collect_head_facts(self.dom, node, tag, &mut self.doc.head);
            self.doc.skipped.push(index as u32);
            return None;
        }

        if role.has(Role::BR) {
            self.line_break(index);
            return None;
        }
        if role.has(Role::MATH) {
            role = Role::INLINE;
        }
        self.pending.tags += 1;
        let child = self.dom.node(node).first_child;
        if role == Role::INLINE && child == NONE {
            self.doc.end_blocks[index] =
                self.doc.blocks.len() as i64 + i64::from(self.pending.has_text);
            return None;
        }
        if role.has(Role::BLOCK) {
            self.block_owners.push(index as u32);
        }
        if role.has(Role::HEADING) {
            self.headings += 1;
        }
        Some((role, child))
    }
}

fn is_json_ld(dom: &Dom, node: NodeId) -> bool {
    dom.attr(node, "type").is_some_and(|t| {
        t.trim()
            .to_ascii_lowercase()
            .starts_with("application/ld+json")
    })
}

/// Title, meta tags and JSON-LD live in elements whose text is not page text.
fn collect_head_facts(dom: &Dom, node: NodeId, tag: &str, facts: &mut HeadFacts) {
    if tag == "head" {
        for child in dom.descendants(node).skip(1) {
            if dom.node(child).kind == Kind::Element {
                head_child(dom, child, facts);
            }
        }
    } else if tag == "script" && is_json_ld(dom, node) {
        facts.json_ld.push(dom.text_content(node));
    }
}

fn head_child(dom: &Dom, node: NodeId, facts: &mut HeadFacts) {
    match dom.tag(node) {
        "title" if facts.title.is_empty() => {
            facts.title = collapse_whitespace(&dom.text_content(node)).0;
        }
        "meta" => {
            let key = ["property", "name", "itemprop", "http-equiv"]
                .iter()
                .find_map(|name| dom.attr(node, name).filter(|v| !v.is_empty()));
            if let (Some(key), Some(content)) = (key, dom.attr(node, "content")) {
                facts
                    .meta
                    .push((key.trim().to_lowercase(), content.to_owned()));
            }
        }
        "script" if is_json_ld(dom, node) => facts.json_ld.push(dom.text_content(node)),
        "link" => {
            let canonical = dom.attr(node, "rel").is_some_and(|rel| {
                rel.to_lowercase()
                    .split_whitespace()
                    .any(|r| r == "canonical")
            });
            if let Some(href) = dom
                .attr(node, "href")
                .filter(|h| canonical && !h.is_empty())
            {
                facts.meta.push(("canonical".to_owned(), href.to_owned()));
            }
        }
        _ => {}
    }
}

/// Walk `dom` from its root element into a [`Document`].
pub fn build(dom: &Dom) -> Document {
    // Room for every element and a block per text run, so that no table is copied to grow
    // in one step of the walk (see `Sink::with_capacity`).
    let (elements, texts) = (dom.names.len(), dom.texts.len());
    let doc = Document {
        nodes: Vec::with_capacity(elements),
        parents: Vec::with_capacity(elements),
        depths: Vec::with_capacity(elements),
        first_blocks: Vec::with_capacity(elements),
        end_blocks: Vec::with_capacity(elements),
        blocks: Vec::with_capacity(texts),
        ..Document::default()
    };
    let mut walker = Walker {
        dom,
        doc,
        pending: Pending::default(),
        block_owners: vec![0],
        headings: 0,
    };
    if let Some(root) = dom.root_element() {
        walker.walk(root);
    }
    walker.doc
}
#[cfg(test)]
mod tests;
