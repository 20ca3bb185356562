//! The kept blocks to write, completed and tidied, and their plain text.
//!
//! An algorithm labels blocks; [`select`] turns the labels into what every output format
//! writes (``thresher.render.selection`` describes each rule): data tables kept whole, lists
//! between kept blocks completed, self-anchored section headings and ``<summary>``s that open
//! kept content, headings without their ``[edit]`` links, and nothing at all when the kept
//! text is navigation only. [`plain_text`] writes a selection as the text output: one
//! paragraph per block, a run of one ``pre`` as one paragraph, a whole table as a caption and
//! a line per row. Python's renderers read the same selection; only the Unicode
//! normalisation (NFC) of the text is left to the caller, over the whole string (NFC composes
//! nothing across the line breaks, spaces and bars between the parts).

use crate::document::{held_attributes, Document};
use crate::dom::{attr_value, Dom};
use crate::hash::{HashMap, HashMapExt, HashSet};

/// The selection's thresholds (``thresher.render.selection.SelectionParams``).
#[derive(Clone, Copy, Debug)]
pub struct SelectionParams {
    pub navigation_max_words: u64,
    pub navigation_min_link_density: f64,
    pub table_max_cell_chars: u32,
    pub table_max_link_density: f64,
    pub table_min_kept_share: f64,
    pub short_list_max_blocks: i64,
    pub list_max_link_density: f64,
    pub heading_min_link_density: f64,
}

impl Default for SelectionParams {
    fn default() -> Self {
        SelectionParams {
            navigation_max_words: 20,
            navigation_min_link_density: 0.7,
            table_max_cell_chars: 400,
            table_max_link_density: 0.5,
            table_min_kept_share: 0.5,
            short_list_max_blocks: 4,
            list_max_link_density: 0.5,
            heading_min_link_density: 0.5,
        }
    }
}

/// A heading block's text and spans once its edit links are gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tidied {
    pub text: String,
    /// (text, element) of each span left, none empty.
    pub spans: Vec<(String, u32)>,
}

/// The blocks to write, in document order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    pub blocks: Vec<u32>,
    /// Headings of `blocks` whose text the tidying changed, by block index.
    pub tidied: Vec<(u32, Tidied)>,
    /// Table elements every block of which is in `blocks`, ascending.
    pub tables: Vec<u32>,
    /// The last block is a heading, written as a plain paragraph (a dangling title).
    pub last_heading_plain: bool,
}

/// Characters that are no visible text (``thresher.render.common``'s invisible characters).
const INVISIBLE: [char; 6] = [
    '\u{ad}', '\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}', '\u{feff}',
];

fn is_invisible(c: char) -> bool {
    INVISIBLE.contains(&c)
}

