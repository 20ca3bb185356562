//! A tokenizer for the common run of a page, in front of html5ever's.
//!
//! html5ever's tokenizer reads tag names, attribute names and the characters between
//! them one character at a time, each through its input queue and an appended tendril;
//! on a typical page that is most of the parse. [`run`] reads the markup that makes up
//! nearly every page (text, start and end tags with their attributes, comments, the
//! content of `<script>`, `<style>`, `<title>` ...) with byte scans and hands the tree
//! builder the very tokens html5ever would have made of it, following the standard's
//! tokenizer states, character references decoded as html5ever decodes them (`refs`).
//! What it does not read itself it leaves to html5ever:
//!
//! * a doctype, which is one `<!...>` up to its first `>`: a fresh html5ever tokenizer reads
//!   it alone, starting in the data state and ending where it ends;
//! * anything rarer (a `<plaintext>`, CDATA, markup cut off by the end of the input):
//!   html5ever tokenizes the rest of the page, starting in the state the fast path had
//!   reached. Between two tokens that state is all a tokenizer carries (the last start
//!   tag's name aside, which it is given), so the hand-over is exact.
//!
//! Carriage returns are normalised before tokenizing (`\r\n` and `\r` become `\n`, the
//! standard's input-stream preprocessing) and a page holding NUL characters goes to
//! html5ever whole. Runs of text reach the tree builder in larger pieces than html5ever
//! cuts them (it ends one at every line break); the tree builder treats any cut alike.
//! Parse errors are not reported: the sink ignores them.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::ops::Range;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::{RawKind, State};
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{ns, Attribute, LocalName, QualName, TokenizerResult};

use scan::{
    appropriate_end_tag, common, lowered, scan_tag, script_end, starts_with_ignoring_case,
    AttrRanges, Scanned,
};

mod refs;
mod scan;

/// The tokenizer state between two tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Data,
    Raw(RawKind),
    Plaintext,
}

impl Mode {
    fn state(self) -> State {
        match self {
            Mode::Data => State::Data,
            Mode::Raw(kind) => State::RawData(kind),
            Mode::Plaintext => State::Plaintext,
        }
    }

    /// The state the tree builder's answer to a tag puts the tokenizer in.
    fn after<H>(result: &TokenSinkResult<H>) -> Mode {
        match result {
            TokenSinkResult::RawData(kind) => Mode::Raw(*kind),
            TokenSinkResult::Plaintext => Mode::Plaintext,
            _ => Mode::Data,
        }
    }
}

/// What the fast path does next.
enum Step {
    /// Go on at this byte, in this state.
    Go(usize, Mode),
    /// Leave the rest of the input, from this byte, to html5ever.
    HandOver(usize, Mode),
    /// The input is read.
    End,
}

/// The line number given with every token: the tree builder only reports it with errors.
const LINE: u64 = 1;

/// Bytes of input html5ever's tokenizer is given at a time (tiny under test, so that the
/// tests cut every construct they hand over somewhere).
#[cfg(not(test))]
const FEED_PIECE: usize = 1 << 16;
#[cfg(test)]
const FEED_PIECE: usize = 3;

/// Tokenize `text` (a whole page) into `sink`, ending it as html5ever's tokenizer does.
pub(super) fn run<S: TokenSink>(text: &str, max_attributes: usize, sink: &S) {
    let normalised;
    let text = if memchr::memchr(b'\r', text.as_bytes()).is_some() {
        normalised = normalise_newlines(text);
        normalised.as_str()
    } else {
        text
    };
    let fast = Fast {
        source: text,
        bytes: text.as_bytes(),
        input: StrTendril::from_slice(text),
        sink,
        max_attributes,
        last_start: RefCell::new(None),
        attrs: Cell::new(Vec::new()),
        names: RefCell::new(vec![None; NAME_SLOTS]),
    };
    // A byte-order mark at the start is not text (html5ever's `discard_bom`).
    let mut pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
    if memchr::memchr(0, text.as_bytes()).is_some() {
        fast.hand_over(pos, Mode::Data);
        return;
    }
    let mut mode = Mode::Data;
    loop {
        let step = match mode {
            Mode::Data => fast.data(pos),
            Mode::Raw(kind) => fast.raw(pos, kind),
            Mode::Plaintext => Step::HandOver(pos, mode),
        };
        match step {
            Step::Go(next, next_mode) => {
                pos = next;
                mode = next_mode;
            }
            Step::HandOver(from, from_mode) => {
                fast.hand_over(from, from_mode);
                return;
            }
            Step::End => {
                let _ = sink.process_token(Token::EOFToken, LINE);
                sink.end();
                return;
            }
        }
    }
}

