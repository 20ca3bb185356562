//! Feature columns computed from a [`crate::Document`], one row per block, in float32.
//!
//! Each group reproduces the Python definition it replaces exactly, including Python's
//! Unicode semantics where the definition uses them (`str.split`, `str.lower`, `re`'s `\w`
//! and `\d`): the learned models were trained on those values.

pub mod base;
pub mod candidates;
pub mod cetr;
pub mod columns;
pub mod context;
pub mod cues;
pub mod neighbours;
pub mod overlap;
pub mod page;
pub mod shallow;
pub mod stage2;
pub mod structure;
pub mod template;
pub mod tokens;
pub mod tree;
pub mod unicode;
