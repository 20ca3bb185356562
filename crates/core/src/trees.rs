//! Tree-ensemble inference over a model file's node arrays.
//!
//! A node is a split when `feature[node] >= 0`: a row goes right when
//! `x[feature] > threshold`, else left, so a NaN goes left as it does under
//! numpy's `>` (see [`goes_right`]). Leaves hold `value`.
//! The margin of a row is the sum of its leaves' values, added in numpy's
//! pairwise order so that the Python and native sums agree to the bit, plus
//! the ensemble's base.

/// A tree ensemble borrowed from the model's arrays.
#[derive(Clone, Copy, Debug)]
pub struct Ensemble<'a> {
    pub feature: &'a [i32],
    pub threshold: &'a [f64],
    pub left: &'a [i32],
    pub right: &'a [i32],
    pub value: &'a [f64],
    pub roots: &'a [i32],
    pub base: f64,
}

/// Why an ensemble cannot be evaluated on some rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeError {
    /// The node arrays differ in length.
    Ragged,
    /// A root or child index outside the node arrays.
    BadNode(i64),
    /// A split reads a column the rows do not have.
    BadFeature(i64),
    /// A path longer than the node count: the arrays hold a cycle.
    Cycle,
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeError::Ragged => write!(f, "the tree arrays differ in length"),
            TreeError::BadNode(n) => write!(f, "node index {n} is out of range"),
            TreeError::BadFeature(c) => {
                write!(f, "a split reads column {c}, beyond the rows' width")
            }
            TreeError::Cycle => write!(f, "the trees hold a cycle"),
        }
    }
}

impl std::error::Error for TreeError {}

/// numpy's float comparison `x > t`: false when either is NaN.
#[inline]
fn goes_right(x: f64, threshold: f64) -> bool {
    x > threshold
}

impl Ensemble<'_> {
    /// Check every index once, so that [`Ensemble::margins`] can trust them.
    pub fn validate(&self, width: usize) -> Result<(), TreeError> {
        let n = self.feature.len();
        if [
            self.threshold.len(),
            self.left.len(),
            self.right.len(),
            self.value.len(),
        ]
        .iter()
        .any(|&len| len != n)
        {
            return Err(TreeError::Ragged);
        }
        let in_range = |i: i32| usize::try_from(i).is_ok_and(|i| i < n);
        for &root in self.roots {
            if !in_range(root) {
                return Err(TreeError::BadNode(i64::from(root)));
            }
        }
        for node in 0..n {
            let feature = self.feature[node];
            if feature < 0 {
                continue;
            }
            if usize::try_from(feature).map_or(true, |f| f >= width) {
                return Err(TreeError::BadFeature(i64::from(feature)));
            }
            for child in [self.left[node], self.right[node]] {
                if !in_range(child) {
                    return Err(TreeError::BadNode(i64::from(child)));
                }
            }
        }
        Ok(())
    }

    /// The leaf value tree `root` gives `row`.
    fn leaf<X: Copy + Into<f64>>(&self, root: usize, row: &[X]) -> Result<f64, TreeError> {
        let mut node = root;
        for _ in 0..=self.feature.len() {
            let feature = self.feature[node];
            if feature < 0 {
                return Ok(self.value[node]);
            }
            let right = goes_right(row[feature as usize].into(), self.threshold[node]);
            node = if right {
                self.right[node]
            } else {
                self.left[node]
            } as usize;
        }
        Err(TreeError::Cycle)
    }

    /// The margin of every row of `x` (row-major, `width` columns) into `out`. Rows of
    /// `f32` compare exactly as `f64`: every `f32` converts to `f64` without rounding.
    pub fn margins<X: Copy + Into<f64>>(
        &self,
        x: &[X],
        width: usize,
        out: &mut [f64],
    ) -> Result<(), TreeError> {
        self.validate(width)?;
        let mut leaves = vec![0.0; self.roots.len()];
        for (row, margin) in x.chunks_exact(width.max(1)).zip(out.iter_mut()) {
            for (leaf, &root) in leaves.iter_mut().zip(self.roots) {
                *leaf = self.leaf(root as usize, row)?;
            }
            *margin = pairwise_sum(&leaves) + self.base;
        }
        Ok(())
    }
}