/// Python's ``str.isspace``: Unicode White_Space and the four information separators.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's ``" ".join(text.split())``.
pub fn normalize_space(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(is_py_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

/// ``text`` without its invisible characters; a space before a run of them that a space
/// follows goes too (``thresher.render.common.clean_text`` before its NFC step).
pub fn without_invisible(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() || !text.contains(is_invisible) {
        return std::borrow::Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ' ' && chars.get(i + 1).is_some_and(|&n| is_invisible(n)) {
            let mut end = i + 1;
            while end < chars.len() && is_invisible(chars[end]) {
                end += 1;
            }
            if chars.get(end) == Some(&' ') {
                i = end;
                continue;
            }
        }
        if !is_invisible(c) {
            out.push(c);
        }
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

/// What the selection reads of a page: its DOM, document and which attributes it holds.
pub struct PageView<'a> {
    pub dom: &'a Dom,
    pub doc: &'a Document,
    /// Whether every element's attributes are held (else only ``<html>``'s and the skipped
    /// elements': see [`held_attributes`]).
    pub attributes: bool,
}

impl PageView<'_> {
    fn tag(&self, element: usize) -> &str {
        self.dom.tag(self.doc.nodes[element])
    }

    fn attr(&self, element: usize, name: &str) -> Option<&str> {
        attr_value(
            held_attributes(self.dom, self.doc, element, self.attributes),
            name,
        )
    }

    fn has_tag(&self, tag: &str) -> bool {
        self.doc.nodes.iter().any(|&node| self.dom.tag(node) == tag)
    }

    fn nearest(&self, tags: &[&str]) -> Vec<i64> {
        let tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
        self.doc.nearest(self.dom, &tags)
    }

    /// The index after the last element of `element`'s subtree.
    fn subtree_end(&self, element: usize) -> usize {
        let depths = &self.doc.depths;
        let mut end = element + 1;
        while end < depths.len() && depths[end] > depths[element] {
            end += 1;
        }
        end
    }

    fn block_range(&self, element: usize) -> std::ops::Range<usize> {
        let first = usize::try_from(self.doc.first_blocks[element]).unwrap_or(0);
        let end = usize::try_from(self.doc.end_blocks[element]).unwrap_or(0);
        first..end.max(first)
    }

    fn link_density(&self, block: usize) -> f64 {
        let b = &self.doc.blocks[block];
        if b.chars == 0 {
            0.0
        } else {
            f64::from(b.link_chars) / f64::from(b.chars)
        }
    }

    fn block_tag(&self, block: usize) -> &str {
        self.tag(self.doc.blocks[block].element as usize)
    }
}

fn element_of(value: i64) -> Option<usize> {
    usize::try_from(value).ok()
}

/// The selection of `keep` (one label per block): see the module's description.
pub fn select(page: &PageView<'_>, keep: &[bool], params: &SelectionParams) -> Selection {
    let doc = page.doc;
    let n = doc.blocks.len().min(keep.len());
    let mut keep: Vec<bool> = keep[..n].to_vec();
    let tables = whole_tables(page, &keep, params);
    for &table in &tables {
        for i in page.block_range(table as usize) {
            keep[i] = true;
        }
    }
    for i in whole_lists(page, &keep, params) {
        keep[i] = true;
    }
    for i in opening_headings(page, &keep, params) {
        keep[i] = true;
    }
    let mut blocks = Vec::new();
    let mut tidied = Vec::new();
    let mut words = 0u64;
    let mut navigation = true;
    for (i, _) in keep.iter().enumerate().filter(|(_, k)| **k) {
        crate::budget::check();
        let block = &doc.blocks[i];
        let mut text = block.text.as_str();
        let tidy = if block.is_heading {
            tidy_heading(page, i)
        } else {
            None
        };
        if let Some(t) = &tidy {
            text = &t.text;
        }
        if block.is_heading && text.chars().all(|c| is_invisible(c) || is_py_space(c)) {
            continue; // a heading left empty is not written
        }
        if navigation {
            words += u64::from(block.words);
            if words >= params.navigation_max_words
                || page.link_density(i) < params.navigation_min_link_density
            {
                navigation = false;
            }
        }
        blocks.push(i as u32);
        if let Some(t) = tidy {
            tidied.push((i as u32, t));
        }
    }
    if navigation && !blocks.is_empty() {
        return Selection::default();
    }
    let last_heading_plain = blocks
        .last()
        .is_some_and(|&i| doc.blocks[i as usize].is_heading);
    Selection {
        blocks,
        tidied,
        tables,
        last_heading_plain,
    }
}

// -- whole tables

fn whole_tables(page: &PageView<'_>, keep: &[bool], params: &SelectionParams) -> Vec<u32> {
    if !page.has_tag("table") {
        return Vec::new();
    }
    let table = page.nearest(&["table"]);
    let mut touched: Vec<usize> = page
        .doc
        .blocks
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .filter_map(|(block, _)| element_of(table[block.element as usize]))
        .collect();
    touched.sort_unstable();
    touched.dedup();
    touched
        .into_iter()
        .filter(|&t| {
            (mostly_kept(page, keep, t, params) || between_kept(page, keep, t))
                && is_data_table(page, &table, t, params)
        })
        .map(|t| t as u32)
        .collect()
}

fn between_kept(page: &PageView<'_>, keep: &[bool], element: usize) -> bool {
    let range = page.block_range(element);
    range.start > 0 && range.end < keep.len() && keep[range.start - 1] && keep[range.end]
}

fn mostly_kept(
    page: &PageView<'_>,
    keep: &[bool],
    element: usize,
    params: &SelectionParams,
) -> bool {
    let range = page.block_range(element);
    let size = range.len() as f64;
    let kept = keep[range].iter().filter(|k| **k).count() as f64;
    kept >= params.table_min_kept_share * size
}

fn is_data_table(
    page: &PageView<'_>,
    table: &[i64],
    element: usize,
    params: &SelectionParams,
) -> bool {
    if !has_cells(page, table, element, 2) {
        return false;
    }
    let (mut chars, mut link_chars) = (0u64, 0u64);
    for block in &page.doc.blocks[page.block_range(element)] {
        if table[block.element as usize] != element as i64
            || block.chars > params.table_max_cell_chars
        {
            return false;
        }
        chars += u64::from(block.chars);
        link_chars += u64::from(block.link_chars);
    }
    chars > 0 && link_chars as f64 <= params.table_max_link_density * chars as f64
}

fn is_cell_tag(tag: &str) -> bool {
    tag == "td" || tag == "th"
}

fn has_cells(page: &PageView<'_>, table: &[i64], element: usize, count: usize) -> bool {
    let end = page.subtree_end(element);
    let mut cells = (element + 1..end)
        .zip(&table[element + 1..end])
        .filter(|&(i, &t)| t == element as i64 && is_cell_tag(page.tag(i)));
    cells.nth(count.saturating_sub(1)).is_some()
}

// -- whole lists

/// The dropped blocks of lists in content, each kept whole: an outermost `ul`/`ol` whose
/// neighbouring blocks are both kept, not all of whose blocks are, and either short (at most
/// `short_list_max_blocks` blocks) and not mostly links, or of any length with a kept block and
/// not mostly links or with all its links into the page (a table of contents). In a long list
/// only the items with no kept block come back: inside an item the algorithm kept, its choices
/// stand. A list of links out of the page ("Related") is not completed.
fn whole_lists(page: &PageView<'_>, keep: &[bool], params: &SelectionParams) -> Vec<usize> {
    if !page.has_tag("li") {
        return Vec::new();
    }
    let doc = page.doc;
    let lists = page.nearest(&["ul", "ol"]);
    let mut items: Option<Vec<i64>> = None;
    let n = keep.len();
    let mut out = Vec::new();
    for element in 0..doc.len() {
        let tag = page.tag(element);
        if tag != "ul" && tag != "ol" {
            continue;
        }
        if element_of(doc.parents[element]).is_some_and(|p| lists[p] >= 0) {
            continue; // outermost lists only: they are disjoint
        }
        let (first, end) = (doc.first_blocks[element], doc.end_blocks[element]);
        let (Some(f), Some(e)) = (element_of(first), element_of(end)) else {
            continue;
        };
        if !(f < e && f > 0 && e < n && keep[f - 1] && keep[e]) {
            continue;
        }
        let kept = keep[f..e].iter().filter(|k| **k).count();
        if kept == e - f {
            continue;
        }
        let links = link_share(page, f..e) > params.list_max_link_density;
        if e - f <= usize::try_from(params.short_list_max_blocks).unwrap_or(0) && !links {
            out.extend((f..e).filter(|&i| !keep[i]));
        } else if kept > 0 && (!links || links_into_page(page, element)) {
            let items = items.get_or_insert_with(|| page.nearest(&["li"]));
            let item_of = |i: usize| items[doc.blocks[i].element as usize];
            let taken: HashSet<i64> = (f..e).filter(|&i| keep[i]).map(item_of).collect();
            out.extend((f..e).filter(|&i| !keep[i] && !taken.contains(&item_of(i))));
        }
    }
    out
}

fn link_share(page: &PageView<'_>, range: std::ops::Range<usize>) -> f64 {
    let blocks = &page.doc.blocks[range];
    let chars: u64 = blocks.iter().map(|b| u64::from(b.chars)).sum();
    let links: u64 = blocks.iter().map(|b| u64::from(b.link_chars)).sum();
    if chars == 0 {
        1.0
    } else {
        links as f64 / chars as f64
    }
}

// -- section headings

fn summaries(page: &PageView<'_>, keep: &[bool]) -> Vec<usize> {
    if !page.has_tag("summary") {
        return Vec::new();
    }
    let doc = page.doc;
    let mut out = Vec::new();
    for (i, block) in doc.blocks.iter().enumerate().take(keep.len()) {
        if page.block_tag(i) != "summary" || keep[i] || i + 1 >= keep.len() || !keep[i + 1] {
            continue;
        }
        if let Some(details) = element_of(doc.parents[block.element as usize]) {
            if page.tag(details) == "details" && ((i + 1) as i64) < doc.end_blocks[details] {
                out.push(i);
            }
        }
    }
    out
}

fn is_self_anchored(page: &PageView<'_>, block: usize) -> bool {
    links_into_page(page, page.doc.blocks[block].element as usize)
}

/// `element` holds a link and every link in it points into the page itself (`href="#..."`).
fn links_into_page(page: &PageView<'_>, element: usize) -> bool {
    let mut found = false;
    for i in element..page.subtree_end(element) {
        if page.tag(i) == "a" {
            let href = py_strip(page.attr(i, "href").unwrap_or(""));
            if !href.starts_with('#') {
                return false;
            }
            found = true;
        }
    }
    found
}

fn opening_headings(page: &PageView<'_>, keep: &[bool], params: &SelectionParams) -> Vec<usize> {
    let mut out = summaries(page, keep);
    let blocks = &page.doc.blocks;
    for i in 0..keep.len() {
        if blocks[i].is_heading
            && !keep[i]
            && i + 1 < keep.len()
            && keep[i + 1]
            && !blocks[i + 1].is_heading
            && page.link_density(i) >= params.heading_min_link_density
            && is_self_anchored(page, i)
        {
            out.push(i);
        }
    }
    out
}

// -- headings without their edit links

const EDIT_SECTION_CLASS: &str = "mw-editsection";

fn tidy_heading(page: &PageView<'_>, block: usize) -> Option<Tidied> {
    let doc = page.doc;
    let b = &doc.blocks[block];
    if !b.text.contains('[') {
        return None;
    }
    let spans: Vec<(&str, u32)> = doc.spans[b.span_start as usize..b.span_end as usize]
        .iter()
        .map(|&span| (doc.span_text(page.dom, span), span.element))
        .collect();
    let drop: Vec<bool> = spans
        .iter()
        .map(|&(text, element)| is_edit_link(page, b.element, text, element))
        .collect();
    if !drop.iter().any(|d| *d) {
        return None;
    }
    let left: Vec<(String, u32)> = spans
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(&(text, element), _)| (text.to_owned(), element))
        .collect();
    let merged: Vec<(String, u32)> = merge_brackets(left)
        .into_iter()
        .map(|(text, element)| (without_empty_brackets(&text), element))
        .collect();
    let joined: String = merged.iter().map(|(text, _)| text.as_str()).collect();
    let text = normalize_space(&without_empty_brackets(&joined));
    Some(Tidied {
        text,
        spans: merged.into_iter().filter(|(t, _)| !t.is_empty()).collect(),
    })
}

fn is_edit_link(page: &PageView<'_>, block_element: u32, text: &str, element: u32) -> bool {
    let words = normalize_space(text);
    let words = words
        .trim_matches(|c| c == '[' || c == ']' || c == ' ')
        .to_lowercase();
    let is_edit_text = words == "edit" || words == "edit source";
    let mut current = i64::from(element);
    while current > i64::from(block_element) {
        let i = current as usize;
        let class = page.attr(i, "class").unwrap_or("");
        if class.split(is_py_space).any(|c| c == EDIT_SECTION_CLASS) {
            return true;
        }
        if page.tag(i) == "a" && is_edit_text {
            return true;
        }
        current = page.doc.parents[i];
    }
    false
}

fn is_bracket_space(c: char) -> bool {
    c == '|' || is_py_space(c)
}

/// Each "[" that ends a span and "]" or "|" that starts the next moved together
/// (``thresher.render.selection._merge_brackets``).
fn merge_brackets(mut spans: Vec<(String, u32)>) -> Vec<(String, u32)> {
    for i in 0..spans.len().saturating_sub(1) {
        let Some(open) = spans[i].0.rfind('[') else {
            continue;
        };
        if !spans[i].0[open + 1..].chars().all(is_bracket_space) {
            continue;
        }
        let next = spans[i + 1].0.trim_start_matches(is_py_space);
        if !(next.starts_with(']') || next.starts_with('|')) {
            continue;
        }
        let next = next.to_owned();
        let tail = spans[i].0.split_off(open);
        spans[i + 1].0 = tail + &next;
    }
    spans
}

/// ``text`` without the empty brackets an edit link leaves (``\s*\[[\s|]*\]``).
fn without_empty_brackets(text: &str) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let mut j = i;
        while j < chars.len() && is_py_space(chars[j].1) {
            j += 1;
        }
        if j < chars.len() && chars[j].1 == '[' {
            let mut k = j + 1;
            while k < chars.len() && is_bracket_space(chars[k].1) {
                k += 1;
            }
            if k < chars.len() && chars[k].1 == ']' {
                i = k + 1;
                continue;
            }
        }
        out.push(chars[i].1);
        i += 1;
    }
    out
}

