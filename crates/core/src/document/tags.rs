//! The walk's tag classes: block-level elements, headings, elements whose content is never
//! page text, and the role each tag gives an element.

/// What the walk does with an element, by tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Role(pub(crate) u8);

impl Role {
    pub(crate) const INLINE: Role = Role(0);
    pub(crate) const BLOCK: u8 = 1;
    pub(crate) const PRE: u8 = 2;
    pub(crate) const ANCHOR: u8 = 4;
    pub(crate) const HEADING: u8 = 8;
    pub(crate) const SKIP: u8 = 16;
    pub(crate) const BR: u8 = 32;
    pub(crate) const MATH: u8 = 64;
    /// Roles that hold for everything inside the element.
    pub(crate) const INHERITED: u8 = Role::ANCHOR | Role::PRE;

    pub(crate) fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// Every element that starts and ends a block (headings, `pre` and `textarea` included):
/// the list the Python layer reads, kept equal to the walk's roles by a test.
pub const BLOCK_TAGS: &[&str] = &[
    "blockquote",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "legend",
    "li",
    "optgroup",
    "option",
    "p",
    "pre",
    "table",
    "td",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "ol",
    "article",
    "aside",
    "section",
    "nav",
    "header",
    "footer",
    "main",
    "figure",
    "figcaption",
    "details",
    "summary",
    "address",
    "hgroup",
    "menu",
    "dialog",
    "search",
    "body",
    "html",
    "tbody",
];
/// Heading elements.
pub const HEADING_TAGS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "h6"];
/// Elements whose content is never page text (see [`is_skipped_tag`]).
pub const SKIPPED_TAGS: &[&str] = &[
    "script",
    "style",
    "template",
    "iframe",
    "object",
    "embed",
    "svg",
    "canvas",
    "video",
    "audio",
    "map",
    "head",
    "annotation",
    "annotation-xml",
    "rt",
    "rp",
    "noframes",
];

/// Block-level elements other than headings, `pre` and `textarea` (whose roles add more).
pub fn is_block_tag(tag: &str) -> bool {
    matches!(
        tag,
        "blockquote"
            | "caption"
            | "center"
            | "col"
            | "colgroup"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "form"
            | "legend"
            | "li"
            | "optgroup"
            | "option"
            | "p"
            | "table"
            | "td"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
            | "ol"
            | "article"
            | "aside"
            | "section"
            | "nav"
            | "header"
            | "footer"
            | "main"
            | "figure"
            | "figcaption"
            | "details"
            | "summary"
            | "address"
            | "hgroup"
            | "menu"
            | "dialog"
            | "search"
            | "body"
            | "html"
            | "tbody"
    )
}

pub fn is_heading_tag(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Elements whose content is never page text. MathML is page text (browsers render it);
/// its `<annotation>` encodings (TeX, say) are not rendered. A ruby's annotations (`<rt>`,
/// and the `<rp>` parentheses around them) gloss the base text and are not part of it.
/// `<noframes>` holds raw markup for browsers without frames, which no page reader shows
/// (a frameset page is read from that markup instead: see `parse::parse`).
pub fn is_skipped_tag(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "template"
            | "iframe"
            | "object"
            | "embed"
            | "svg"
            | "canvas"
            | "video"
            | "audio"
            | "map"
            | "head"
            | "annotation"
            | "annotation-xml"
            | "rt"
            | "rp"
            | "noframes"
    )
}

pub(crate) fn role(tag: &str) -> Role {
    if is_heading_tag(tag) {
        return Role(Role::BLOCK | Role::HEADING);
    }
    match tag {
        "pre" | "textarea" => Role(Role::BLOCK | Role::PRE),
        "a" => Role(Role::ANCHOR),
        "br" => Role(Role::BR),
        "math" => Role(Role::MATH),
        _ if is_block_tag(tag) => Role(Role::BLOCK),
        _ if is_skipped_tag(tag) => Role(Role::SKIP),
        _ => Role::INLINE,
    }
}
