//! Per-element facts of the tree: own facts (id and class tokens, cue words, hiding
//! attributes, roles) and facts inherited down the path or summed over the subtree.
//!
//! Elements are in pre-order, so a parent is always handled before its children and
//! one pass in order propagates anything down the tree; no recursion.

use crate::hash::{HashMap, HashMapExt, HashSet};

use crate::document::{held_attributes, Document};
use crate::dom::{attr_value, Dom};
use crate::hidden::hidden_by;

/// What the facts are computed with (the Python layer's constants, handed over once).
#[derive(Clone, Debug, Default)]
pub struct TreeParams {
    /// Tags whose presence on the path sets bit i of `context_bits` (i: the tag's position).
    pub context_tags: Vec<String>,
    pub negative_cues: HashSet<String>,
    pub positive_cues: HashSet<String>,
    /// Distance given when no ancestor holds a cue.
    pub max_cue_distance: i64,
}

/// The facts of every element (columns indexed by element).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeFacts {
    pub context_bits: Vec<i64>,
    pub neg_distance: Vec<i64>,
    pub pos_distance: Vec<i64>,
    pub subtree_chars: Vec<f64>,
    pub subtree_link_chars: Vec<f64>,
    pub same_sibling_count: Vec<i64>,
    /// (elements × 2): hashes of the (tag, class) path and of the tag path.
    pub paths: Vec<u64>,
    pub hidden: Vec<bool>,
    /// (element, its non-empty `role` attribute).
    pub roles: Vec<(usize, String)>,
    /// Parent of each element, the root its own parent.
    pub parents: Vec<i64>,
    /// Distinct id and class values, `None` (no such attribute) included: slot i is `values[i]`.
    pub values: Vec<Option<String>>,
    /// The tokens of each slot's value.
    pub tokens: Vec<Vec<String>>,
    pub id_slot: Vec<i64>,
    pub class_slot: Vec<i64>,
}

/// Lower-cased runs of ASCII letters and digits: the tokens of an id or class value.
pub fn split_tokens(raw: &str) -> Vec<String> {
    raw.to_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Slots for distinct attribute values (borrowed from the DOM), in the order they are first met.
#[derive(Default)]
struct Slots<'a> {
    index: HashMap<&'a str, usize>,
    /// The slot of `None` (no such attribute, most elements), kept apart from the map.
    none: Option<usize>,
    values: Vec<Option<&'a str>>,
}

impl<'a> Slots<'a> {
    fn slot(&mut self, raw: Option<&'a str>) -> usize {
        let next = self.values.len();
        let slot = match raw {
            None => *self.none.get_or_insert(next),
            Some(value) => *self.index.entry(value).or_insert(next),
        };
        if slot == next {
            self.values.push(raw);
        }
        slot
    }
}

const SCATTER: u64 = 0x9E37_79B9_7F4A_7C15;
const DEPTH: u64 = 0xC4CE_B9FE_1A85_EC53;
const PATH_BASE: u64 = 0xFF51_AFD7_ED55_8CCD;

/// Per element and code column: a hash of the codes on its path from the root, built by
/// pointer jumping (each step joins the stretch of `reach` ancestors to its `reach`-th
/// ancestor's, the root's stretch repeating the root), in wrapping 64-bit arithmetic.
///
/// After the steps, element i's hash is the sum over k < R of `start(anc_k(i)) * B^k`
/// (B: `PATH_BASE`; `anc_k`: the k-th ancestor, a root its own; R: the reach, the first power
/// of two above the deepest depth), so when parents come before their children and no path
/// is longer than R, one pass in order gives it: a root's is `start(root) * (1 + B + ... +
/// B^(R-1))`, and another element's is `start(i) + B * hash(parent) - start(root) * B^R`.
/// Other element orders are jumped as described.
pub fn path_hashes(codes: &[[u64; 2]], parents: &[usize], depths: &[i64]) -> Vec<u64> {
    let n = codes.len();
    let start = |i: usize| {
        let depth = depths[i] as u64;
        codes[i].map(|code| {
            (code.wrapping_add(1))
                .wrapping_mul(SCATTER)
                .wrapping_add(depth.wrapping_add(1).wrapping_mul(DEPTH))
        })
    };
    let deepest = depths.iter().copied().max().unwrap_or(0);
    // R, B^R and 1 + B + ... + B^(R-1), as the jumping steps build them.
    let (mut reach, mut power, mut sum) = (1i64, PATH_BASE, 1u64);
    while reach <= deepest {
        sum = sum.wrapping_add(sum.wrapping_mul(power));
        power = power.wrapping_mul(power);
        reach *= 2;
    }
    let mut hashes = vec![0u64; 2 * n];
    let mut level = vec![0i64; n];
    let mut root = vec![0usize; n];
    for i in 0..n {
        crate::budget::check();
        let p = parents[i];
        let own = start(i);
        if p == i {
            root[i] = i;
            for k in 0..2 {
                hashes[2 * i + k] = own[k].wrapping_mul(sum);
            }
        } else if p < i && level[p] < reach {
            (level[i], root[i]) = (level[p] + 1, root[p]);
            let top = start(root[i]);
            for k in 0..2 {
                hashes[2 * i + k] = own[k]
                    .wrapping_add(PATH_BASE.wrapping_mul(hashes[2 * p + k]))
                    .wrapping_sub(top[k].wrapping_mul(power));
            }
        } else {
            return path_hashes_by_jumping(codes, parents, depths);
        }
    }
    hashes
}

