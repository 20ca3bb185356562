//! thresher's native core: hostile-safe HTML parsing into an arena DOM, and the
//! walk that turns it into the block document every extraction algorithm reads.
//!
//! Nothing here knows Python; `crates/python` exposes it as `thresher._core`.

pub mod automaton;
pub mod budget;
pub mod comments;
pub mod document;
pub mod dom;
pub mod features;
pub mod filters;
pub mod hash;
pub mod hidden;
pub mod learned;
pub mod npz;
pub mod parse;
pub mod select;
pub mod selection;
pub mod seqnet;
pub mod text;
pub mod trees;

pub use document::{build, Block, Document, HeadFacts, Span};
pub use dom::Dom;
pub use parse::{parse, Limits};
