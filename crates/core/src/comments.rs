//! Comment sections, found by their structure as well as by their names.
//!
//! A comment section is one of:
//!
//! * an element whose id or class names one ([`crate::filters`]: `#comments`,
//!   `.comment-list`, `#disqus_thread` ...), with everything inside it;
//! * a **list of entries**: two or more sibling elements of one tag and first class token
//!   (`li`, `article`, `div` ...), most of such siblings, that each carry comment signals in their subtree: an author (`.comment-author`,
//!   `.vcard`, `<cite>`, `itemprop=author`, `rel=author`), a time (`<time>`, a date or
//!   time class, short date-looking text), a reply or permalink marker (a `Reply` link, a
//!   `replytocom` address, a `.reply` class), an avatar (`img` named or served as
//!   avatar/gravatar), an `itemtype` of schema.org's `Comment` or `UserComments`, or a
//!   comment class word. An entry needs two signals, one of them specific to comments
//!   (marker, avatar, itemtype or class word); no linked headline of several words (a
//!   teaser's title: blog listings carry authors and dates too) and no first block that is
//!   such a link, no `h1`/`h2`, no mark of a review or an answer (other user content); at
//!   most `max_entry_chars` characters, at most `max_link_share` of them in links (a whole
//!   page region or a link list is not one comment). A named list (`ol` or `ul` inside a
//!   named section, `<ol class="commentlist">`) and same-class siblings directly
//!   inside a named element are entries without further signals. The list's parent is part
//!   of the section when the entries hold most of its text.
//!
//! Nothing inside an element marked as other user content (a class word of `other_words`,
//! schema.org's `Review`, `Answer` or `Question`) is in a comment section: reviews and answers
//! are content. A link named comments (a count, a jump) is not a signal.
//!
//! Per block, [`comment_blocks`] says whether it lies in a named section ([`NAMED`]), in any
//! section ([`SECTION`]), and whether it is the text of a comment ([`ENTRY`]): a block inside
//! an entry (or, in a named section without entries, any block of it but headings) that is
//! not part of a form, a respond box or a bare reply/permalink marker.
//!
//! Every walk is over the element table in pre-order (parents before children) or in
//! reverse (children before parents), never recursive.

use crate::document::{held_attributes, Document};
use crate::dom::{attr_value, Dom, NONE};
use crate::hash::{HashMap, HashSet};
use crate::text::{is_space, words};
use memchr::memmem;

/// Block bit: inside an element whose id or class names a comment section.
pub const NAMED: u8 = 1;
/// Block bit: inside a comment section (named or structural).
pub const SECTION: u8 = 2;
/// Block bit: the text of a comment entry.
pub const ENTRY: u8 = 4;

/// The detector's vocabularies (lower case) and thresholds.
#[derive(Clone, Debug, Default)]
pub struct SectionParams {
    /// Class and id words of author elements.
    pub author_words: HashSet<String>,
    /// Class and id words of date and time elements.
    pub time_words: HashSet<String>,
    /// Class and id words of reply, permalink and similar controls.
    pub marker_words: HashSet<String>,
    /// Whole texts of such controls ("reply", "permalink" ...), lower case.
    pub marker_texts: HashSet<String>,
    /// Substrings of an avatar image's class, id, src or alt.
    pub avatar_parts: Vec<String>,
    /// Class and id words of comment forms and respond boxes.
    pub form_words: HashSet<String>,
    /// Tags an entry can have.
    pub entry_tags: HashSet<String>,
    /// Sibling entries a list needs.
    pub min_entries: usize,
    /// Share of a list parent's characters its entries need for the parent to be the section.
    pub parent_share: f64,
    /// Link words from which a heading inside a candidate entry is a teaser's headline.
    pub headline_link_words: u32,
    /// Link words from which an entry's first block, a link to another page, is a teaser's
    /// headline.
    pub teaser_link_words: u32,
    /// Class and id words of user content that is not a comment (reviews, answers).
    pub other_words: HashSet<String>,
    /// Characters above which an element is too big to be one comment (found by signals).
    pub max_entry_chars: u64,
    /// Share of an entry's characters in links above which it is a link list, not a comment.
    pub max_link_share: f64,
}

