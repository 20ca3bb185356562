//! Named feature columns of one page, as the feature groups build them (column by column)
//! and as the models read them (one row per block).

/// A group of named columns of equal length, one value per block, in float32 (the values
/// the Python layer's feature matrices hold).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    pub names: Vec<String>,
    pub values: Vec<Vec<f32>>,
}

impl Columns {
    /// Adds a column of float64 values, rounded to float32 as numpy's cast rounds them.
    pub fn push<I: IntoIterator<Item = f64>>(&mut self, name: impl Into<String>, values: I) {
        self.names.push(name.into());
        self.values
            .push(values.into_iter().map(to_f32_checked).collect());
    }

    /// Adds a column that is already float32.
    pub fn push_f32(&mut self, name: impl Into<String>, values: Vec<f32>) {
        // The column was computed in one pass: the budget is read between passes.
        crate::budget::checkpoint();
        self.names.push(name.into());
        self.values.push(values);
    }

    /// Adds the columns of `other` after these.
    pub fn extend(&mut self, other: Columns) {
        self.names.extend(other.names);
        self.values.extend(other.values);
    }

    /// The values of the column called `name`.
    pub fn column(&self, name: &str) -> Option<&[f32]> {
        let at = self.names.iter().position(|n| n == name)?;
        Some(&self.values[at])
    }

    /// The values row after row (`rows` rows, one value per column in each).
    pub fn row_major(&self, rows: usize) -> Vec<f32> {
        let width = self.values.len();
        let mut out = Vec::with_capacity(rows * width);
        for i in 0..rows {
            out.extend(
                self.values
                    .iter()
                    .map(|column| column.get(i).copied().unwrap_or(0.0)),
            );
        }
        out
    }
}

/// `value` as float32, counting one step of the time budget (a column's values are
/// computed as they are collected).
fn to_f32_checked(value: f64) -> f32 {
    crate::budget::check();
    value as f32
}

/// `1` for true, `0` for false, as a feature value.
pub fn flag(value: bool) -> f64 {
    f64::from(u8::from(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_come_out_row_after_row() {
        let mut cols = Columns::default();
        cols.push("a", [1.0, 2.0]);
        cols.push_f32("b", vec![3.0, 4.0]);
        let mut more = Columns::default();
        more.push("c", [0.1, 0.2]);
        cols.extend(more);
        assert_eq!(cols.names, ["a", "b", "c"]);
        assert_eq!(cols.row_major(2), [1.0, 3.0, 0.1, 2.0, 4.0, 0.2]);
        assert_eq!(cols.column("b"), Some(&[3.0f32, 4.0][..]));
        assert_eq!(cols.column("z"), None);
        assert!(Columns::default().row_major(3).is_empty());
        assert_eq!(flag(true) + flag(false), 1.0);
    }
}