// -- plain text

const CELL_SEPARATOR: &str = " | ";

/// The text output of `selection` (``thresher.render.text``), before its NFC normalisation.
/// `texts`: block texts the caller made (a MathML formula's TeX in its place), which win over
/// the blocks' own and the tidied headings'.
pub fn plain_text(
    page: &PageView<'_>,
    selection: &Selection,
    texts: &HashMap<u32, String>,
) -> String {
    let doc = page.doc;
    let tidied: HashMap<u32, &str> = selection
        .tidied
        .iter()
        .map(|(i, t)| (*i, t.text.as_str()))
        .collect();
    let text_of = |i: u32| -> &str {
        match texts.get(&i) {
            Some(text) => text.as_str(),
            None => tidied
                .get(&i)
                .copied()
                .unwrap_or(doc.blocks[i as usize].text.as_str()),
        }
    };
    let kept = &selection.blocks;
    let has_pre = page.has_tag("pre");
    let pre = if has_pre {
        page.nearest(&["pre"])
    } else {
        Vec::new()
    };
    let whole: HashSet<u32> = selection.tables.iter().copied().collect();
    let (table, row) = if whole.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        (page.nearest(&["table"]), page.nearest(&["tr"]))
    };
    let mut out = String::new();
    let mut push = |paragraph: &str| {
        if !paragraph.is_empty() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(paragraph);
        }
    };
    let mut i = 0;
    while i < kept.len() {
        crate::budget::check();
        let element = doc.blocks[kept[i] as usize].element as usize;
        if !table.is_empty() {
            if let Some(t) = element_of(table[element]).filter(|&t| whole.contains(&(t as u32))) {
                push(&table_text(page, &table, &row, t));
                let end = doc.end_blocks[t];
                while i < kept.len() && i64::from(kept[i]) < end {
                    i += 1;
                }
                continue;
            }
        }
        let mut end = i + 1;
        if has_pre && pre[element] >= 0 {
            let within = pre[element];
            while end < kept.len() && pre[doc.blocks[kept[end] as usize].element as usize] == within
            {
                end += 1;
            }
        }
        let code: Vec<&str> = kept[i..end].iter().map(|&b| text_of(b)).collect();
        push(&without_invisible(&code.join("\n")));
        i = end;
    }
    out
}