// Own and subtree signals of an element.
const AUTHOR: u16 = 1;
const TIME: u16 = 2;
const MARKER: u16 = 4;
const AVATAR: u16 = 8;
const ITEMTYPE: u16 = 16;
const NAMED_HERE: u16 = 32;
const HEADLINE: u16 = 64;
const FORM: u16 = 128;
/// A page or section title (`h1`, `h2`), or other user content.
const NOT_ENTRY: u16 = 256;
/// Other user content (reviews, answers): never a comment section, nor anything inside it.
const OTHER: u16 = 512;
/// Signals only comments carry (an author and a date are on every blog teaser).
const SPECIFIC: u16 = MARKER | AVATAR | ITEMTYPE | NAMED_HERE;

/// The detector's parameters with searchers for the avatar parts, built once per page: a part
/// is found in a text exactly when `str::contains` finds it.
struct Lexicon<'p> {
    params: &'p SectionParams,
    avatar: Vec<memmem::Finder<'p>>,
}

impl<'p> Lexicon<'p> {
    fn new(params: &'p SectionParams) -> Self {
        Lexicon {
            params,
            avatar: params
                .avatar_parts
                .iter()
                .map(|part| memmem::Finder::new(part.as_bytes()))
                .collect(),
        }
    }

    /// Whether `text` holds one of the avatar parts.
    fn avatar_in(&self, text: &str) -> bool {
        self.avatar
            .iter()
            .any(|part| part.find(text.as_bytes()).is_some())
    }
}

/// The signals an element's class, id and itemprop words carry.
fn word_signals(value: &str, lexicon: &Lexicon<'_>) -> u16 {
    let params = lexicon.params;
    let mut bits = 0;
    for token in value.split(is_space).filter(|t| !t.is_empty()) {
        let token = token.to_lowercase();
        for word in token.split(['-', '_']).filter(|w| !w.is_empty()) {
            if params.author_words.contains(word) {
                bits |= AUTHOR;
            }
            if params.time_words.contains(word) {
                bits |= TIME;
            }
            if params.marker_words.contains(word) {
                bits |= MARKER;
            }
            if params.form_words.contains(word) {
                bits |= FORM;
            }
            if params.other_words.contains(word) {
                bits |= NOT_ENTRY | OTHER;
            }
        }
        if lexicon.avatar_in(&token) {
            bits |= AVATAR;
        }
    }
    bits
}

/// Whether `text` reads as a date or a time: a year (1990 to 2099) or a clock time
/// (`7:41`) among at most eight words, or "N units ago".
pub fn looks_like_date(text: &str) -> bool {
    // A year and a clock need a digit, "an hour ago" its "ago": most texts have neither.
    if !text.bytes().any(|b| b.is_ascii_digit()) && !contains_ignore_case(text, "ago") {
        return false;
    }
    if words(text).nth(8).is_some() {
        return false; // more than eight words
    }
    let mut found = false;
    let mut previous_unit = false;
    for word in words(text) {
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric() && c != ':');
        if bare.eq_ignore_ascii_case("ago") && previous_unit {
            found = true;
        }
        previous_unit = is_time_unit(bare);
        found |= has_year(bare) || is_clock(bare);
    }
    found
}

/// A unit of time, singular or plural, in any ASCII case.
fn is_time_unit(word: &str) -> bool {
    let stem = word
        .strip_suffix(['s', 'S'])
        .filter(|stem| stem.len() > 1)
        .unwrap_or(word);
    [
        "second", "minute", "min", "hour", "hr", "day", "week", "month", "year", "yr",
    ]
    .iter()
    .any(|unit| stem.eq_ignore_ascii_case(unit))
}

