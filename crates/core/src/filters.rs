//! Filters applied after classification. Comment sections: an element names one when its
//! id or one of its class tokens, split into words at `-` and `_` and lower-cased, holds a
//! comment word (and is not a page-state class such as `comments-open`); a block lies in a
//! comment section when its element or an ancestor names one.

use crate::hash::{HashMap, HashSet};
use std::borrow::Cow;

use crate::document::{held_attributes, Document};
use crate::dom::{attr_value, Dom};
use crate::text::is_space;

/// The comment-section detector's word lists (lower case).
#[derive(Clone, Debug, Default)]
pub struct CommentParams {
    /// Words that name a comment section.
    pub words: HashSet<String>,
    /// Whole tokens that never do (page-state classes).
    pub state_tokens: HashSet<String>,
    /// Tags that never do (they wrap the whole page).
    pub wrapper_tags: HashSet<String>,
}

impl CommentParams {
    /// Whether one id value or class token names a comment section.
    fn names_comments(&self, token: &str) -> bool {
        let token = lower(token);
        !self.state_tokens.contains(&*token)
            && token
                .split(['_', '-'])
                .any(|word| !word.is_empty() && self.words.contains(word))
    }

    /// Whether an element with this tag, class and id names a comment section.
    pub fn names_section(&self, tag: &str, class: Option<&str>, id: Option<&str>) -> bool {
        !self.wrapper_tags.contains(tag)
            && (self.class_names(class.unwrap_or("")) || self.id_names(id.unwrap_or("")))
    }

    /// Whether one of a class value's tokens names a comment section.
    fn class_names(&self, class: &str) -> bool {
        class
            .split(is_space)
            .filter(|t| !t.is_empty())
            .any(|token| self.names_comments(token))
    }

    /// Whether an id value names a comment section.
    fn id_names(&self, id: &str) -> bool {
        let id = id.trim_matches(is_space);
        !id.is_empty() && self.names_comments(id)
    }
}

/// `text` lower-cased, borrowed when it is ASCII without capitals (most ids and classes).
fn lower(text: &str) -> Cow<'_, str> {
    if text.is_ascii() && !text.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

/// Answers for the distinct attribute values of one page: a page repeats its class values
/// on many elements.
#[derive(Default)]
struct Memo<'a> {
    classes: HashMap<&'a str, bool>,
    ids: HashMap<&'a str, bool>,
}

impl<'a> Memo<'a> {
    fn names_section(
        &mut self,
        params: &CommentParams,
        tag: &str,
        class: Option<&'a str>,
        id: Option<&'a str>,
    ) -> bool {
        if params.wrapper_tags.contains(tag) {
            return false;
        }
        // Most elements have no class or no id: those name nothing, without a look-up.
        let by_class = match class {
            Some(class) if !class.is_empty() => *self
                .classes
                .entry(class)
                .or_insert_with(|| params.class_names(class)),
            _ => false,
        };
        by_class
            || match id {
                Some(id) if !id.is_empty() => {
                    *self.ids.entry(id).or_insert_with(|| params.id_names(id))
                }
                _ => false,
            }
    }
}

/// Per element: it or an ancestor names a comment section. Elements come in pre-order, so
/// a parent's answer is known before its children's. `attributes`: whether the document
/// holds every element's attributes (see [`held_attributes`]).
pub fn comment_elements(
    dom: &Dom,
    doc: &Document,
    attributes: bool,
    params: &CommentParams,
) -> Vec<bool> {
    let mut inside = Vec::with_capacity(doc.len());
    let mut memo = Memo::default();
    for i in 0..doc.len() {
        crate::budget::check();
        let parent = usize::try_from(doc.parents[i]).ok();
        let inherited = parent.is_some_and(|p| p < i && inside[p]);
        let mut own = || {
            let attrs = held_attributes(dom, doc, i, attributes);
            let (class, id) = (attr_value(attrs, "class"), attr_value(attrs, "id"));
            memo.names_section(params, dom.tag(doc.nodes[i]), class, id)
        };
        inside.push(inherited || own());
    }
    inside
}

/// [`comment_elements`] from the distinct id and class values the tree facts number
/// ([`crate::features::tree::TreeFacts`]' `values`, `class_slot`, `id_slot`, read under the
/// same attribute rule): each value is judged once, each element reads its slots' answers.
pub fn comment_elements_by_slots(
    dom: &Dom,
    doc: &Document,
    values: &[Option<String>],
    class_slot: &[i64],
    id_slot: &[i64],
    params: &CommentParams,
) -> Vec<bool> {
    let mut by_class: Vec<Option<bool>> = vec![None; values.len()];
    let mut by_id: Vec<Option<bool>> = vec![None; values.len()];
    let value = |slot: Option<&i64>| {
        let at = slot.and_then(|&s| usize::try_from(s).ok())?;
        Some((at, values.get(at)?.as_deref()?))
    };
    let mut inside = Vec::with_capacity(doc.len());
    for i in 0..doc.len() {
        crate::budget::check();
        let parent = usize::try_from(doc.parents[i]).ok();
        if parent.is_some_and(|p| p < i && inside[p]) {
            inside.push(true);
            continue;
        }
        let class = value(class_slot.get(i)).is_some_and(|(at, class)| {
            *by_class[at].get_or_insert_with(|| params.class_names(class))
        });
        let names = class
            || value(id_slot.get(i))
                .is_some_and(|(at, id)| *by_id[at].get_or_insert_with(|| params.id_names(id)));
        inside.push(names && !params.wrapper_tags.contains(dom.tag(doc.nodes[i])));
    }
    inside
}