/// [`path_hashes`] by the pointer-jumping steps themselves (any element order).
fn path_hashes_by_jumping(codes: &[[u64; 2]], parents: &[usize], depths: &[i64]) -> Vec<u64> {
    let n = codes.len();
    let mut hashes: Vec<u64> = (0..n)
        .flat_map(|i| {
            let depth = depths[i] as u64;
            codes[i].map(|code| {
                (code.wrapping_add(1))
                    .wrapping_mul(SCATTER)
                    .wrapping_add(depth.wrapping_add(1).wrapping_mul(DEPTH))
            })
        })
        .collect();
    let deepest = depths.iter().copied().max().unwrap_or(0);
    let (mut up, mut power, mut reach) = (parents.to_vec(), PATH_BASE, 1i64);
    while reach <= deepest {
        let previous = hashes.clone();
        for i in 0..n {
            for k in 0..2 {
                hashes[2 * i + k] =
                    previous[2 * i + k].wrapping_add(previous[2 * up[i] + k].wrapping_mul(power));
            }
        }
        power = power.wrapping_mul(power);
        up = up.iter().map(|&u| up[u]).collect();
        reach *= 2;
    }
    hashes
}

/// The facts of `doc`'s elements. Without `attributes`, only `<html>`'s and the skipped
/// elements' attributes are read, as the Python document holds them then.
// Each pass reads several columns of element i at once; an index reads clearer than zips.
#[allow(clippy::needless_range_loop)]
pub fn tree_facts(dom: &Dom, doc: &Document, attributes: bool, params: &TreeParams) -> TreeFacts {
    let n = doc.len();
    let tags: Vec<&str> = doc.nodes.iter().map(|&node| dom.tag(node)).collect();
    let mut slots = Slots::default();
    let mut facts = TreeFacts {
        parents: (0..n)
            .map(|i| {
                if doc.parents[i] < 0 {
                    i as i64
                } else {
                    doc.parents[i]
                }
            })
            .collect(),
        ..TreeFacts::default()
    };
    for i in 0..n {
        crate::budget::check();
        let attrs = held_attributes(dom, doc, i, attributes);
        facts
            .id_slot
            .push(slots.slot(attr_value(attrs, "id")) as i64);
        facts
            .class_slot
            .push(slots.slot(attr_value(attrs, "class")) as i64);
        facts.hidden.push(hidden_by(attrs));
        if let Some(role) = attr_value(attrs, "role").filter(|r| !r.is_empty()) {
            facts.roles.push((i, role.to_owned()));
        }
    }
    facts.tokens = slots
        .values
        .iter()
        .map(|v| {
            crate::budget::check();
            v.as_deref().map(split_tokens).unwrap_or_default()
        })
        .collect();
    facts.values = slots.values.iter().map(|v| v.map(str::to_owned)).collect();
    // Each pass below is one cheap visit of the elements: the budget is read between.
    crate::budget::checkpoint();
    let holds = |cues: &HashSet<String>| -> Vec<bool> {
        facts
            .tokens
            .iter()
            .map(|tokens| tokens.iter().any(|t| cues.contains(t)))
            .collect()
    };
    let (negative, positive) = (holds(&params.negative_cues), holds(&params.positive_cues));
    crate::budget::checkpoint();
    let far = params.max_cue_distance;
    let bit: HashMap<&str, i64> = params
        .context_tags
        .iter()
        .enumerate()
        .map(|(k, t)| (t.as_str(), 1i64 << k))
        .collect();
    // The first element with the same tag (its code), and per such element its tag's bit:
    // one look-up per distinct tag.
    let mut first_tag: HashMap<&str, usize> = HashMap::new();
    // Element indices are below u32::MAX: the DOM numbers its nodes with u32.
    let tag_kind: Vec<u32> = (0..n)
        .map(|i| *first_tag.entry(tags[i]).or_insert(i) as u32)
        .collect();
    drop(first_tag);
    let mut kind_bits = vec![0i64; n];
    crate::budget::checkpoint();
    facts.context_bits.reserve(n);
    facts.neg_distance.reserve(n);
    facts.pos_distance.reserve(n);
    for i in 0..n {
        crate::budget::check();
        let kind = tag_kind[i] as usize;
        if kind == i {
            kind_bits[i] = bit.get(tags[i]).copied().unwrap_or(0);
        }
        let (id, class) = (facts.id_slot[i] as usize, facts.class_slot[i] as usize);
        let mut bits = kind_bits[kind];
        let mut neg = if negative[id] || negative[class] {
            0
        } else {
            far
        };
        let mut pos = if positive[id] || positive[class] {
            0
        } else {
            far
        };
        let parent = doc.parents[i];
        if parent >= 0 {
            let p = parent as usize;
            let gap = doc.depths[i] - doc.depths[p];
            bits |= facts.context_bits[p];
            facts.hidden[i] |= facts.hidden[p];
            neg = neg.min(gap + facts.neg_distance[p]);
            pos = pos.min(gap + facts.pos_distance[p]);
        }
        facts.context_bits.push(bits);
        facts.neg_distance.push(neg);
        facts.pos_distance.push(pos);
    }
    // Each transient column goes as soon as it is read for the last time: on a page of a
    // million elements each is several MB.
    drop((tags, kind_bits, negative, positive));
    let mut cum_chars = Vec::with_capacity(doc.blocks.len() + 1);
    let mut cum_links = Vec::with_capacity(doc.blocks.len() + 1);
    cum_chars.push(0.0f64);
    cum_links.push(0.0f64);
    for block in &doc.blocks {
        cum_chars.push(cum_chars.last().unwrap() + f64::from(block.chars));
        cum_links.push(cum_links.last().unwrap() + f64::from(block.link_chars));
    }
    crate::budget::checkpoint();
    facts.subtree_chars.reserve(n);
    facts.subtree_link_chars.reserve(n);
    for i in 0..n {
        let (first, end) = (doc.first_blocks[i] as usize, doc.end_blocks[i] as usize);
        facts.subtree_chars.push(cum_chars[end] - cum_chars[first]);
        facts
            .subtree_link_chars
            .push(cum_links[end] - cum_links[first]);
    }
    drop((cum_chars, cum_links));
    crate::budget::checkpoint();
    // Codes: the first element with the same (tag, class value).
    let mut first_kind: HashMap<(u32, i64), u32> = HashMap::new();
    let kind: Vec<u32> = (0..n)
        .map(|i| {
            crate::budget::check();
            *first_kind
                .entry((tag_kind[i], facts.class_slot[i]))
                .or_insert(i as u32)
        })
        .collect();
    drop(first_kind);
    // Siblings of the same kind: one group per (parent, kind), counted.
    let mut groups: HashMap<(i64, u32), u32> = HashMap::new();
    let group: Vec<u32> = (0..n)
        .map(|i| {
            crate::budget::check();
            let next = groups.len() as u32;
            *groups.entry((doc.parents[i], kind[i])).or_insert(next)
        })
        .collect();
    let distinct = groups.len();
    drop(groups);
    crate::budget::checkpoint();
    let mut count = vec![0i64; distinct];
    for &g in &group {
        count[g as usize] += 1;
    }
    facts.same_sibling_count = group.iter().map(|&g| count[g as usize] - 1).collect();
    drop((group, count));
    crate::budget::checkpoint();
    let codes: Vec<[u64; 2]> = (0..n)
        .map(|i| [u64::from(kind[i]), u64::from(tag_kind[i])])
        .collect();
    drop((kind, tag_kind));
    crate::budget::checkpoint();
    let parents: Vec<usize> = facts.parents.iter().map(|&p| p as usize).collect();
    crate::budget::checkpoint();
    facts.paths = path_hashes(&codes, &parents, &doc.depths);
    facts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build, parse, Limits};

    #[test]
    fn slots_number_values_and_none_in_the_order_first_met() {
        let mut slots = Slots::default();
        let met = [
            Some("a"),
            None,
            Some("b"),
            Some("a"),
            None,
            Some(""),
            Some("b"),
        ];
        let numbered: Vec<usize> = met.iter().map(|&v| slots.slot(v)).collect();
        assert_eq!(numbered, [0, 1, 2, 0, 1, 3, 2]);
        assert_eq!(slots.values, [Some("a"), None, Some("b"), Some("")]);
    }

    fn params() -> TreeParams {
        TreeParams {
            context_tags: vec!["nav".into(), "li".into()],
            negative_cues: ["sidebar".to_owned()].into_iter().collect(),
            positive_cues: ["content".to_owned()].into_iter().collect(),
            max_cue_distance: 30,
        }
    }

    #[test]
    fn path_hashes_in_one_pass_are_the_jumped_ones() {
        let mut state = 11u64;
        let mut next = |below: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            ((state >> 33) % below) as usize
        };
        for n in [0usize, 1, 2, 3, 7, 40, 300] {
            // A random tree in pre-order (parents first), depths one per level or with gaps,
            // sometimes with a second root.
            let mut parents: Vec<usize> = Vec::new();
            let mut depths: Vec<i64> = Vec::new();
            for i in 0..n {
                let root = i == 0 || next(50) == 0;
                let p = if root { i } else { next(i as u64) };
                parents.push(p);
                depths.push(if root {
                    0
                } else {
                    depths[p] + 1 + (next(4) == 0) as i64
                });
            }
            let codes: Vec<[u64; 2]> = (0..n).map(|_| [next(5) as u64, next(3) as u64]).collect();
            assert_eq!(
                path_hashes(&codes, &parents, &depths),
                path_hashes_by_jumping(&codes, &parents, &depths)
            );
        }
        // Paths longer than the depths say: jumped.
        let codes = [[1, 2], [3, 4], [5, 6]];
        assert_eq!(
            path_hashes(&codes, &[0, 0, 1], &[0, 0, 0]),
            path_hashes_by_jumping(&codes, &[0, 0, 1], &[0, 0, 0])
        );
        // Parents after their children: jumped.
        let codes = [[1, 2], [3, 4], [5, 6]];
        assert_eq!(
            path_hashes(&codes, &[1, 1, 0], &[1, 0, 2]),
            path_hashes_by_jumping(&codes, &[1, 1, 0], &[1, 0, 2])
        );
    }

    #[test]
    fn tokens_are_lower_cased_alphanumeric_runs() {
        assert_eq!(
            split_tokens("Main-Content post_2 \u{212a}elvin"),
            ["main", "content", "post", "2", "kelvin"]
        );
        assert!(split_tokens("").is_empty());
    }

    #[test]
    fn facts_flow_down_and_sum_up() {
        let dom = parse(
            "<div class='sidebar'><nav><ul><li>one</li><li>two</li></ul></nav></div>\
             <div id='content' hidden><p>text here</p></div>",
            Limits::default(),
        );
        let doc = build(&dom);
        let facts = tree_facts(&dom, &doc, true, &params());
        let li = (0..doc.len())
            .filter(|&i| dom.tag(doc.nodes[i]) == "li")
            .collect::<Vec<_>>();
        assert_eq!(facts.context_bits[li[0]], 3); // inside nav, and itself an li
        assert_eq!(facts.neg_distance[li[0]], 3); // sidebar div, nav, ul, li
        assert_eq!(facts.same_sibling_count[li[0]], 1);
        assert_eq!(facts.paths[2 * li[0]], facts.paths[2 * li[1]]);
        let p = (0..doc.len())
            .find(|&i| dom.tag(doc.nodes[i]) == "p")
            .unwrap();
        assert!(facts.hidden[p] && facts.pos_distance[p] == 1);
        assert_eq!(facts.subtree_chars[0], 15.0); // "one" + "two" + "text here"
        let content = facts
            .values
            .iter()
            .position(|v| v.as_deref() == Some("content"))
            .unwrap();
        assert_eq!(
            facts
                .id_slot
                .iter()
                .filter(|&&s| s == content as i64)
                .count(),
            1
        );
    }
}