/// A run of exactly four digits from 1990 to 2099 in `word` (`2023`, `22/08/2023`, `2023-08-22`).
fn has_year(word: &str) -> bool {
    word.split(|c: char| !c.is_ascii_digit()).any(|run| {
        run.len() == 4
            && run
                .parse::<u32>()
                .is_ok_and(|year| (1990..2100).contains(&year))
    })
}

/// `h:mm` or `hh:mm` (a trailing `am`/`pm` or seconds allowed).
fn is_clock(word: &str) -> bool {
    let Some((hours, rest)) = word.split_once(':') else {
        return false;
    };
    let minutes: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (1..=2).contains(&hours.len())
        && hours.bytes().all(|b| b.is_ascii_digit())
        && minutes.len() == 2
}

/// Whether a link's address is a comment control (a reply or respond anchor).
fn is_marker_href(href: &str) -> bool {
    ["replytocom", "#respond", "#reply"]
        .iter()
        .any(|part| contains_ignore_case(href, part))
}

/// Whether `text` holds `part` (ASCII lower case) in any ASCII case, without allocating.
fn contains_ignore_case(text: &str, part: &str) -> bool {
    let (text, part) = (text.as_bytes(), part.as_bytes());
    text.windows(part.len())
        .any(|window| window.eq_ignore_ascii_case(part))
}

/// The own signals of element `i`.
fn own_signals<'a>(
    dom: &'a Dom,
    doc: &Document,
    i: usize,
    attributes: bool,
    named: bool,
    lexicon: &Lexicon<'_>,
    memo: &mut HashMap<&'a str, u16>,
) -> u16 {
    let node = doc.nodes[i];
    let tag = dom.tag(node);
    let attrs = held_attributes(dom, doc, i, attributes);
    let mut bits = match tag {
        "time" => TIME,
        "cite" => AUTHOR,
        "form" | "textarea" => FORM,
        "h1" | "h2" => NOT_ENTRY,
        _ => 0,
    };
    // A link named comments is a count or a jump to the comments, not one.
    if named && tag != "a" {
        bits |= NAMED_HERE;
    }
    for attr in attrs {
        let value = attr.value.as_str();
        match &*attr.name {
            "class" | "id" if !value.is_empty() => {
                bits |= match memo.get(value) {
                    Some(&known) => known,
                    None => {
                        let found = word_signals(value, lexicon);
                        memo.insert(value, found);
                        found
                    }
                };
            }
            "itemprop" => {
                let prop = value.to_ascii_lowercase();
                if prop.contains("author") || prop.contains("creator") {
                    bits |= AUTHOR;
                }
                if prop.contains("date") {
                    bits |= TIME;
                }
            }
            "itemtype" => {
                let kind = value.trim_matches(is_space).to_ascii_lowercase();
                if kind.ends_with("/comment") || kind.ends_with("/usercomments") {
                    bits |= ITEMTYPE;
                } else if kind.ends_with("/review")
                    || kind.ends_with("/answer")
                    || kind.ends_with("/question")
                {
                    bits |= NOT_ENTRY | OTHER;
                }
            }
            "rel" if contains_ignore_case(value, "author") => bits |= AUTHOR,
            "href" if tag == "a" && is_marker_href(value) => bits |= MARKER,
            _ => {}
        }
    }
    if tag == "img" {
        let src = attr_value(attrs, "src").unwrap_or("").to_ascii_lowercase();
        let alt = attr_value(attrs, "alt").unwrap_or("").to_ascii_lowercase();
        if lexicon.avatar_in(&src) || lexicon.avatar_in(&alt) {
            bits |= AVATAR;
        }
    }
    bits
}

/// Whether element `from` or an ancestor below `until` is a link to another page (not an
/// anchor into this one, as a forum post's title is).
fn links_out(dom: &Dom, doc: &Document, attributes: bool, from: usize, until: usize) -> bool {
    link_of(dom, doc, attributes, from, until).is_some_and(|(_, out)| out)
}

