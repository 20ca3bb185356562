//! Readability's content-score candidates, as block features for the learned flagship
//! (the definition is documented in `thresher.candidates`).
//!
//! Readability scores paragraph-like elements, spreads their points over five ancestors,
//! weighs each scored element by its tag and by class/id patterns, picks the best candidate,
//! climbs from it, and adds the siblings that join it. Here blocks stand in for paragraphs.
//! Every pass runs over the pre-order element columns (a parent before its children) or
//! climbs parent links, one step at a time; no recursion.

use crate::document::Document;
use crate::dom::Dom;
use crate::features::tree::TreeFacts;

mod patterns;

pub use patterns::{pattern_bits, MAYBE_BIT, NEGATIVE_BIT, POSITIVE_BIT, UNLIKELY_BIT};

/// The column names, in order.
pub const NAMES: [&str; 6] = [
    "rd_paragraph",
    "rd_in_top",
    "rd_in_article",
    "rd_ancestor_best",
    "rd_parent_score",
    "rd_top_share",
];

const UNLIKELY_ROLES: &[&str] = &[
    "menu",
    "menubar",
    "complementary",
    "navigation",
    "alert",
    "alertdialog",
    "dialog",
];
const PARAGRAPH_TAGS: &[&str] = &[
    "section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre", "div",
];
const CLASS_WEIGHT: f64 = 25.0;
const MIN_PARAGRAPH_CHARS: u32 = 25;
const ANCESTOR_LEVELS: usize = 5;
const SIBLING_SHARE: f64 = 0.2;
const MIN_SIBLING_SCORE: f64 = 10.0;

/// Readability's starting score of a candidate with this tag.
fn tag_score(tag: &str) -> f64 {
    match tag {
        "div" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
        _ => 0.0,
    }
}

fn weight(bits: u8) -> f64 {
    CLASS_WEIGHT
        * (f64::from(u8::from(bits & POSITIVE_BIT != 0))
            - f64::from(u8::from(bits & NEGATIVE_BIT != 0)))
}

/// Element columns read by the scoring, borrowed from the document and its facts.
struct Tree<'a> {
    tags: Vec<&'a str>,
    /// Parent of each element, -1 for a root.
    raw_parents: &'a [i64],
    /// Parent of each element, a root its own parent.
    parents: &'a [i64],
    first: &'a [i64],
    end: &'a [i64],
}

impl Tree<'_> {
    fn parent(&self, element: usize) -> usize {
        self.parents[element] as usize
    }

    fn blocks(&self, element: usize) -> std::ops::Range<usize> {
        self.first[element] as usize..self.end[element] as usize
    }
}

/// Per element: whether some paragraph scored it, and its final score (0 when not).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidates {
    pub touched: Vec<bool>,
    pub score: Vec<f64>,
}

/// The blocks Readability would score as paragraphs, before unlikely ancestors drop any:
/// long enough, and delimited by a paragraph-like element.
fn paragraph_blocks(doc: &Document, tags: &[&str]) -> Vec<bool> {
    doc.blocks
        .iter()
        .map(|b| {
            b.chars >= MIN_PARAGRAPH_CHARS && PARAGRAPH_TAGS.contains(&tags[b.element as usize])
        })
        .collect()
}

/// Per distinct id/class value: its pattern bits, scanned only for the values of elements
/// that hold a paragraph block (only those elements' cues can drop a paragraph or weigh a
/// candidate); the others are 0.
fn holding_bits(tree: &Tree, facts: &TreeFacts, paragraph: &[bool]) -> Vec<u8> {
    let mut count = Vec::with_capacity(paragraph.len() + 1);
    count.push(0usize);
    for &is in paragraph {
        count.push(count[count.len() - 1] + usize::from(is));
    }
    let mut wanted = vec![false; facts.values.len()];
    for e in 0..tree.tags.len() {
        let range = tree.blocks(e);
        if count[range.end] > count[range.start] {
            wanted[facts.id_slot[e] as usize] = true;
            wanted[facts.class_slot[e] as usize] = true;
        }
    }
    facts
        .values
        .iter()
        .zip(wanted)
        .map(|(value, wanted)| match value {
            Some(value) if wanted => pattern_bits(value),
            _ => 0,
        })
        .collect()
}

/// `flags` OR-ed down the tree: true where the element or an ancestor is flagged
/// (pre-order: a parent's value is final before its children are read).
fn inherited(mut flags: Vec<bool>, raw_parents: &[i64]) -> Vec<bool> {
    for e in 0..flags.len() {
        if let Ok(parent) = usize::try_from(raw_parents[e]) {
            flags[e] |= flags[parent];
        }
    }
    flags
}