fn table_text(page: &PageView<'_>, table: &[i64], row: &[i64], element: usize) -> String {
    let mut lines = Vec::new();
    let end = page.subtree_end(element);
    let caption =
        (element + 1..end).find(|&i| page.tag(i) == "caption" && table[i] == element as i64);
    if let Some(caption) = caption {
        let text = cell_text(page, caption);
        if !text.is_empty() {
            lines.push(text);
        }
    }
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut row_at: HashMap<usize, usize> = HashMap::new();
    for i in element + 1..end {
        if table[i] != element as i64 {
            continue;
        }
        let tag = page.tag(i);
        if tag == "tr" {
            row_at.entry(i).or_insert_with(|| {
                rows.push(Vec::new());
                rows.len() - 1
            });
        } else if is_cell_tag(tag) {
            if let Some(r) = element_of(row[i]).filter(|&r| table[r] == element as i64) {
                let at = *row_at.entry(r).or_insert_with(|| {
                    rows.push(Vec::new());
                    rows.len() - 1
                });
                rows[at].push(i);
            }
        }
    }
    for cells in rows.iter().filter(|cells| !cells.is_empty()) {
        let texts: Vec<String> = cells.iter().map(|&cell| cell_text(page, cell)).collect();
        if texts.iter().any(|t| !t.is_empty()) {
            lines.push(texts.join(CELL_SEPARATOR));
        }
    }
    lines.join("\n")
}

