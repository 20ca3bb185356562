//! A model file's arrays as numpy stores them: an ``.npz`` archive (a zip of ``.npy`` files,
//! stored or deflated), read without numpy and without Python's ``zipfile``, whose import
//! alone cost a process's first extraction more than reading the file.
//!
//! Only what a model file holds is read: ``.npy`` members of format versions 1 to 3, in C order,
//! whose dtype is a little-endian or single-byte one (``<f8``, ``<i4``, ``|u1``, ``<U67822``
//! ...); the values are handed on as the bytes the file stores (see `crates/python`'s
//! ``LearnedModel``, which checks them against their shapes).

use std::io::{Cursor, Read};

/// One ``.npy`` member: numpy's dtype string, the shape and the C-ordered bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyArray {
    pub descr: String,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// The ``.npy`` members of the archive ``bytes``, by member name (``"stage1.feature.npy"``),
/// in the archive's order; other members are skipped. An error says what is wrong.
pub fn read_npz(bytes: &[u8]) -> Result<Vec<(String, NpyArray)>, String> {
    let mut archive =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("not a zip archive: {e}"))?;
    let mut arrays = Vec::new();
    for index in 0..archive.len() {
        let mut member = archive
            .by_index(index)
            .map_err(|e| format!("an unreadable member: {e}"))?;
        let name = member.name().to_owned();
        if !name.ends_with(".npy") {
            continue;
        }
        // The declared size bounds the first allocation only: a member that inflates to more
        // grows the buffer as it is read, and a damaged one fails its checksum.
        let mut blob = Vec::with_capacity(usize::try_from(member.size()).unwrap_or(0).min(1 << 26));
        member
            .read_to_end(&mut blob)
            .map_err(|e| format!("{name}: {e}"))?;
        arrays.push((
            name.clone(),
            npy(&blob).map_err(|e| format!("{name}: {e}"))?,
        ));
    }
    Ok(arrays)
}

/// One ``.npy`` file (format versions 1 to 3).
pub fn npy(blob: &[u8]) -> Result<NpyArray, String> {
    if blob.len() < 8 || &blob[..6] != NPY_MAGIC || !(1..=3).contains(&blob[6]) {
        return Err("not an .npy array".into());
    }
    let size_bytes = if blob[6] == 1 { 2 } else { 4 };
    let start = 8 + size_bytes;
    let header_len = match blob.get(8..start) {
        Some(&[a, b]) => usize::from(u16::from_le_bytes([a, b])),
        Some(&[a, b, c, d]) => {
            usize::try_from(u32::from_le_bytes([a, b, c, d])).unwrap_or(usize::MAX)
        }
        _ => return Err("not an .npy array".into()),
    };
    let end = start
        .checked_add(header_len)
        .filter(|&end| end <= blob.len())
        .ok_or("a truncated .npy header")?;
    // Latin-1, as numpy reads it: every byte is the character of its code.
    let text: String = blob[start..end].iter().map(|&b| char::from(b)).collect();
    let unreadable = || format!("an .npy header thresher does not read: {:?}", text.trim());
    let descr = quoted_value(&text, "'descr'")
        .filter(|d| is_descr(d))
        .ok_or_else(unreadable)?;
    let fortran = match word_value(&text, "'fortran_order'") {
        Some("True") => true,
        Some("False") => false,
        _ => return Err(unreadable()),
    };
    let shape = shape_value(&text, "'shape'").ok_or_else(unreadable)?;
    if fortran && shape.len() > 1 {
        return Err("an array in Fortran order".into());
    }
    Ok(NpyArray {
        descr: descr.to_owned(),
        shape,
        data: blob[end..].to_vec(),
    })
}

/// The text after ``key`` and a colon (spaces allowed around it), or None.
fn after_key<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let rest = &text[text.find(key)? + key.len()..];
    rest.trim_start().strip_prefix(':').map(str::trim_start)
}

/// ``'<f8'`` after ``key``: the quoted string.
fn quoted_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let rest = after_key(text, key)?.strip_prefix('\'')?;
    Some(&rest[..rest.find('\'')?])
}

/// ``True`` after ``key``: the word up to a comma, a space or the closing brace.
fn word_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let rest = after_key(text, key)?;
    Some(&rest[..rest.find([',', ' ', '}']).unwrap_or(rest.len())])
}

/// ``(3, 4)`` after ``key``: the dimensions (``()`` is a scalar's).
fn shape_value(text: &str, key: &str) -> Option<Vec<usize>> {
    let rest = after_key(text, key)?.strip_prefix('(')?;
    let inside = &rest[..rest.find(')')?];
    inside
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().ok())
        .collect()
}

/// A little-endian or single-byte dtype: ``<`` or ``|``, a letter, a width.
fn is_descr(descr: &str) -> bool {
    let mut chars = descr.chars();
    matches!(chars.next(), Some('<' | '|'))
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && !chars.as_str().is_empty()
        && chars.as_str().bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn npy_file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut text = header.to_owned();
        while !(10 + text.len() + 1).is_multiple_of(64) {
            text.push(' ');
        }
        text.push('\n');
        let mut blob = NPY_MAGIC.to_vec();
        blob.extend_from_slice(&[1, 0]);
        blob.extend_from_slice(&u16::try_from(text.len()).unwrap().to_le_bytes());
        blob.extend_from_slice(text.as_bytes());
        blob.extend_from_slice(data);
        blob
    }

    fn archive(members: &[(&str, Vec<u8>)], method: zip::CompressionMethod) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        for (name, blob) in members {
            out.start_file(*name, options).unwrap();
            out.write_all(blob).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    #[test]
    fn reads_stored_and_deflated_members_and_skips_others() {
        let floats = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
            &[0; 16],
        );
        let scalar = npy_file(
            "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
            &[7, 0, 0, 0, 0, 0, 0, 0],
        );
        for method in [
            zip::CompressionMethod::Stored,
            zip::CompressionMethod::Deflated,
        ] {
            let bytes = archive(
                &[
                    ("a.value.npy", floats.clone()),
                    ("notes.txt", b"x".to_vec()),
                    ("a.depth.npy", scalar.clone()),
                ],
                method,
            );
            let arrays = read_npz(&bytes).unwrap();
            let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["a.value.npy", "a.depth.npy"]);
            assert_eq!(
                arrays[0].1,
                NpyArray {
                    descr: "<f8".into(),
                    shape: vec![2],
                    data: vec![0; 16]
                }
            );
            assert_eq!(arrays[1].1.shape, Vec::<usize>::new());
        }
    }

    #[test]
    fn refuses_what_is_not_a_model_file() {
        assert!(read_npz(b"not a zip")
            .unwrap_err()
            .contains("not a zip archive"));
        let bad = archive(
            &[("x.npy", b"plain text".to_vec())],
            zip::CompressionMethod::Stored,
        );
        assert!(read_npz(&bad).unwrap_err().contains("not an .npy array"));
        let object = npy_file(
            "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
            &[0; 8],
        );
        assert!(npy(&object).unwrap_err().contains("does not read"));
        let fortran = npy_file(
            "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }",
            &[0; 32],
        );
        assert!(npy(&fortran).unwrap_err().contains("Fortran"));
        let mut truncated = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
            &[],
        );
        truncated.truncate(20);
        assert!(npy(&truncated).unwrap_err().contains("truncated"));
    }
}