/// Per element: its class/id weight, and whether it (or an ancestor) is dropped as unlikely
/// or hidden.
fn cues(tree: &Tree, facts: &TreeFacts, bits: &[u8]) -> (Vec<f64>, Vec<bool>) {
    let n = tree.tags.len();
    let mut weights = Vec::with_capacity(n);
    let mut unlikely = Vec::with_capacity(n);
    for e in 0..n {
        let (id, class) = (
            bits[facts.id_slot[e] as usize],
            bits[facts.class_slot[e] as usize],
        );
        let both = id | class;
        unlikely.push(
            both & UNLIKELY_BIT != 0
                && both & MAYBE_BIT == 0
                && tree.tags[e] != "body"
                && tree.tags[e] != "a",
        );
        weights.push(weight(id) + weight(class));
    }
    for (element, role) in &facts.roles {
        if UNLIKELY_ROLES.contains(&role.as_str()) {
            unlikely[*element] = true;
        }
    }
    for (flag, hidden) in unlikely.iter_mut().zip(&facts.hidden) {
        *flag |= hidden;
    }
    (weights, inherited(unlikely, tree.raw_parents))
}

/// Each block's points as a Readability paragraph (0 when it is not one, or is dropped):
/// one, one per comma, one per hundred characters (at most three).
fn paragraph_points(doc: &Document, paragraph: &[bool], removed: &[bool]) -> Vec<f64> {
    doc.blocks
        .iter()
        .zip(paragraph)
        .map(|(block, &is)| {
            if !is || removed[block.element as usize] {
                return 0.0;
            }
            let text = block.text.as_bytes();
            let commas = text.iter().filter(|&&b| b == b',').count()
                + memchr::memmem::find_iter(text, "，".as_bytes()).count();
            1.0 + commas as f64 + f64::from((block.chars / 100).min(3))
        })
        .collect()
}

/// Readability's candidate scores: paragraph points spread over five ancestors (level by
/// level, blocks in order: the order the sums are taken in), added to each scored element's
/// start (its tag's score and its class/id `weights`), times one less its link density.
fn score_candidates(
    doc: &Document,
    tree: &Tree,
    points: &[f64],
    weights: &[f64],
    link_density: &[f64],
) -> Candidates {
    let n = tree.tags.len();
    let mut picked: Vec<(usize, f64)> = Vec::new();
    for (block, &own) in doc.blocks.iter().zip(points) {
        if own > 0.0 {
            let owner = block.element as usize;
            // a block that is one text run of several in its element is scored as a paragraph
            // of its own: its element is the first ancestor scored
            let several_runs = tree.end[owner] - tree.first[owner] > 1;
            picked.push((
                if several_runs {
                    owner
                } else {
                    tree.parent(owner)
                },
                own,
            ));
        }
    }
    let mut total = vec![0.0f64; n];
    let mut touched = vec![false; n];
    for level in 0..ANCESTOR_LEVELS {
        let divider = match level {
            0 => 1.0,
            1 => 2.0,
            _ => (level * 3) as f64,
        };
        for (ancestor, own) in &mut picked {
            if tree.raw_parents[*ancestor] >= 0 {
                // Readability skips the document itself
                total[*ancestor] += *own / divider;
                touched[*ancestor] = true;
            }
            *ancestor = tree.parent(*ancestor);
        }
    }
    let score = (0..n)
        .map(|e| {
            if touched[e] {
                (tag_score(tree.tags[e]) + weights[e] + total[e]) * (1.0 - link_density[e])
            } else {
                0.0
            }
        })
        .collect();
    Candidates { touched, score }
}

/// The first element with the largest score.
fn best(score: &[f64]) -> usize {
    let mut top = 0;
    for (e, &s) in score.iter().enumerate() {
        if s > score[top] {
            top = e;
        }
    }
    top
}

/// Readability's move up from the best candidate: to the first scored ancestor that beats
/// it (stopping where scores fall below a third of the first), then through parents of which
/// it is the only child element.
fn climb(mut top: usize, candidates: &Candidates, tree: &Tree) -> usize {
    let (score, touched) = (&candidates.score, &candidates.touched);
    let (floor, mut last) = (score[top] / 3.0, score[top]);
    let mut parent = tree.raw_parents[top];
    while let Ok(p) = usize::try_from(parent) {
        if tree.tags[p] == "body" {
            break;
        }
        if touched[p] {
            if score[p] < floor {
                break;
            }
            if score[p] > last {
                top = p;
                break;
            }
            last = score[p];
        }
        parent = tree.raw_parents[p];
    }
    let mut children = vec![0usize; tree.tags.len()];
    for &p in tree.raw_parents {
        if let Ok(p) = usize::try_from(p) {
            children[p] += 1;
        }
    }
    let mut parent = tree.raw_parents[top];
    while let Ok(p) = usize::try_from(parent) {
        if tree.tags[p] == "body" || children[p] != 1 {
            break;
        }
        top = p;
        parent = tree.raw_parents[p];
    }
    top
}

/// Whether `text` holds a full stop followed by a space or by the end (Python's `$`:
/// the end, or a final line break).
fn has_sentence_end(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'.'
            && match bytes.get(i + 1) {
                None => true,
                Some(b' ') => true,
                Some(b'\n') => i + 2 == bytes.len(),
                Some(_) => false,
            }
    })
}