/// The link that element `from` is or lies in, below `until`, and whether it leads to another
/// page.
fn link_of(
    dom: &Dom,
    doc: &Document,
    attributes: bool,
    from: usize,
    until: usize,
) -> Option<(usize, bool)> {
    let mut at = from;
    while at < doc.len() && at > until {
        if dom.tag(doc.nodes[at]) == "a" {
            let href = attr_value(held_attributes(dom, doc, at, attributes), "href").unwrap_or("");
            let href = href.trim_matches(is_space);
            return Some((at, !href.is_empty() && !href.starts_with('#')));
        }
        match usize::try_from(doc.parents[at]) {
            Ok(p) if p < at => at = p,
            _ => break,
        }
    }
    None
}

/// Whether a short text is a comment control's whole text ("Reply", "Permalink").
fn is_marker_text(text: &str, params: &SectionParams) -> bool {
    if text.len() > 60 {
        return false;
    }
    let bare = text
        .trim_matches(|c: char| is_space(c) || c.is_ascii_punctuation() || c == '↵' || c == '→');
    if bare.is_empty() || bare.len() > 40 {
        return false;
    }
    if !bare.is_ascii() {
        return params.marker_texts.contains(&bare.to_lowercase());
    }
    // ASCII lower-cases byte by byte (what `to_lowercase` does to it), here without allocating.
    let mut lower = [0u8; 40];
    let lower = &mut lower[..bare.len()];
    lower.copy_from_slice(bare.as_bytes());
    lower.make_ascii_lowercase();
    std::str::from_utf8(lower).is_ok_and(|lower| params.marker_texts.contains(lower))
}