/// The text of a cell's (or caption's) blocks, each whitespace-collapsed and cleaned, joined
/// by spaces.
fn cell_text(page: &PageView<'_>, cell: usize) -> String {
    let parts: Vec<String> = page.doc.blocks[page.block_range(cell)]
        .iter()
        .map(|block| without_invisible(&normalize_space(&block.text)).into_owned())
        .collect();
    py_strip(&parts.join(" ")).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_go_and_a_space_before_them_between_spaces() {
        assert_eq!(without_invisible("a \u{ad} b"), "a b");
        assert_eq!(without_invisible("co\u{ad}op"), "coop");
        assert_eq!(without_invisible("a \u{200b}b"), "a b");
        assert_eq!(without_invisible("plain"), "plain");
    }

    #[test]
    fn empty_brackets_go_with_the_space_before_them() {
        assert_eq!(without_empty_brackets("History [ | ]"), "History");
        assert_eq!(without_empty_brackets("a [b] c"), "a [b] c");
        assert_eq!(without_empty_brackets("x[]y"), "xy");
    }

    #[test]
    fn brackets_split_over_spans_are_moved_together() {
        let spans = vec![("Title [".to_owned(), 1), (" ]".to_owned(), 2)];
        let merged = merge_brackets(spans);
        assert_eq!(merged[0].0, "Title ");
        assert_eq!(merged[1].0, "[]");
    }

    #[test]
    fn python_whitespace_is_collapsed() {
        assert_eq!(normalize_space(" a\u{1f}b \u{a0} c "), "a b c");
    }
}
