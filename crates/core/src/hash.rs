//! The hash maps and sets of the core: std's tables with foldhash's hasher, which hashes the
//! short strings the features look up (tags, id and class values, words) much faster than
//! std's SipHash, and is seeded per process so that crafted attribute values cannot force
//! collisions chosen in advance.

pub use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