/// The sum of `values` in the order numpy's `add.reduce` adds a contiguous row:
/// eight running sums over blocks of up to 128 values, halves above that.
pub fn pairwise_sum(values: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = values.len();
    if n < 8 {
        // numpy starts from -0.0 here, so that a sum of negative zeros stays negative.
        return values.iter().fold(-0.0, |sum, v| sum + v);
    }
    if n <= BLOCK {
        let mut r = [0.0; 8];
        r.copy_from_slice(&values[..8]);
        let mut i = 8;
        while i + 8 <= n {
            for (k, acc) in r.iter_mut().enumerate() {
                *acc += values[i + k];
            }
            i += 8;
        }
        let mut sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &values[i..] {
            sum += v;
        }
        return sum;
    }
    let half = (n / 2) - (n / 2) % 8;
    pairwise_sum(&values[..half]) + pairwise_sum(&values[half..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// feature, threshold, left, right, value, roots.
    type Arrays = (Vec<i32>, Vec<f64>, Vec<i32>, Vec<i32>, Vec<f64>, Vec<i32>);

    /// Two stumps on columns 0 and 1.
    fn stumps() -> Arrays {
        (
            vec![0, -1, -1, 1, -1, -1],
            vec![0.5, 0.0, 0.0, 2.0, 0.0, 0.0],
            vec![1, 1, 2, 4, 4, 5],
            vec![2, 1, 2, 5, 4, 5],
            vec![0.0, -1.0, 1.0, 0.0, 10.0, 20.0],
            vec![0, 3],
        )
    }

    #[test]
    fn rows_follow_their_splits_and_sum_the_leaves() {
        let (feature, threshold, left, right, value, roots) = stumps();
        let ensemble = Ensemble {
            feature: &feature,
            threshold: &threshold,
            left: &left,
            right: &right,
            value: &value,
            roots: &roots,
            base: 0.25,
        };
        let x = [0.5, 2.0, 0.6, 2.1, f64::NAN, f64::NAN];
        let mut out = [0.0; 3];
        ensemble.margins(&x, 2, &mut out).unwrap();
        let mut out32 = [0.0; 3];
        let x32 = x.map(|v| v as f32);
        ensemble.margins(&x32, 2, &mut out32).unwrap();
        assert_eq!(out, out32);
        // x <= threshold goes left; NaN compares false and so goes left too.
        assert_eq!(
            out,
            [-1.0 + 10.0 + 0.25, 1.0 + 20.0 + 0.25, -1.0 + 10.0 + 0.25]
        );
    }

    #[test]
    fn bad_indices_are_errors_not_panics() {
        let (feature, threshold, mut left, right, value, roots) = stumps();
        let ensemble = Ensemble {
            feature: &feature,
            threshold: &threshold,
            left: &left,
            right: &right,
            value: &value,
            roots: &roots,
            base: 0.0,
        };
        assert_eq!(ensemble.validate(1), Err(TreeError::BadFeature(1)));
        left[0] = 99;
        let broken = Ensemble {
            feature: &feature,
            threshold: &threshold,
            left: &left,
            right: &right,
            value: &value,
            roots: &roots,
            base: 0.0,
        };
        assert_eq!(broken.validate(2), Err(TreeError::BadNode(99)));
    }

    #[test]
    fn a_cycle_is_reported() {
        let feature = [0, 0];
        let threshold = [1.0, 1.0];
        let next = [1, 0];
        let value = [0.0, 0.0];
        let ensemble = Ensemble {
            feature: &feature,
            threshold: &threshold,
            left: &next,
            right: &next,
            value: &value,
            roots: &[0],
            base: 0.0,
        };
        let mut out = [0.0];
        assert_eq!(ensemble.margins(&[0.0], 1, &mut out), Err(TreeError::Cycle));
    }

    #[test]
    fn pairwise_sum_matches_plain_sum_on_exact_values() {
        let values: Vec<f64> = (0..300).map(f64::from).collect();
        assert_eq!(pairwise_sum(&values), 299.0 * 300.0 / 2.0);
        assert_eq!(pairwise_sum(&values[..5]), 10.0);
        assert_eq!(pairwise_sum(&[]), 0.0);
    }
}
