use super::*;
use crate::document::build;
use crate::parse::{parse, Limits};

const PAGE: &str = r#"<html><body>
<div id="main" class="content wide" lang="en-GB">
  <p id="lead" class="lead" title="Lead Para">Lead text here.</p>
  <section id="s"><p id="ad" data-kind="AD">Advert text.</p><aside id="as"><p id="nested">Nested aside.</p></aside></section>
  <p id="third">Third.</p>
  <p id="fourth" class="Lead">Fourth.</p>
  <span id="empty"></span>
  <a id="link" href="/x">A link.</a><a id="anchor" name="n">An anchor.</a>
</div>
<div id="side" class="sidebar"><p id="side-p">Side text.</p></div>
<svg id="pic"><foreignObject id="fo"><p id="in-svg">Caption.</p></foreignObject></svg>
</body></html>"#;

/// The ids of the elements of `html` matching `selector`, in document order (`-` for none).
fn ids_in(html: &str, selector: &str) -> Vec<String> {
    let dom = parse(html, Limits::default());
    let doc = build(&dom);
    let selectors = Selectors::parse(&[selector]).expect("a valid selector");
    let mut caches = SelectorCaches::default();
    doc.nodes
        .iter()
        .filter(|&&node| selectors.matches(&dom, node, &mut caches))
        .map(|&node| dom.attr(node, "id").unwrap_or("-").to_owned())
        .collect()
}

fn ids(selector: &str) -> Vec<String> {
    ids_in(PAGE, selector)
}

#[test]
fn type_id_class_and_universal_selectors() {
    assert_eq!(ids("aside"), ["as"]);
    assert_eq!(ids("DIV"), ["main", "side"], "tag names ignore case");
    assert_eq!(ids("#main"), ["main"]);
    assert_eq!(ids(".lead"), ["lead"], "classes are case-sensitive");
    assert_eq!(ids("*.wide"), ["main"]);
    assert_eq!(ids("p.lead#lead"), ["lead"]);
    assert_eq!(ids("svg"), ["pic"]);
}

#[test]
fn attribute_operators_and_flags() {
    assert_eq!(ids("[data-kind]"), ["ad"]);
    assert_eq!(ids("[data-kind=AD]"), ["ad"]);
    assert_eq!(ids("[data-kind=ad]"), Vec::<String>::new());
    assert_eq!(ids("[data-kind=ad i]"), ["ad"]);
    assert_eq!(ids("[data-kind='AD' s]"), ["ad"]);
    assert_eq!(ids("[class~=wide]"), ["main"]);
    assert_eq!(ids("[lang|=en]"), ["main"]);
    assert_eq!(ids("[class^=side]"), ["side"]);
    assert_eq!(ids("[title$=Para]"), ["lead"]);
    assert_eq!(ids("[title*=\"d P\"]"), ["lead"]);
    assert_eq!(ids("[title*='d p' i]"), ["lead"]);
    assert_eq!(
        ids("[class^='']"),
        Vec::<String>::new(),
        "an empty prefix matches nothing"
    );
}

#[test]
fn combinators() {
    assert_eq!(ids("#main p"), ["lead", "ad", "nested", "third", "fourth"]);
    assert_eq!(ids("#main > p"), ["lead", "third", "fourth"]);
    assert_eq!(ids("section + p"), ["third"]);
    assert_eq!(ids("#lead ~ p"), ["third", "fourth"]);
    assert_eq!(ids("div > section > aside > p"), ["nested"]);
    assert_eq!(ids("body > section"), Vec::<String>::new());
}

#[test]
fn structural_pseudo_classes() {
    assert_eq!(ids("#main > :nth-child(2)"), ["s"]);
    assert_eq!(ids("#main > p:nth-child(2n+1)"), ["lead", "third"]);
    assert_eq!(ids("#main > :nth-child(odd of p)"), ["lead", "fourth"]);
    assert_eq!(ids("#main > :nth-last-child(1)"), ["anchor"]);
    assert_eq!(ids("#main > p:nth-of-type(2)"), ["third"]);
    assert_eq!(ids("#main > p:first-child"), ["lead"]);
    assert_eq!(ids("aside > :only-child"), ["nested"]);
    assert_eq!(
        ids("#main > :last-of-type"),
        ["s", "fourth", "empty", "anchor"]
    );
    assert_eq!(ids("span:empty"), ["empty"]);
    assert_eq!(ids(":root"), ["-"]);
}

#[test]
fn logical_pseudo_classes() {
    assert_eq!(ids("#main > p:not(.lead)"), ["third", "fourth"]);
    assert_eq!(ids("p:not([id*=i], .Lead)"), ["lead", "ad", "nested"]);
    assert_eq!(ids(":is(section, .sidebar) > p"), ["ad", "side-p"]);
    assert_eq!(ids(":where(#side) p"), ["side-p"]);
    assert_eq!(ids("div:has(> section)"), ["main"]);
    assert_eq!(ids("section:has(aside p)"), ["s"]);
}

#[test]
fn links() {
    assert_eq!(ids("a:link"), ["link"]);
    assert_eq!(ids(":any-link"), ["link"]);
}

#[test]
fn a_list_matches_any_of_its_selectors() {
    assert_eq!(ids("div.sidebar p, p.lead"), ["lead", "side-p"]);
    let dom = parse(PAGE, Limits::default());
    let doc = build(&dom);
    let both = Selectors::parse(&["#third", "aside, #side-p"]).unwrap();
    let mut caches = SelectorCaches::default();
    let found: Vec<&str> = doc
        .nodes
        .iter()
        .filter(|&&n| both.matches(&dom, n, &mut caches))
        .map(|&n| dom.attr(n, "id").unwrap())
        .collect();
    assert_eq!(found, ["as", "third", "side-p"]);
}

