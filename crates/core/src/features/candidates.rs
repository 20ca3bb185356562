//! Readability's content-score candidates, as block features for the learned flagship
//! (the definition is documented in `thresher.candidates`).
//!
//! Readability scores paragraph-like elements, spreads their points over five ancestors,
//! weighs each scored element by its tag and by class/id patterns, picks the best candidate,
//! climbs from it, and adds the siblings that join it. Here blocks stand in for paragraphs.
//! Every pass runs over the pre-order element columns (a parent before its children) or
//! climbs parent links, one step at a time; no recursion.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::document::Document;
use crate::dom::Dom;
use crate::features::tree::TreeFacts;
use crate::text::is_space;

/// The column names, in order.
pub const NAMES: [&str; 6] = [
    "rd_paragraph",
    "rd_in_top",
    "rd_in_article",
    "rd_ancestor_best",
    "rd_parent_score",
    "rd_top_share",
];

/// Readability's class/id patterns (`REGEXPS` in Readability.js), as literal substrings.
const UNLIKELY: &[&str] = &[
    "-ad-",
    "ai2html",
    "banner",
    "breadcrumbs",
    "combx",
    "comment",
    "community",
    "cover-wrap",
    "disqus",
    "extra",
    "footer",
    "gdpr",
    "header",
    "legends",
    "menu",
    "related",
    "remark",
    "replies",
    "rss",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "social",
    "sponsor",
    "supplemental",
    "ad-break",
    "agegate",
    "pagination",
    "pager",
    "popup",
    "yom-remote",
];
const MAYBE_CANDIDATE: &[&str] = &[
    "and", "article", "body", "column", "content", "main", "mathjax", "shadow",
];
const POSITIVE: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "hentry",
    "h-entry",
    "main",
    "page",
    "pagination",
    "post",
    "text",
    "blog",
    "story",
];
const NEGATIVE: &[&str] = &[
    "-ad-",
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "footer",
    "gdpr",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "widget",
];
/// Readability's negative pattern also holds "hid" as a whole (white-space separated) word.
const NEGATIVE_WORD: &str = "hid";
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

pub const UNLIKELY_BIT: u8 = 1;
pub const MAYBE_BIT: u8 = 2;
pub const POSITIVE_BIT: u8 = 4;
pub const NEGATIVE_BIT: u8 = 8;
const GROUPS: [(&[&str], u8); 4] = [
    (UNLIKELY, UNLIKELY_BIT),
    (MAYBE_CANDIDATE, MAYBE_BIT),
    (POSITIVE, POSITIVE_BIT),
    (NEGATIVE, NEGATIVE_BIT),
];

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

/// Bytes a literal can hold, as trie columns: letters (either case: the value is read
/// lower-cased), digits and '-'.
const CLASSES: usize = 37;

fn class(byte: u8) -> Option<usize> {
    match byte.to_ascii_lowercase() {
        b @ b'a'..=b'z' => Some(usize::from(b - b'a')),
        b @ b'0'..=b'9' => Some(26 + usize::from(b - b'0')),
        b'-' => Some(36),
        _ => None,
    }
}

/// The literals as a byte trie: `next[node][class]` is the child (0: none; the root, node 0,
/// is no one's child) and `ends[node]` the bits of the literal ending there, if one does. A
/// literal counts for every group with a literal inside it ("pagination" holds "page").
struct Trie {
    next: Vec<[u16; CLASSES]>,
    ends: Vec<Option<u8>>,
}

