//! Selected columns of the blocks before and after each block in reading order.

use super::columns::Columns;

/// The columns whose neighbours' values are features, in order.
pub const NEIGHBOUR_COLUMNS: [&str; 10] = [
    "log_words",
    "link_density",
    "stopword_density",
    "text_density",
    "is_heading",
    "tag_p",
    "tag_li",
    "tag_a",
    "neg_cue_near",
    "pos_cue_near",
];
/// The neighbours read, as offsets in reading order.
pub const OFFSETS: [i64; 4] = [-2, -1, 1, 2];

/// Values moved by `offset` along the reading order: value i becomes value i + offset
/// (zero past the ends).
pub fn shift(values: &[f32], offset: i64) -> Vec<f32> {
    let n = values.len() as i64;
    (0..n)
        .map(|i| {
            let at = i + offset;
            if (0..n).contains(&at) {
                values[at as usize]
            } else {
                0.0
            }
        })
        .collect()
}

/// `<column>@<offset>` for each offset of `offsets`, then each column of `names` that
/// `own` holds (the others are left out).
pub fn columns(own: &Columns, names: &[&str], offsets: &[i64]) -> Columns {
    let mut cols = Columns::default();
    for &offset in offsets {
        for name in names {
            if let Some(values) = own.column(name) {
                cols.push_f32(format!("{name}@{offset:+}"), shift(values, offset));
            }
        }
    }
    cols
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_shift_and_zero_the_edges() {
        assert_eq!(shift(&[1.0, 2.0, 3.0], -1), [0.0, 1.0, 2.0]);
        assert_eq!(shift(&[1.0, 2.0, 3.0], 2), [3.0, 0.0, 0.0]);
        assert_eq!(shift(&[1.0], 2), [0.0]);
        assert!(shift(&[], -2).is_empty());
        let mut own = Columns::default();
        own.push("log_words", [1.0, 2.0]);
        own.push("other", [5.0, 6.0]);
        let cols = columns(&own, &["log_words", "missing"], &[-1, 1]);
        assert_eq!(cols.names, ["log_words@-1", "log_words@+1"]);
        assert_eq!(cols.values, [vec![0.0, 1.0], vec![2.0, 0.0]]);
    }
}