#[test]
fn bad_selectors_are_refused_with_a_reason() {
    for bad in [
        "",
        "p >",
        "> p",
        "p[",
        "p..x",
        "div.a span!",
        "p , ",
        "p::before",
        ":hover",
        "p:nth-child(x)",
        "[[[",
        "a )",
        ":is(p, :bogus)",
        ":where(p >)",
    ] {
        let error = Selectors::parse(&[bad]).expect_err(bad);
        assert_eq!(error.selector, bad);
        assert!(error.to_string().starts_with("bad CSS selector"), "{error}");
    }
    let error = Selectors::parse(&["p", "p >"]).unwrap_err();
    assert_eq!(error.selector, "p >");
    let long = "p ".repeat(MAX_SELECTOR_CHARS);
    assert!(Selectors::parse(&[&long])
        .unwrap_err()
        .reason
        .contains("longer"));
    let deep = format!("{}p{}", ":is(".repeat(40), ")".repeat(40));
    assert!(Selectors::parse(&[deep.as_str()])
        .unwrap_err()
        .reason
        .contains("nested"));
    let fine = format!("{}p{}", ":is(".repeat(8), ")".repeat(8));
    assert!(Selectors::parse(&[fine.as_str()]).is_ok());
}

#[test]
fn matching_follows_the_element_table_past_skipped_elements() {
    // <head> and <script> are elements of the table whose content is not walked; the
    // elements after them keep their own indices.
    let html = "<html><head><title id=t>T</title></head><body><script id=s>var x;</script>\
                <p id=a>One.</p><iframe id=i><p id=b>Two.</p></iframe><p id=c>Three.</p></body></html>";
    assert_eq!(
        ids_in(html, "script, p, title, iframe"),
        ["s", "a", "i", "c"]
    );
    let dom = parse(html, Limits::default());
    let doc = build(&dom);
    let selectors = Selectors::parse(&["#c"]).unwrap();
    let inside = selectors.inside_matches(&dom, &doc);
    let matched: Vec<&str> = (0..doc.len())
        .filter(|&i| inside[i])
        .map(|i| dom.tag(doc.nodes[i]))
        .collect();
    assert_eq!(matched, ["p"]);
    let texts: Vec<&str> = doc.blocks.iter().map(|b| b.text.as_str()).collect();
    let pruned = selectors.pruned_blocks(&dom, &doc);
    let kept: Vec<&str> = texts
        .iter()
        .zip(&pruned)
        .filter(|(_, p)| !**p)
        .map(|(t, _)| *t)
        .collect();
    assert!(!kept.contains(&"Three."), "{kept:?}");
    assert!(kept.contains(&"One."), "{kept:?}");
}

#[test]
fn pruned_blocks_are_the_blocks_inside_a_match() {
    let dom = parse(PAGE, Limits::default());
    let doc = build(&dom);
    let texts: Vec<&str> = doc.blocks.iter().map(|b| b.text.as_str()).collect();
    let kept = |selector: &str| -> Vec<&str> {
        let pruned = Selectors::parse(&[selector])
            .unwrap()
            .pruned_blocks(&dom, &doc);
        assert_eq!(pruned.len(), texts.len());
        texts
            .iter()
            .zip(pruned)
            .filter(|(_, p)| !p)
            .map(|(t, _)| *t)
            .collect()
    };
    assert_eq!(kept("nothing-here"), texts);
    assert_eq!(kept("body"), Vec::<&str>::new());
    let without_section = kept("section, section *");
    assert!(!without_section
        .iter()
        .any(|t| t.contains("Advert") || t.contains("Nested")));
    assert!(without_section.contains(&"Lead text here."));
    assert_eq!(
        kept("section"),
        without_section,
        "a match's descendants go with it"
    );
    let inline = kept("a:link");
    assert!(inline.iter().all(|t| !t.contains("A link.")), "{inline:?}");
}

#[test]
fn template_content_is_not_the_page() {
    let html = "<body><template><p id=t>x</p></template><p id=a>y</p></body>";
    assert_eq!(ids_in(html, "p"), ["a"]);
    assert_eq!(ids_in(html, "template > p"), Vec::<String>::new());
}

#[test]
fn deep_documents_match_without_recursion() {
    let depth = 3000;
    let html = format!(
        "{}<p class=t id=deep>deep</p>{}",
        "<div class=x>".repeat(depth),
        "</div>".repeat(depth)
    );
    // The parser caps the depth (deeper start tags are dropped, their text kept).
    let found = ids_in(&html, ".x .x > p.t");
    assert!(found.is_empty() || found == ["deep"], "{found:?}");
    let dom = parse(&html, Limits::default());
    let doc = build(&dom);
    let pruned = Selectors::parse(&[".x"]).unwrap().pruned_blocks(&dom, &doc);
    assert!(pruned.iter().all(|&p| p));
    let none = Selectors::parse(&[":has(.nothing)"])
        .unwrap()
        .pruned_blocks(&dom, &doc);
    assert!(none.iter().all(|&p| !p));
}

#[test]
fn foreign_elements_keep_their_names_case() {
    // <svg> is skipped by the walk, so its descendants are not in the element table: ask
    // the DOM's nodes directly.
    let dom = parse(PAGE, Limits::default());
    let selectors = Selectors::parse(&["foreignObject", "svg p"]).unwrap();
    let mut caches = SelectorCaches::default();
    let found: Vec<&str> = (0..dom.nodes.len() as NodeId)
        .filter(|&n| DomElement::new(&dom, n).is_some())
        .filter(|&n| selectors.matches(&dom, n, &mut caches))
        .map(|n| dom.attr(n, "id").unwrap_or("-"))
        .collect();
    assert_eq!(found, ["fo", "in-svg"]);
}