fn trie() -> &'static Trie {
    static TRIE: OnceLock<Trie> = OnceLock::new();
    TRIE.get_or_init(|| {
        let mut trie = Trie {
            next: vec![[0; CLASSES]],
            ends: vec![None],
        };
        for (group, _) in GROUPS {
            for literal in group {
                let bits = GROUPS
                    .iter()
                    .filter(|(other, _)| other.iter().any(|g| literal.contains(g)))
                    .fold(0, |acc, (_, bit)| acc | bit);
                let mut node = 0;
                for &byte in literal.as_bytes() {
                    // every literal byte has a class (checked by the unit tests)
                    let column = class(byte).unwrap_or(0);
                    if trie.next[node][column] == 0 {
                        trie.next[node][column] = trie.next.len() as u16;
                        trie.next.push([0; CLASSES]);
                        trie.ends.push(None);
                    }
                    node = usize::from(trie.next[node][column]);
                }
                trie.ends[node] = Some(bits);
            }
        }
        trie
    })
}

impl Trie {
    /// The end and bits of the longest literal starting at `bytes[0]`, if one does.
    fn longest(&self, bytes: &[u8]) -> Option<(usize, u8)> {
        let (mut node, mut found) = (0usize, None);
        for (length, &byte) in bytes.iter().enumerate() {
            let Some(column) = class(byte) else { break };
            node = usize::from(self.next[node][column]);
            if node == 0 {
                break;
            }
            if let Some(bits) = self.ends[node] {
                found = Some((length + 1, bits));
            }
        }
        found
    }
}