/// Per block: [`NAMED`], [`SECTION`] and [`ENTRY`] bits (see the module docs). `named`: per
/// element, it or an ancestor names a comment section ([`crate::filters::comment_elements`]);
/// `attributes`: whether the document holds every element's attributes.
pub fn comment_blocks(
    dom: &Dom,
    doc: &Document,
    attributes: bool,
    named: &[bool],
    params: &SectionParams,
) -> Vec<u8> {
    let n = doc.len();
    let mut out = vec![0u8; doc.blocks.len()];
    if n == 0 || doc.blocks.is_empty() || named.len() != n {
        return out;
    }
    let parent = |i: usize| usize::try_from(doc.parents[i]).ok().filter(|&p| p < i);
    let range = |i: usize| {
        let first = usize::try_from(doc.first_blocks[i]).unwrap_or(0);
        let end = usize::try_from(doc.end_blocks[i]).unwrap_or(0);
        (
            first.min(out.len()),
            end.min(out.len()).max(first.min(out.len())),
        )
    };
    // Own signals: attributes, then the texts of spans and blocks.
    let mut memo = HashMap::default();
    let lexicon = Lexicon::new(params);
    let mut own = Vec::with_capacity(n);
    for i in 0..n {
        crate::budget::check();
        let named_here = named[i] && !parent(i).is_some_and(|p| named[p]);
        own.push(own_signals(
            dom, doc, i, attributes, named_here, &lexicon, &mut memo,
        ));
    }
    // Per block: a link of several words to another page, most of its text (a headline).
    let mut headline = vec![false; doc.blocks.len()];
    for (b, block) in doc.blocks.iter().enumerate() {
        let element = block.element as usize;
        let spans = doc
            .spans
            .get(block.span_start as usize..block.span_end as usize)
            .unwrap_or(&[]);
        if block.is_heading
            && block.link_words >= params.headline_link_words
            && element < n
            && spans
                .iter()
                .any(|span| links_out(dom, doc, attributes, span.element as usize, element))
        {
            own[element] |= HEADLINE;
        }
        // One link (an author's name and a time, two links, are a comment's byline).
        let one_link = || {
            let mut links = spans
                .iter()
                .filter(|span| span.text != NONE)
                .filter_map(|span| link_of(dom, doc, attributes, span.element as usize, element));
            links
                .next()
                .is_some_and(|first| first.1 && links.all(|other| other == first))
        };
        headline[b] = element < n
            && block.link_words >= params.teaser_link_words
            && 5 * u64::from(block.link_words) >= 4 * u64::from(block.words)
            && one_link();
        for span in spans {
            if span.text == NONE || (span.element as usize) >= n {
                continue;
            }
            let text = dom.text(span.text);
            let holder = span.element as usize;
            if text.len() > 80 {
                continue;
            }
            if own[holder] & TIME == 0 && looks_like_date(text) {
                own[holder] |= TIME;
            }
            // A control's text is a link's or a button's.
            if matches!(dom.tag(doc.nodes[holder]), "a" | "button" | "span")
                && is_marker_text(text, params)
            {
                own[holder] |= MARKER;
            }
        }
    }
    // Subtree signals: children come after their parent, so a reverse walk folds them up.
    let mut sub = own.clone();
    for i in (1..n).rev() {
        if let Some(p) = parent(i) {
            sub[p] |= sub[i];
        }
    }
    // Block characters before each block, for the text an element holds.
    let mut chars_before = Vec::with_capacity(doc.blocks.len() + 1);
    chars_before.push(0u64);
    for block in &doc.blocks {
        chars_before.push(chars_before.last().copied().unwrap_or(0) + u64::from(block.chars));
    }
    let mut links_before = Vec::with_capacity(doc.blocks.len() + 1);
    links_before.push(0u64);
    for block in &doc.blocks {
        links_before.push(links_before.last().copied().unwrap_or(0) + u64::from(block.link_chars));
    }
    let chars = |i: usize| {
        let (first, end) = range(i);
        chars_before[end] - chars_before[first]
    };
    let link_chars = |i: usize| {
        let (first, end) = range(i);
        links_before[end] - links_before[first]
    };
    // Sibling groups: (parent, tag, first class token) for the signal rule, (parent, tag,
    // class) for the rule of same-class siblings in a named element.
    let candidate = |i: usize| {
        let (first, _) = range(i);
        params.entry_tags.contains(dom.tag(doc.nodes[i]))
            && chars(i) > 0
            && sub[i] & (HEADLINE | FORM | NOT_ENTRY) == 0
            && !headline[first]
    };
    let qualifies = |i: usize| {
        let bits = sub[i];
        let size = chars(i);
        if size > params.max_entry_chars
            || link_chars(i) as f64 > params.max_link_share * size as f64
        {
            return false;
        }
        let score = (bits & (AUTHOR | TIME | MARKER | AVATAR | NAMED_HERE)).count_ones()
            + if bits & ITEMTYPE != 0 { 2 } else { 0 };
        bits & SPECIFIC != 0 && score >= 2
    };
    let class_of = |i: usize| {
        attr_value(held_attributes(dom, doc, i, attributes), "class")
            .unwrap_or("")
            .trim_matches(is_space)
    };
    let first_class = |i: usize| class_of(i).split(is_space).next().unwrap_or("");
    // Only parents with a child that carries a comment-specific signal, or inside a named
    // section, can hold entries: the others' children are not grouped (most of a page).
    let mut hopeful = vec![false; n];
    for (i, &bits) in sub.iter().enumerate().skip(1) {
        if let Some(p) = parent(i) {
            hopeful[p] |= bits & SPECIFIC != 0 || named[p];
        }
    }
    let mut groups: HashMap<(usize, &str, &str), (usize, usize)> = HashMap::default();
    let mut classed: HashMap<(usize, &str, &str), usize> = HashMap::default();
    for i in 1..n {
        let Some(p) = parent(i) else { continue };
        if !hopeful[p] || !candidate(i) {
            continue;
        }
        let tag = dom.tag(doc.nodes[i]);
        let entry = groups.entry((p, tag, first_class(i))).or_default();
        entry.0 += 1;
        entry.1 += usize::from(qualifies(i));
        if own[p] & NAMED_HERE != 0 {
            *classed.entry((p, tag, class_of(i))).or_default() += 1;
        }
    }
    let is_list = |p: usize| matches!(dom.tag(doc.nodes[p]), "ol" | "ul");
    let is_entry = |i: usize| {
        let Some(p) = parent(i) else { return false };
        if !hopeful[p] || !candidate(i) {
            return false;
        }
        let tag = dom.tag(doc.nodes[i]);
        let (total, good) = groups
            .get(&(p, tag, first_class(i)))
            .copied()
            .unwrap_or((0, 0));
        let by_signals = qualifies(i) && good >= params.min_entries.max(1) && 2 * good >= total;
        let by_name = named[p]
            && ((is_list(p) && tag == "li")
                || (own[p] & NAMED_HERE != 0
                    && classed.get(&(p, tag, class_of(i))).copied().unwrap_or(0)
                        >= params.min_entries.max(1)));
        by_signals || by_name
    };
    let entry: Vec<bool> = (0..n).map(is_entry).collect();
    let mut entries_in: HashMap<usize, u64> = HashMap::default();
    for (i, _) in entry.iter().enumerate().filter(|(_, &e)| e) {
        if let Some(p) = parent(i) {
            *entries_in.entry(p).or_default() += chars(i);
        }
    }
    // Sections: named elements, entries, and a list parent whose entries hold most of its text.
    let mut section = named.to_vec();
    for (&p, &held) in &entries_in {
        let whole = chars(p);
        if whole > 0 && held as f64 >= params.parent_share * whole as f64 {
            section[p] = true;
        }
    }
    for (i, &is_entry) in entry.iter().enumerate() {
        section[i] |= is_entry;
    }
    // Inherit downwards: in a section, in an entry, in a form or a marker.
    let mut in_entry = entry.clone();
    let mut in_form = vec![false; n];
    let mut in_marker = vec![false; n];
    let mut top_named: Vec<usize> = vec![usize::MAX; n];
    let mut in_other = vec![false; n];
    for i in 0..n {
        let up = parent(i);
        if let Some(p) = up {
            in_other[i] = in_other[p];
            section[i] |= section[p];
            in_entry[i] |= in_entry[p];
            in_form[i] = in_form[p];
            in_marker[i] = in_marker[p];
            top_named[i] = top_named[p];
        }
        in_other[i] |= own[i] & OTHER != 0;
        in_form[i] |= own[i] & FORM != 0;
        in_marker[i] |= own[i] & MARKER != 0;
        if named[i] && top_named[i] == usize::MAX {
            top_named[i] = i;
        }
    }
    // Named sections that hold an entry give only their entries' text.
    let mut has_entry = vec![false; n];
    for i in 0..n {
        if entry[i] && top_named[i] != usize::MAX {
            has_entry[top_named[i]] = true;
        }
    }
    for (b, block) in doc.blocks.iter().enumerate() {
        let e = block.element as usize;
        if e >= n || in_other[e] {
            continue;
        }
        let mut bits = 0;
        if named[e] {
            bits |= NAMED;
        }
        if section[e] {
            bits |= SECTION;
        }
        let fallback = named[e] && !has_entry[top_named[e]] && !block.is_heading;
        let marker = in_marker[e] && block.words <= 3 || is_marker_text(&block.text, params);
        if (in_entry[e] || fallback) && !in_form[e] && !marker {
            bits |= ENTRY;
        }
        out[b] = bits;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::{comment_elements, CommentParams};
    use crate::{build, parse, Limits};

    fn set(words: &[&str]) -> HashSet<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    fn params() -> SectionParams {
        SectionParams {
            author_words: set(&["author", "user", "fn", "vcard", "byline"]),
            time_words: set(&["date", "time", "ago"]),
            marker_words: set(&["reply", "permalink"]),
            marker_texts: set(&["reply", "permalink"]),
            avatar_parts: vec!["avatar".into(), "gravatar".into()],
            form_words: set(&["respond", "form"]),
            entry_tags: set(&["li", "article", "div", "section"]),
            min_entries: 2,
            parent_share: 0.6,
            headline_link_words: 2,
            teaser_link_words: 4,
            other_words: set(&["review", "reviews"]),
            max_entry_chars: 5000,
            max_link_share: 0.8,
        }
    }

    #[test]
    fn avatar_parts_are_found_as_contains_finds_them() {
        let plain = params();
        let mut p = params();
        p.avatar_parts.push(String::new());
        let lexicon = Lexicon::new(&plain);
        let with_empty = Lexicon::new(&p);
        let texts = [
            "",
            "avatar",
            "user-gravatar-32",
            "avatars",
            "ava",
            "photo",
            "été-avatar",
        ];
        for text in texts {
            let contains = plain.avatar_parts.iter().any(|a| text.contains(a.as_str()));
            assert_eq!(lexicon.avatar_in(text), contains, "{text:?}");
            assert!(with_empty.avatar_in(text), "{text:?}");
        }
    }

    #[test]
    fn marker_texts_match_in_any_case_bare_of_punctuation() {
        let p = SectionParams {
            marker_texts: set(&["reply", "permalink", "répondre"]),
            ..params()
        };
        for text in ["Reply", " REPLY ↵", "[permalink]", "→ Répondre", "RÉPONDRE"] {
            assert!(is_marker_text(text, &p), "{text:?}");
        }
        for text in [
            "",
            "...",
            "Reply all",
            "replying",
            &"x".repeat(41),
            &"reply ".repeat(11),
        ] {
            assert!(!is_marker_text(text, &p), "{text:?}");
        }
    }

    fn names() -> CommentParams {
        CommentParams {
            words: set(&[
                "comment",
                "comments",
                "commentlist",
                "disqus",
                "respond",
                "reply",
            ]),
            state_tokens: set(&["comments-open"]),
            wrapper_tags: set(&["html", "body", "article", "main"]),
        }
    }

    /// (block text, bits) of every block.
    fn run(html: &str) -> Vec<(String, u8)> {
        let dom = parse(html, Limits::default());
        let doc = build(&dom);
        let named = comment_elements(&dom, &doc, true, &names());
        let bits = comment_blocks(&dom, &doc, true, &named, &params());
        doc.blocks
            .iter()
            .map(|b| b.text.clone())
            .zip(bits)
            .collect()
    }

    fn texts(blocks: &[(String, u8)], bit: u8) -> Vec<&str> {
        blocks
            .iter()
            .filter(|(_, b)| b & bit != 0)
            .map(|(t, _)| t.as_str())
            .collect()
    }

    #[test]
    fn dates_and_times_are_recognised_in_short_text() {
        assert!(looks_like_date("22 August 2023 at 7:41 am"));
        assert!(looks_like_date("2023-08-22"));
        assert!(looks_like_date("3 days ago"));
        assert!(looks_like_date("at 10:05"));
        assert!(!looks_like_date("ago"));
        assert!(!looks_like_date(
            "The year 1850 was long ago in the village"
        ));
        assert!(!looks_like_date("call 12345 now"));
    }

    #[test]
    fn unnamed_entries_with_author_time_and_reply_are_a_section() {
        let entry = |who: &str, said: &str| {
            format!(
                "<div class=c><span class=who-author>{who}</span><time>May 2, 2024</time>\
                 <p>{said}</p><a href='?replytocom=1'>Reply</a></div>"
            )
        };
        let html = format!(
            "<body><article><p>Story text.</p></article><div class=x>{}{}{}</div></body>",
            entry("Ann", "First."),
            entry("Bob", "Second."),
            entry("Cy", "Third.")
        );
        let blocks = run(&html);
        assert_eq!(texts(&blocks, ENTRY).len(), 6, "{blocks:?}");
        assert!(texts(&blocks, ENTRY).contains(&"Second."));
        assert!(!texts(&blocks, ENTRY).contains(&"Reply"));
        assert!(texts(&blocks, SECTION).contains(&"Reply"));
        assert_eq!(texts(&blocks, NAMED), Vec::<&str>::new());
        assert!(!texts(&blocks, SECTION).contains(&"Story text."));
    }

    #[test]
    fn teasers_with_authors_and_dates_are_not_comments() {
        let teaser = |title: &str| {
            format!(
                "<article><h2><a href='/post'>{title} and some more words</a></h2>\
                 <span class=author>Ann</span><time>May 2, 2024</time>\
                 <img class=avatar src=a.png><p>Summary.</p></article>"
            )
        };
        let html = format!(
            "<body><main>{}{}{}</main></body>",
            teaser("A"),
            teaser("B"),
            teaser("C")
        );
        assert!(run(&html).iter().all(|(_, bits)| *bits == 0));
    }

    #[test]
    fn a_named_list_is_entries_and_its_title_and_form_are_not() {
        let html = "<body><p>Story.</p><div id=comments><h3>2 Comments</h3>\
                    <ol class=commentlist><li>Nice one.</li><li>Agreed.</li></ol>\
                    <div id=respond><h3>Leave a Reply</h3><form><p>Name</p></form></div></div></body>";
        let blocks = run(html);
        assert_eq!(texts(&blocks, ENTRY), ["Nice one.", "Agreed."]);
        assert_eq!(
            texts(&blocks, SECTION),
            [
                "2 Comments",
                "Nice one.",
                "Agreed.",
                "Leave a Reply",
                "Name"
            ]
        );
    }

    #[test]
    fn a_named_section_without_entries_gives_its_paragraphs() {
        let blocks =
            run("<body><p>Story.</p><div id=comments><h3>Comments</h3><p>Lovely.</p></div></body>");
        assert_eq!(texts(&blocks, ENTRY), ["Lovely."]);
        assert_eq!(texts(&blocks, NAMED), ["Comments", "Lovely."]);
    }

    #[test]
    fn a_byline_of_two_links_is_not_a_headline() {
        let entry = |who: &str| {
            format!(
                "<li class=post><img class=user src='/avatar92.jpg'><header>\
                 <a href='/by/{who}'>{who} Smith</a> <a href='#c'>2 hours ago</a></header>\
                 <p>Said {who}.</p></li>"
            )
        };
        let html = format!(
            "<body><p>Story.</p><ul>{}{}{}</ul></body>",
            entry("Ann"),
            entry("Bob"),
            entry("Cy")
        );
        let blocks = run(&html);
        assert_eq!(
            texts(&blocks, ENTRY),
            [
                "Ann Smith 2 hours ago",
                "Said Ann.",
                "Bob Smith 2 hours ago",
                "Said Bob.",
                "Cy Smith 2 hours ago",
                "Said Cy."
            ]
        );
        // One link of four words or more opening each entry is a teaser's title.
        let teaser = html.replace("<a href='#c'>2 hours ago</a>", "and his long trip");
        let teaser = teaser.replace("</a> and his long trip", " and his long trip</a>");
        assert!(run(&teaser).iter().all(|(_, bits)| *bits == 0));
    }

    #[test]
    fn reviews_are_not_comments_and_a_comment_count_link_is_no_signal() {
        let html = "<body><p>Story.</p><div id=reviews class=comments>\
                    <div class=comment><p>Good.</p></div><div class=comment><p>Bad.</p></div></div></body>";
        assert!(run(html).iter().all(|(_, bits)| *bits == 0));
        let card = "<div class=card><a class=comments-link href='/s#comments'>6</a>\
                    <span class=author>Ann</span><time>May 2, 2024</time><p>News.</p></div>";
        let html = format!("<body><div class=river>{card}{card}{card}</div></body>");
        let blocks = run(&html);
        assert!(blocks.iter().all(|(_, bits)| *bits == 0));
    }
}