/// `\r\n` and lone `\r` as `\n`.
fn normalise_newlines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = memchr::memchr(b'\r', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        out.push('\n');
        rest = &rest[at + 1..];
        if rest.starts_with('\n') {
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

struct Fast<'a, S> {
    source: &'a str,
    bytes: &'a [u8],
    /// The whole input, which the text and values handed on are cut from without copies.
    input: StrTendril,
    sink: &'a S,
    /// Attributes kept per start tag (see [`super::cap_attributes`]).
    max_attributes: usize,
    /// The name of the last start tag, which ends the raw text it opens.
    last_start: RefCell<Option<LocalName>>,
    /// The attribute ranges of the tag being read: one buffer for the page's tags.
    attrs: Cell<Vec<AttrRanges>>,
    /// The uncommon names met lately (see [`common`]), each in the slot its bytes give
    /// ([`name_slot`]) with the input range it was read from: a name met again takes its
    /// atom from here instead of `LocalName::from`, which hashes it (and locks the global
    /// set of atoms made at run time, where most such names are).
    names: RefCell<Vec<Option<SeenName>>>,
}

/// A name met: the input range it was read from, and its atom.
type SeenName = (Range<usize>, LocalName);

/// Slots of [`Fast::names`].
const NAME_SLOTS: usize = 256;

/// The slot of [`Fast::names`] for a name of these bytes (its length and its first and
/// last bytes; names that share a slot only take turns in it).
fn name_slot(bytes: &[u8]) -> usize {
    let (first, last) = match bytes {
        [] => (0, 0),
        [first, .., last] => (*first, *last),
        [only] => (*only, *only),
    };
    (bytes.len() * 31 + usize::from(first) * 7 + usize::from(last)) % NAME_SLOTS
}

impl<'a, S: TokenSink> Fast<'a, S> {
    fn text(&self, range: Range<usize>) -> &'a str {
        // The ranges are cut at ASCII bytes of the text, so at character boundaries.
        self.source.get(range).unwrap_or_default()
    }

    /// The tag or attribute name at `range`, lowered, as an atom.
    fn name(&self, range: Range<usize>) -> LocalName {
        let bytes = &self.bytes[range.clone()];
        if let Some(atom) = common(bytes) {
            return atom;
        }
        let slot = name_slot(bytes);
        let mut names = self.names.borrow_mut();
        if let Some((seen, atom)) = &names[slot] {
            if &self.bytes[seen.clone()] == bytes {
                return atom.clone();
            }
        }
        let atom = lowered(self.text(range.clone()));
        names[slot] = Some((range, atom.clone()));
        atom
    }

    /// [`scan_tag`] from `name_start` with the page's attribute buffer, which `read` is
    /// given the tag's attributes in.
    fn scan<T>(
        &self,
        name_start: usize,
        read: impl FnOnce(Scanned, &[AttrRanges]) -> T,
    ) -> Option<T> {
        let mut attrs = self.attrs.take();
        let tag = scan_tag(self.bytes, name_start, &mut attrs);
        let out = tag.map(|tag| read(tag, &attrs));
        self.attrs.set(attrs);
        out
    }

    fn slice(&self, range: Range<usize>) -> StrTendril {
        let (start, end) = (range.start, range.end);
        if let (Ok(offset), Ok(length), true, true) = (
            u32::try_from(start),
            u32::try_from(end.wrapping_sub(start)),
            start <= end && self.source.is_char_boundary(start),
            self.source.is_char_boundary(end),
        ) {
            // SAFETY: `input` is a copy of `source`, so the checks on `source` hold for it:
            // `end` is within it (`is_char_boundary` is false past the end), `start <= end`,
            // and both fall between characters, so the bytes are whole UTF-8 characters,
            // which is all `unsafe_subtendril` leaves unchecked (`subtendril` would check it
            // again, decoding the characters at both ends). The offsets fit the tendril's u32.
            unsafe { self.input.unsafe_subtendril(offset, length) }
        } else {
            self.input.subtendril(start as u32, (end - start) as u32)
        }
    }

    /// Text up to the next `<` that opens markup, then that markup.
    fn data(&self, pos: usize) -> Step {
        let mut at = pos;
        loop {
            let Some(found) = memchr::memchr(b'<', &self.bytes[at..]) else {
                self.characters(pos..self.bytes.len(), Mode::Data);
                return Step::End;
            };
            let lt = at + found;
            let next = self.bytes.get(lt + 1).copied();
            if !matches!(next, Some(b'!' | b'/' | b'?'))
                && !next.is_some_and(|b| b.is_ascii_alphabetic())
            {
                // A `<` that opens nothing is text.
                crate::budget::check();
                at = lt + 1;
                continue;
            }
            self.characters(pos..lt, Mode::Data);
            return match next {
                Some(b'!') => self.declaration(lt),
                Some(b'/') => self.end_tag_open(lt),
                Some(b'?') => self.bogus_comment(lt, lt + 1),
                _ => self.start_tag(lt),
            };
        }
    }

    /// Text read in `mode`, as character tokens (character references decoded, in the
    /// states that decode them).
    fn characters(&self, range: Range<usize>, mode: Mode) {
        if range.is_empty() {
            return;
        }
        let text = if mode == Mode::Raw(RawKind::Rawtext)
            || mode == Mode::Raw(RawKind::ScriptData)
            || memchr::memchr(b'&', &self.bytes[range.clone()]).is_none()
        {
            self.slice(range)
        } else {
            StrTendril::from(refs::decode(self.text(range), false))
        };
        // Text never changes the tokenizer's state.
        let _ = self.sink.process_token(Token::CharacterTokens(text), LINE);
    }

    fn start_tag(&self, lt: usize) -> Step {
        self.scan(lt + 1, |tag, ranges| self.emit_start_tag(tag, ranges))
            .unwrap_or(Step::HandOver(lt, Mode::Data))
    }

    /// Hand the tree builder the start tag `tag` with the attributes at `ranges`.
    fn emit_start_tag(&self, tag: Scanned, ranges: &[AttrRanges]) -> Step {
        let name = self.name(tag.name.clone());
        *self.last_start.borrow_mut() = Some(name.clone());
        let ranges = &ranges[..ranges.len().min(self.max_attributes.max(1))];
        let mut attrs: Vec<Attribute> = Vec::with_capacity(ranges.len());
        let mut duplicates = false;
        for (attr_name, value) in ranges.iter().cloned() {
            let local = self.name(attr_name);
            if attrs.iter().any(|a| a.name.local == local) {
                duplicates = true;
                continue;
            }
            let value = if tag.amp && memchr::memchr(b'&', &self.bytes[value.clone()]).is_some() {
                StrTendril::from(refs::decode(self.text(value), true))
            } else {
                self.slice(value)
            };
            attrs.push(Attribute {
                name: QualName::new(None, ns!(), local),
                value,
            });
        }
        let result = self.sink.process_token(
            Token::TagToken(Tag {
                kind: TagKind::StartTag,
                name,
                self_closing: tag.self_closing,
                attrs,
                had_duplicate_attributes: duplicates,
            }),
            LINE,
        );
        Step::Go(tag.end, Mode::after(&result))
    }

    /// After `</`: an end tag, nothing (`</>`), or a bogus comment.
    fn end_tag_open(&self, lt: usize) -> Step {
        match self.bytes.get(lt + 2) {
            Some(b'>') => Step::Go(lt + 3, Mode::Data),
            Some(b) if b.is_ascii_alphabetic() => self.end_tag(lt, lt + 2, Mode::Data),
            Some(_) => self.bogus_comment(lt, lt + 2),
            None => Step::HandOver(lt, Mode::Data),
        }
    }

    /// The end tag whose name starts at `name_start`; `mode` is the state before its `<`.
    /// Its attributes are read past but not handed on: the tree builder ignores them.
    fn end_tag(&self, lt: usize, name_start: usize, mode: Mode) -> Step {
        let Some(tag) = self.scan(name_start, |tag, _| tag) else {
            return Step::HandOver(lt, mode);
        };
        let result = self.sink.process_token(
            Token::TagToken(Tag {
                kind: TagKind::EndTag,
                name: self.name(tag.name),
                self_closing: tag.self_closing,
                attrs: Vec::new(),
                had_duplicate_attributes: false,
            }),
            LINE,
        );
        Step::Go(tag.end, Mode::after(&result))
    }

    /// After `<!`: a comment, a doctype, or a bogus comment.
    fn declaration(&self, lt: usize) -> Step {
        if self.bytes[lt + 2..].starts_with(b"--") {
            return self.comment(lt);
        }
        if self.bytes[lt + 2..].starts_with(b"[CDATA[") {
            // CDATA sections exist in foreign content only, which the tree builder knows.
            return Step::HandOver(lt, Mode::Data);
        }
        let Some(gt) = memchr::memchr(b'>', &self.bytes[lt + 2..]) else {
            return Step::HandOver(lt, Mode::Data);
        };
        let end = lt + 2 + gt + 1;
        if starts_with_ignoring_case(self.bytes, lt + 2, b"doctype") {
            // Every doctype state ends the doctype at its first `>`.
            self.delegate(lt..end, Mode::Data);
            return Step::Go(end, Mode::Data);
        }
        self.bogus_comment(lt, lt + 2)
    }

    /// A comment (its text is not kept: the sink drops it) from `<!--` at `lt`. It ends at
    /// `<!-->`, `<!--->`, or else at the first `>` of its body after `--` or `--!`, which
    /// is where the comment states reach a `>` in the comment-end or comment-end-bang state.
    fn comment(&self, lt: usize) -> Step {
        let body = lt + 4;
        let end = if self.bytes.get(body) == Some(&b'>') {
            Some(body + 1)
        } else if self.bytes[body..].starts_with(b"->") {
            Some(body + 2)
        } else {
            memchr::memchr_iter(b'>', &self.bytes[body..])
                .map(|at| body + at)
                .find(|&gt| {
                    crate::budget::check();
                    let before = &self.bytes[body..gt];
                    before.ends_with(b"--") || before.ends_with(b"--!")
                })
                .map(|gt| gt + 1)
        };
        let Some(end) = end else {
            return Step::HandOver(lt, Mode::Data);
        };
        let _ = self
            .sink
            .process_token(Token::CommentToken(StrTendril::new()), LINE);
        Step::Go(end, Mode::Data)
    }

    /// A bogus comment from `lt`, whose text starts at `from`: it ends at the first `>`.
    fn bogus_comment(&self, lt: usize, from: usize) -> Step {
        let Some(gt) = memchr::memchr(b'>', &self.bytes[from..]) else {
            return Step::HandOver(lt, Mode::Data);
        };
        let _ = self
            .sink
            .process_token(Token::CommentToken(StrTendril::new()), LINE);
        Step::Go(from + gt + 1, Mode::Data)
    }

    /// Raw text (a script's, a style's, a title's ...) up to the end tag named like the
    /// start tag that opened it, then that end tag.
    fn raw(&self, pos: usize, kind: RawKind) -> Step {
        let mode = Mode::Raw(kind);
        let Some(name) = self.last_start.borrow().clone() else {
            return Step::HandOver(pos, mode);
        };
        let end = if kind == RawKind::ScriptData {
            script_end(self.bytes, pos)
        } else {
            appropriate_end_tag(self.bytes, pos, name.as_bytes())
        };
        let Some(lt) = end else {
            return Step::HandOver(pos, mode);
        };
        if self.scan(lt + 2, |_, _| ()).is_none() {
            return Step::HandOver(pos, mode);
        }
        self.characters(pos..lt, mode);
        self.end_tag(lt, lt + 2, mode)
    }

    fn options(&self, mode: Mode) -> TokenizerOpts {
        TokenizerOpts {
            discard_bom: false,
            initial_state: Some(mode.state()),
            last_start_tag_name: self
                .last_start
                .borrow()
                .as_ref()
                .map(|name| name.to_string()),
            ..TokenizerOpts::default()
        }
    }

    /// Have html5ever tokenize `range`, which starts in `mode` and ends between two tokens;
    /// returns the state the tree builder's answer to its last tag leaves.
    fn delegate(&self, range: Range<usize>, mode: Mode) -> Mode {
        let forward = Forward {
            sink: self.sink,
            whole: false,
            mode: Cell::new(mode),
        };
        let tokenizer = Tokenizer::new(forward, self.options(mode));
        let queue = BufferQueue::default();
        queue.push_back(self.slice(range));
        while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
        tokenizer.end();
        tokenizer.sink.mode.get()
    }

    /// `range` with every start tag cut to its first `max_attributes` attributes, as
    /// html5ever must read it (it checks each attribute against all earlier ones).
    fn capped(&self, range: Range<usize>) -> StrTendril {
        match super::cap_attributes(self.text(range.clone()), self.max_attributes) {
            Cow::Borrowed(_) => self.slice(range),
            Cow::Owned(text) => StrTendril::from(text),
        }
    }

    /// Have html5ever tokenize the rest of the input, from `pos` in `mode`, and end it.
    ///
    /// The input goes in [`FEED_PIECE`] bytes at a time (html5ever's tokenizer is made to
    /// be fed a stream), with the time budget checked between pieces: inside one token (a
    /// comment left open to the end of a large page) no token reaches the checks of the sink.
    fn hand_over(&self, pos: usize, mode: Mode) {
        let forward = Forward {
            sink: self.sink,
            whole: true,
            mode: Cell::new(mode),
        };
        let tokenizer = Tokenizer::new(forward, self.options(mode));
        let queue = BufferQueue::default();
        let rest = self.capped(pos..self.bytes.len());
        let mut start = 0;
        while start < rest.len() {
            let mut end = (start + FEED_PIECE).min(rest.len());
            while !rest.is_char_boundary(end) {
                end += 1;
            }
            queue.push_back(rest.subtendril(start as u32, (end - start) as u32));
            while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
            crate::budget::checkpoint();
            start = end;
        }
        tokenizer.end();
    }
}

/// html5ever's tokens, passed on to the sink. For a stretch (not `whole`), the end of the
/// input is the stretch's, so the end-of-file token and the end are held back.
struct Forward<'a, S> {
    sink: &'a S,
    whole: bool,
    /// The state after the last tag passed on.
    mode: Cell<Mode>,
}

impl<S: TokenSink> TokenSink for Forward<'_, S> {
    type Handle = S::Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<S::Handle> {
        match token {
            Token::EOFToken if !self.whole => TokenSinkResult::Continue,
            Token::TagToken(tag) => {
                let result = self.sink.process_token(Token::TagToken(tag), line_number);
                self.mode.set(Mode::after(&result));
                result
            }
            token => self.sink.process_token(token, line_number),
        }
    }

    fn end(&self) {
        if self.whole {
            self.sink.end();
        }
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.sink
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

#[cfg(test)]
mod tests;