/// The Readability pattern groups (`*_BIT`) an id or class value matches: the literals found
/// by one left-to-right scan of the lower-cased value, taking the longest literal at each
/// position and going on after it (non-overlapping matches, as `re.findall` gives them).
/// An ASCII value is read as it is (its letters folded by the trie); any other is lower-cased
/// first, as Python does (the Kelvin sign becomes an ASCII k).
pub fn pattern_bits(value: &str) -> u8 {
    let lowered: Cow<str> = if value.is_ascii() {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(value.to_lowercase())
    };
    let bytes = lowered.as_bytes();
    let trie = trie();
    let mut bits = 0;
    let mut at = 0;
    while at < bytes.len() {
        match trie.longest(&bytes[at..]) {
            Some((length, literal_bits)) => {
                bits |= literal_bits;
                at += length;
            }
            None => at += 1,
        }
    }
    if lowered
        .split(is_space)
        .any(|word| word.eq_ignore_ascii_case(NEGATIVE_WORD))
    {
        bits |= NEGATIVE_BIT;
    }
    bits
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
    let paragraph = paragraph_blocks(doc, &tree.tags);
    let bits = holding_bits(&tree, facts, &paragraph);
    let (weights, removed) = cues(&tree, facts, &bits);
    let points = paragraph_points(doc, &paragraph, &removed);
    let link_density: Vec<f64> = facts
        .subtree_link_chars
        .iter()
        .zip(&facts.subtree_chars)
        .map(|(links, chars)| links / chars.max(1.0))
        .collect();
    let candidates = score_candidates(doc, &tree, &points, &weights, &link_density);
    let mut out = vec![0.0f32; n * width];
    for (row, p) in out.chunks_exact_mut(width).zip(&points) {
        row[0] = p.ln_1p() as f32;
    }
    if !candidates.touched.iter().any(|&t| t) {
        return out;
    }
    let top = climb(best(&candidates.score), &candidates, &tree);
    let top_score = candidates.score[top].max(1e-6);
    let in_top = tree.blocks(top);
    let article = article_blocks(doc, &tree, facts, top, &candidates, &link_density, &removed);
    let share = facts.subtree_chars[top] / facts.subtree_chars[0].max(1.0);
    for (i, (row, block)) in out.chunks_exact_mut(width).zip(&doc.blocks).enumerate() {
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
mod tests {
    use super::*;
    use crate::features::tree::{tree_facts, TreeParams};
    use crate::{build, parse, Limits};

    const PROSE: &str = "The river rose, as it does, over the old wall, and the town, which had \
        seen it before, moved its carts uphill; nobody, in the end, was hurt, and the market opened late.";

    struct Page {
        dom: Dom,
        doc: Document,
        facts: TreeFacts,
    }

    fn page(body: &str) -> Page {
        let dom = parse(
            &format!("<html><body>{body}</body></html>"),
            Limits::default(),
        );
        let doc = build(&dom);
        let facts = tree_facts(&dom, &doc, true, &TreeParams::default());
        Page { dom, doc, facts }
    }

    impl Page {
        fn tree(&self) -> Tree<'_> {
            Tree {
                tags: self.doc.nodes.iter().map(|&n| self.dom.tag(n)).collect(),
                raw_parents: &self.doc.parents,
                parents: &self.facts.parents,
                first: &self.doc.first_blocks,
                end: &self.doc.end_blocks,
            }
        }

        /// Candidate scores with no class weights, link densities or removals.
        fn raw_candidates(&self) -> Candidates {
            let tree = self.tree();
            let none = vec![0.0; self.doc.len()];
            let paragraph = paragraph_blocks(&self.doc, &tree.tags);
            let points = paragraph_points(&self.doc, &paragraph, &vec![false; self.doc.len()]);
            score_candidates(&self.doc, &tree, &points, &none, &none)
        }

        fn with_id(&self, id: &str) -> usize {
            let slot = self
                .facts
                .values
                .iter()
                .position(|v| v.as_deref() == Some(id))
                .unwrap();
            self.facts
                .id_slot
                .iter()
                .position(|&s| s == slot as i64)
                .unwrap()
        }

        fn columns(&self) -> Vec<Vec<f32>> {
            candidate_columns(&self.dom, &self.doc, &self.facts)
                .chunks(NAMES.len())
                .map(<[f32]>::to_vec)
                .collect()
        }
    }

    #[test]
    fn pattern_bits_follow_readabilitys_groups() {
        let all = UNLIKELY_BIT | MAYBE_BIT | POSITIVE_BIT | NEGATIVE_BIT;
        assert_eq!(pattern_bits("post-content sidebar"), all);
        assert_eq!(pattern_bits("pagination"), UNLIKELY_BIT | POSITIVE_BIT); // holds "page"
        assert_eq!(pattern_bits("SideBar-Left"), UNLIKELY_BIT | NEGATIVE_BIT);
        assert_eq!(pattern_bits("top-ad-slot"), UNLIKELY_BIT | NEGATIVE_BIT);
        assert_eq!(pattern_bits("articleBody"), MAYBE_BIT | POSITIVE_BIT);
        assert_eq!(pattern_bits("wrapper grid"), 0);
        assert_eq!(pattern_bits(""), 0);
        // the longest literal at a position wins and the scan goes on after it: "comment",
        // not "com-"; "bandage" holds "and" (maybe) after "b"
        assert_eq!(pattern_bits("comment"), UNLIKELY_BIT | NEGATIVE_BIT);
        assert_eq!(pattern_bits("bandage"), MAYBE_BIT);
        // Unicode lower-casing: the Kelvin sign becomes an ASCII k
        assert_eq!(
            pattern_bits("s\u{212a}yscraper"),
            UNLIKELY_BIT | NEGATIVE_BIT
        );
    }

    #[test]
    fn every_literal_is_in_the_trie_with_its_groups() {
        for (group, bit) in GROUPS {
            for literal in group {
                assert!(literal.bytes().all(|b| class(b).is_some()), "{literal}");
                let (length, bits) = trie().longest(literal.as_bytes()).unwrap();
                assert_eq!(length, literal.len());
                assert!(bits & bit != 0, "{literal}");
            }
        }
        assert!(trie().next.len() < usize::from(u16::MAX));
    }

    #[test]
    fn hid_is_negative_only_as_a_whole_word() {
        assert_eq!(pattern_bits("box hid"), NEGATIVE_BIT);
        assert_eq!(pattern_bits("box\u{a0}HID"), NEGATIVE_BIT);
        assert_eq!(pattern_bits("hidx"), 0);
    }

    #[test]
    fn inherited_flags_reach_every_descendant_of_a_deep_chain() {
        let n = 10_000;
        let parents: Vec<i64> = (0..n as i64).map(|i| i - 1).collect();
        let mut flags = vec![false; n];
        flags[5_000] = true;
        let out = inherited(flags, &parents);
        assert!(out[..5_000].iter().all(|&f| !f) && out[5_000..].iter().all(|&f| f));
    }

    #[test]
    fn sentence_ends_are_a_stop_before_a_space_or_the_end() {
        assert!(has_sentence_end("Ends here."));
        assert!(has_sentence_end("One. Two"));
        assert!(has_sentence_end("Ends here.\n"));
        assert!(!has_sentence_end("Ends here.\n\n"));
        assert!(!has_sentence_end("3.14 is pi"));
    }

    #[test]
    fn climb_moves_through_parents_of_which_the_candidate_is_the_only_child() {
        let page = page(&format!(
            "<div id=outer><div id=inner><div id=holder><p>{PROSE}</p><p>{PROSE}</p></div></div></div><p>x</p>"
        ));
        let candidates = page.raw_candidates();
        let holder = page.with_id("holder");
        assert_eq!(best(&candidates.score), holder);
        assert_eq!(
            climb(holder, &candidates, &page.tree()),
            page.with_id("outer")
        );
    }

    #[test]
    fn climb_moves_to_an_ancestor_that_outscores_the_last_one_passed() {
        // t: 5 + 2 * 10 = 25; its parent p: 5 + 2 * 10 / 2 = 15 (over a third of 25, so the
        // climb goes on); g: 5 + 2 * 10 / 6 from t's paragraphs + 2 * 10 / 2 from s's, more than 15
        let two = format!("<p>{PROSE}</p><p>{PROSE}</p>");
        let page = page(&format!(
            "<div id=g><div id=p><div id=t>{two}</div></div><div id=s>{two}</div></div><p>x</p>"
        ));
        let candidates = page.raw_candidates();
        let (t, p, g) = (page.with_id("t"), page.with_id("p"), page.with_id("g"));
        let expected = [25.0, 15.0, 5.0 + 20.0 / 6.0 + 10.0];
        for (e, want) in [t, p, g].into_iter().zip(expected) {
            assert!((candidates.score[e] - want).abs() < 1e-9);
        }
        assert_eq!(best(&candidates.score), t);
        assert_eq!(climb(t, &candidates, &page.tree()), g);
    }

    #[test]
    fn the_article_container_is_the_top_candidate_and_the_sidebar_is_not() {
        let page = page(&format!(
            "<div class=article-body><p>{PROSE}</p><p>{PROSE}</p><p>{PROSE}</p></div>\
             <div class=sidebar><p>Sidebar: {PROSE}</p></div><ul><li><a href=/a>Home</a></li></ul>"
        ));
        let cols = page.columns();
        assert_eq!(cols.len(), 5);
        assert_eq!((cols[0][1], cols[0][2], cols[0][3]), (1.0, 1.0, 1.0));
        assert!(cols[0][0] > 0.0);
        // the sidebar's paragraph is dropped before scoring; list items are never paragraphs
        assert_eq!(&cols[3][..3], &[0.0, 0.0, 0.0]);
        assert_eq!(&cols[4][..2], &[0.0, 0.0]);
    }

    #[test]
    fn a_page_without_paragraphs_gets_zero_columns() {
        let page = page("<ul><li>Home</li><li>About</li></ul>");
        assert!(page.columns().iter().flatten().all(|&v| v == 0.0));
        let empty = page_of_nothing();
        assert!(empty.is_empty());
    }

    fn page_of_nothing() -> Vec<f32> {
        let page = page("");
        candidate_columns(&page.dom, &page.doc, &page.facts)
    }

    #[test]
    fn deeply_nested_page_is_scored_without_recursion() {
        let depth = 20_000;
        let page = page(&format!(
            "{}<p>{PROSE}</p>{}",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        ));
        let cols = page.columns();
        assert_eq!(cols.len(), 1);
        assert_eq!(cols[0][1], 1.0);
    }
}
