//! Facts about the whole page broadcast to its blocks (its link share, its JSON-LD and
//! OpenGraph types, whether it has structured text), and each block's overlap with the title
//! and the structured text and its length against the longest block's.
//!
//! Scale-free on purpose: no absolute or relative position, no share of the page's text, no
//! page size. Those make a very long article look like a footer (tiny share, near the end)
//! or like a huge link farm (the page's block and character counts).

use crate::hash::HashSet;

use super::columns::{flag, Columns};
use super::overlap::{overlaps, word_set};
use crate::document::Document;

/// The page types with a column each, and the (lower-cased) JSON-LD `@type` and `og:type`
/// values that make a page one.
pub const PAGE_TYPES: [(&str, &[&str]); 4] = [
    (
        "page_type_article",
        &[
            "article",
            "newsarticle",
            "blogposting",
            "report",
            "techarticle",
            "scholarlyarticle",
        ],
    ),
    ("page_type_product", &["product", "offer", "aggregateoffer"]),
    (
        "page_type_forum",
        &[
            "discussionforumposting",
            "qapage",
            "question",
            "answer",
            "comment",
        ],
    ),
    (
        "page_type_list",
        &[
            "itemlist",
            "collectionpage",
            "searchresultspage",
            "breadcrumblist",
        ],
    ),
];

/// A page has structured text when it holds more than this many distinct words.
const STRUCTURED_WORDS: usize = 20;

/// What the page's head says, read by the caller: its title, the text of its structured data
/// (JSON-LD bodies and descriptions, meta descriptions) and its lower-cased types.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    pub title: &'a str,
    pub structured_text: &'a str,
    pub types: &'a HashSet<String>,
}

/// `page_link_share`, the `page_type_*` columns, `page_has_structured_text`, `title_overlap`,
/// `structured_overlap`, `relative_length`.
pub fn columns(doc: &Document, head: &Head<'_>) -> Columns {
    let n = doc.blocks.len();
    let chars: Vec<f64> = doc.blocks.iter().map(|b| f64::from(b.chars)).collect();
    let total: f64 = chars.iter().sum();
    let total = if total == 0.0 { 1.0 } else { total };
    let links: f64 = doc.blocks.iter().map(|b| f64::from(b.link_chars)).sum();
    let mut cols = Columns::default();
    cols.push("page_link_share", vec![links / total; n]);
    for (name, kinds) in PAGE_TYPES {
        let is = kinds.iter().any(|k| head.types.contains(*k));
        cols.push(name, vec![flag(is); n]);
    }
    let structured = word_set(head.structured_text);
    cols.push(
        "page_has_structured_text",
        vec![flag(structured.len() > STRUCTURED_WORDS); n],
    );
    let shares = overlaps(doc, &[word_set(head.title), structured]);
    cols.push("title_overlap", shares.iter().step_by(2).copied());
    cols.push(
        "structured_overlap",
        shares.iter().skip(1).step_by(2).copied(),
    );
    let longest = chars.iter().copied().fold(1.0f64, f64::max);
    cols.push("relative_length", chars.iter().map(|c| c / longest));
    cols
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build, parse, Limits};

    #[test]
    fn page_facts_reach_every_block() {
        let dom = parse(
            "<p>Storm hits the coast</p><p><a href=x>more</a> news</p>",
            Limits::default(),
        );
        let doc = build(&dom);
        let types: HashSet<String> = ["newsarticle".to_owned()].into_iter().collect();
        let head = Head {
            title: "Storm hits",
            structured_text: "the storm",
            types: &types,
        };
        let cols = columns(&doc, &head);
        assert_eq!(cols.column("page_type_article").unwrap(), [1.0, 1.0]);
        assert_eq!(cols.column("page_type_list").unwrap(), [0.0, 0.0]);
        assert_eq!(cols.column("page_has_structured_text").unwrap(), [0.0, 0.0]);
        assert_eq!(cols.column("title_overlap").unwrap(), [0.5, 0.0]);
        assert_eq!(cols.column("structured_overlap").unwrap(), [0.5, 0.0]);
        assert_eq!(
            cols.column("page_link_share").unwrap()[0],
            (4.0 / 29.0) as f32
        );
        assert_eq!(
            cols.column("relative_length").unwrap(),
            [1.0, (9.0 / 20.0) as f32]
        );
        let none = HashSet::default();
        let empty = build(&parse("", Limits::default()));
        let head = Head {
            title: "",
            structured_text: "",
            types: &none,
        };
        let cols = columns(&empty, &head);
        assert_eq!(cols.names.len(), 9);
        assert!(cols.values.iter().all(Vec::is_empty));
    }
}