/// Readability's test for a sibling `<p>` that joins the article on its own merits.
fn prose_paragraph(doc: &Document, tree: &Tree, element: usize, chars: f64, density: f64) -> bool {
    if chars > 80.0 {
        return density < 0.25;
    }
    if chars <= 0.0 || density > 0.0 {
        return false;
    }
    let text = doc.blocks[tree.blocks(element)]
        .iter()
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    has_sentence_end(&text)
}

/// The blocks of the top candidate and of the siblings Readability adds to it.
#[allow(clippy::too_many_arguments)]
fn article_blocks(
    doc: &Document,
    tree: &Tree,
    facts: &TreeFacts,
    top: usize,
    candidates: &Candidates,
    link_density: &[f64],
    removed: &[bool],
) -> Vec<bool> {
    let mut article = vec![false; doc.blocks.len()];
    article[tree.blocks(top)].fill(true);
    let Ok(parent) = usize::try_from(tree.raw_parents[top]) else {
        return article;
    };
    let class_of = |e: usize| facts.values[facts.class_slot[e] as usize].as_deref();
    let top_class = class_of(top).filter(|c| !c.is_empty());
    let top_score = candidates.score[top];
    let threshold = MIN_SIBLING_SCORE.max(top_score * SIBLING_SHARE);
    for sibling in parent + 1..tree.tags.len() {
        if tree.raw_parents[sibling] != parent as i64 || sibling == top {
            continue;
        }
        let range = tree.blocks(sibling);
        if range.is_empty() {
            continue;
        }
        let same_class = top_class.is_some() && class_of(sibling) == top_class;
        let bonus = if same_class {
            top_score * SIBLING_SHARE
        } else {
            0.0
        };
        let mut joins =
            candidates.touched[sibling] && candidates.score[sibling] + bonus >= threshold;
        if !joins && tree.tags[sibling] == "p" && !removed[sibling] {
            joins = prose_paragraph(
                doc,
                tree,
                sibling,
                facts.subtree_chars[sibling],
                link_density[sibling],
            );
        }
        if joins {
            article[range].fill(true);
        }
    }
    article
}

/// Readability's view of each block (`NAMES`, one row per block, row-major, float32): its
/// paragraph points (log), whether it lies in the best candidate and in the article (the best
/// candidate and the siblings that join it), the best score among its element and four
/// ancestors and its parent's score (both over the best candidate's), and the best
/// candidate's share of the page's text.
pub fn candidate_columns(dom: &Dom, doc: &Document, facts: &TreeFacts) -> Vec<f32> {
    let tree = Tree {
        tags: doc.nodes.iter().map(|&node| dom.tag(node)).collect(),
        raw_parents: &doc.parents,
        parents: &facts.parents,
        first: &doc.first_blocks,
        end: &doc.end_blocks,
    };
    let (n, width) = (doc.blocks.len(), NAMES.len());
    // Each pass is one cheap visit of the blocks or elements: the budget is read between.
    crate::budget::checkpoint();
    let paragraph = paragraph_blocks(doc, &tree.tags);
    let bits = holding_bits(&tree, facts, &paragraph);
    crate::budget::checkpoint();
    let (weights, removed) = cues(&tree, facts, &bits);
    let points = paragraph_points(doc, &paragraph, &removed);
    crate::budget::checkpoint();
    let link_density: Vec<f64> = facts
        .subtree_link_chars
        .iter()
        .zip(&facts.subtree_chars)
        .map(|(links, chars)| links / chars.max(1.0))
        .collect();
    let candidates = score_candidates(doc, &tree, &points, &weights, &link_density);
    crate::budget::checkpoint();
    let mut out = vec![0.0f32; n * width];
    for (row, p) in out.chunks_exact_mut(width).zip(&points) {
        row[0] = p.ln_1p() as f32;
    }
    if !candidates.touched.iter().any(|&t| t) {
        return out;
    }
    let top = climb(best(&candidates.score), &candidates, &tree);
    crate::budget::checkpoint();
    let top_score = candidates.score[top].max(1e-6);
    let in_top = tree.blocks(top);
    let article = article_blocks(doc, &tree, facts, top, &candidates, &link_density, &removed);
    crate::budget::checkpoint();
    let share = facts.subtree_chars[top] / facts.subtree_chars[0].max(1.0);
    crate::budget::checkpoint();
    for (i, (row, block)) in out.chunks_exact_mut(width).zip(&doc.blocks).enumerate() {
        crate::budget::check();
        let owner = block.element as usize;
        let mut best_share = 0.0f64;
        let mut element = owner;
        for _ in 0..ANCESTOR_LEVELS {
            best_share = best_share.max(candidates.score[element] / top_score);
            element = tree.parent(element);
        }
        row[1] = f32::from(u8::from(in_top.contains(&i)));
        row[2] = f32::from(u8::from(article[i]));
        row[3] = best_share as f32;
        row[4] = (candidates.score[tree.parent(owner)] / top_score) as f32;
        row[5] = share as f32;
    }
    out
}

#[cfg(test)]
mod tests;