/// Per block: its element is `inside` (one flag per element) and `only` holds it (one flag
/// per block).
pub fn inside_blocks(doc: &Document, inside: &[bool], only: &[bool]) -> Vec<bool> {
    doc.blocks
        .iter()
        .zip(only)
        .map(|(block, &held)| held && inside.get(block.element as usize).copied().unwrap_or(false))
        .collect()
}

/// The kept comment blocks to drop (`keep`, `comments`: one flag per block): none when their
/// words are more than `max_share` of the kept words, which makes the detection a mistake
/// (a forum's posts, a page wrapped in a comment-named element).
pub fn comment_drop(doc: &Document, keep: &[bool], comments: &[bool], max_share: f64) -> Vec<bool> {
    let (mut total, mut dropped) = (0u64, 0u64);
    for ((block, &kept), &comment) in doc.blocks.iter().zip(keep).zip(comments) {
        if kept {
            total += u64::from(block.words);
            if comment {
                dropped += u64::from(block.words);
            }
        }
    }
    if total == 0 || dropped as f64 > max_share * total as f64 {
        return vec![false; keep.len()];
    }
    keep.iter().zip(comments).map(|(&k, &c)| k && c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build, parse, Limits};

    fn params() -> CommentParams {
        let set = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect();
        CommentParams {
            words: set(&["comment", "comments", "reply"]),
            state_tokens: set(&["comments-open"]),
            wrapper_tags: set(&["html", "body", "article"]),
        }
    }

    #[test]
    fn tokens_split_at_dashes_and_underscores_in_any_case() {
        let p = params();
        assert!(p.names_section("div", Some("x Post-Comments"), None));
        assert!(p.names_section("div", None, Some("  reply__form ")));
        assert!(!p.names_section("div", Some("commentary comments-open"), None));
        assert!(!p.names_section("article", Some("comments"), None));
        assert!(!p.names_section("div", Some(""), Some("")));
    }

    #[test]
    fn descendants_of_a_comment_section_are_inside_it() {
        let html = "<body class=comments><div id=main><p>a</p></div>\
                    <section class='user-comments'><div><p>b</p></div></section><p>c</p></body>";
        let dom = parse(html, Limits::default());
        let doc = build(&dom);
        let inside = comment_elements(&dom, &doc, true, &params());
        let tags: Vec<(&str, bool)> = doc
            .nodes
            .iter()
            .zip(&inside)
            .map(|(&n, &i)| (dom.tag(n), i))
            .filter(|(t, _)| ["div", "section", "p"].contains(t))
            .collect();
        assert_eq!(
            tags,
            [
                ("div", false),
                ("p", false),
                ("section", true),
                ("div", true),
                ("p", true),
                ("p", false)
            ]
        );
        assert_eq!(by_slots(&dom, &doc, true), inside);
        assert_eq!(
            by_slots(&dom, &doc, false),
            comment_elements(&dom, &doc, false, &params())
        );
    }

    /// [`comment_elements_by_slots`] over the tree facts' id and class slots.
    fn by_slots(dom: &Dom, doc: &Document, attributes: bool) -> Vec<bool> {
        let facts = crate::features::tree::tree_facts(dom, doc, attributes, &Default::default());
        assert_eq!(facts.class_slot.len(), doc.nodes.len());
        comment_elements_by_slots(
            dom,
            doc,
            &facts.values,
            &facts.class_slot,
            &facts.id_slot,
            &params(),
        )
    }

    #[test]
    fn the_slots_judge_ids_and_classes_as_the_attributes_do() {
        let dom = parse(
            "<div id='reply_form' class='x'><p>a</p></div><article id=comments><p>b</p></article>\
             <div class='comments-open'><p>c</p></div><div class='x'><p id=Comment>d</p></div>",
            Limits::default(),
        );
        let doc = build(&dom);
        let inside = by_slots(&dom, &doc, true);
        assert_eq!(inside, comment_elements(&dom, &doc, true, &params()));
        assert_eq!(inside.iter().filter(|&&i| i).count(), 3); // the div, its p, the last p
                                                              // Without attributes the document holds none to read.
        assert!(!comment_elements(&dom, &doc, false, &params())
            .iter()
            .any(|&i| i));
    }
}
