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
