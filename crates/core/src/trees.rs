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

/// Ensembles no deeper than this are laid out as complete binary trees.
pub const COMPLETE_MAX_LEVELS: u32 = 10;

/// An ensemble padded to complete binary trees of one depth, in heap order: node `h`
/// has children `2h + 1` and `2h + 2`. A leaf above the last level becomes a chain of
/// nodes that always go left (threshold +inf, which no value exceeds, NaN included),
/// and every last-level slot under it holds its value, so a row takes `levels` steps
/// of one load and one comparison per tree, with no leaf test.
#[derive(Clone, Debug, PartialEq)]
pub struct CompleteEnsemble {
    levels: u32,
    /// Each split's column and threshold, side by side so that a step loads both at once.
    splits: Vec<(u32, f64)>,
    // The same splits for float32 rows: each threshold the largest float32 not above the
    // float64 one, so that a float32 `x` exceeds it exactly when `x` (as float64) exceeds the
    // original.
    splits32: Vec<(u32, f32)>,
    value: Vec<f64>,
    trees: usize,
    width: usize,
    base: f64,
}

impl CompleteEnsemble {
    /// The complete layout of `ensemble` for rows of `width` columns, when its trees are
    /// at most `levels` deep (1 to [`COMPLETE_MAX_LEVELS`]).
    pub fn new(
        ensemble: &Ensemble<'_>,
        width: usize,
        levels: u32,
    ) -> Result<Option<Self>, TreeError> {
        ensemble.validate(width)?;
        if levels == 0 || levels > COMPLETE_MAX_LEVELS {
            return Ok(None);
        }
        let inner = (1usize << levels) - 1;
        let trees = ensemble.roots.len();
        let mut feature = vec![0u32; trees * inner];
        let mut threshold = vec![f64::INFINITY; trees * inner];
        let mut value = vec![0.0; trees * (inner + 1)];
        for (t, &root) in ensemble.roots.iter().enumerate() {
            // (node, heap position, depth), walked with a stack: no recursion.
            let mut stack = vec![(root as usize, 0usize, 0u32)];
            while let Some((node, heap, depth)) = stack.pop() {
                let split = ensemble.feature[node];
                if split < 0 || depth == levels {
                    if split >= 0 {
                        return Ok(None); // deeper than declared: keep the node walk
                    }
                    let span = 1usize << (levels - depth);
                    let first = (heap + 1) * span - 1 - inner;
                    value[t * (inner + 1) + first..t * (inner + 1) + first + span]
                        .fill(ensemble.value[node]);
                    continue;
                }
                feature[t * inner + heap] = split as u32;
                threshold[t * inner + heap] = ensemble.threshold[node];
                stack.push((ensemble.left[node] as usize, 2 * heap + 1, depth + 1));
                stack.push((ensemble.right[node] as usize, 2 * heap + 2, depth + 1));
            }
        }
        let splits: Vec<(u32, f64)> = feature.into_iter().zip(threshold).collect();
        let splits32 = splits.iter().map(|&(f, t)| (f, float32_floor(t))).collect();
        Ok(Some(CompleteEnsemble {
            levels,
            splits,
            splits32,
            value,
            trees,
            width,
            base: ensemble.base,
        }))
    }

    /// Columns a row must have.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The margin of every row of `x` (row-major, [`CompleteEnsemble::width`] columns).
    ///
    /// Rows are taken [`ROW_GROUP`] at a time and each tree walks the whole group level by
    /// level: the group's walks are independent, so the processor overlaps their loads
    /// instead of waiting on one row's chain of dependent loads.
    pub fn margins<X: SplitValue>(&self, x: &[X], out: &mut [f64]) {
        let width = self.width.max(1);
        let mut leaves = vec![0.0; ROW_GROUP * self.trees];
        for (rows, margins) in x.chunks(ROW_GROUP * width).zip(out.chunks_mut(ROW_GROUP)) {
            self.chunk_margins(rows, &mut leaves, margins);
        }
    }

    /// The margins of `rows` (at most [`ROW_GROUP`] whole rows) into `margins`.
    fn chunk_margins<X: SplitValue>(&self, rows: &[X], leaves: &mut [f64], margins: &mut [f64]) {
        let width = self.width.max(1);
        let group = rows.len() / width;
        if group == ROW_GROUP {
            self.group_leaves::<X, ROW_GROUP>(rows, leaves);
        } else {
            // A partial group: four rows at a time, then one.
            let quads = group / 4 * 4;
            for (q, four) in rows[..quads * width].chunks_exact(4 * width).enumerate() {
                self.group_leaves::<X, 4>(four, &mut leaves[4 * q * self.trees..]);
            }
            for r in quads..group {
                let row = &rows[r * width..(r + 1) * width];
                self.group_leaves::<X, 1>(row, &mut leaves[r * self.trees..]);
            }
        }
        for (margin, row_leaves) in margins.iter_mut().zip(leaves.chunks_exact(self.trees)) {
            *margin = pairwise_sum(row_leaves) + self.base;
        }
    }

    /// The margins of rows `rows` of a page whose columns lie in several float32 matrices
    /// (`groups`, each row-major with its own width), without joining them: column j of
    /// this ensemble's rows is column `sources[j].1` of group `sources[j].0`. Rows are
    /// gathered [`ROW_GROUP`] at a time into a small buffer, which the trees walk as in
    /// [`CompleteEnsemble::margins`]; so the margins are those of the joined rows.
    pub fn margins_gathered(
        &self,
        groups: &[(&[f32], usize)],
        sources: &[(usize, usize)],
        rows: &[usize],
    ) -> Result<Vec<f64>, GatherError> {
        if sources.len() != self.width {
            return Err(GatherError::Width);
        }
        let height = groups.first().map_or(0, |(data, width)| {
            data.len().checked_div(*width).unwrap_or(0)
        });
        if groups
            .iter()
            .any(|(data, width)| data.len() != height * width)
        {
            return Err(GatherError::Ragged);
        }
        if sources
            .iter()
            .any(|&(g, c)| groups.get(g).is_none_or(|(_, width)| c >= *width))
        {
            return Err(GatherError::Column);
        }
        if rows.iter().any(|&r| r >= height) {
            return Err(GatherError::Row);
        }
        let width = self.width.max(1);
        // Each source's group and column, resolved once: (the group's values, its width, column).
        let columns: Vec<(&[f32], usize, usize)> = sources
            .iter()
            .map(|&(g, c)| (groups[g].0, groups[g].1, c))
            .collect();
        let mut buffer = vec![0.0f32; ROW_GROUP * width];
        let mut leaves = vec![0.0; ROW_GROUP * self.trees];
        let mut out = vec![self.base; rows.len()];
        for (chunk, margins) in rows.chunks(ROW_GROUP).zip(out.chunks_mut(ROW_GROUP)) {
            for (&row, slot) in chunk.iter().zip(buffer.chunks_exact_mut(width)) {
                for (value, &(data, group_width, c)) in slot.iter_mut().zip(&columns) {
                    *value = data[row * group_width + c];
                }
            }
            self.chunk_margins(&buffer[..chunk.len() * width], &mut leaves, margins);
        }
        Ok(out)
    }

    /// The leaf value of every tree for each of the `G` rows in `rows`, into
    /// `leaves[r * trees + t]`.
    #[inline(always)]
    fn group_leaves<X: SplitValue, const G: usize>(&self, rows: &[X], leaves: &mut [f64]) {
        let inner = (1usize << self.levels) - 1;
        let width = self.width.max(1);
        let splits = X::splits(self);
        let row: [&[X]; G] = std::array::from_fn(|r| &rows[r * width..(r + 1) * width]);
        for t in 0..self.trees {
            let tree = &splits[t * inner..(t + 1) * inner];
            let mut heap = [0usize; G];
            for _ in 0..self.levels {
                for (h, row) in heap.iter_mut().zip(&row) {
                    debug_assert!(*h < tree.len());
                    // SAFETY: `tree` holds `inner` = 2^levels - 1 splits, and after l < levels
                    // steps from 0 (each step h -> 2h + 1 or 2h + 2) h is at most 2^(l+1) - 2,
                    // below `inner`.
                    let (feature, threshold) = unsafe { *tree.get_unchecked(*h) };
                    debug_assert!((feature as usize) < row.len());
                    // SAFETY: `new` validated every split's column against `width` (padding
                    // splits read column 0, and a row is reached only when width >= 1), and
                    // `row` holds exactly `width` values.
                    let value = unsafe { *row.get_unchecked(feature as usize) };
                    *h = 2 * *h + 1 + usize::from(value > threshold);
                }
            }
            let values = &self.value[t * (inner + 1)..(t + 1) * (inner + 1)];
            for (r, h) in heap.iter().enumerate() {
                leaves[r * self.trees + t] = values[h - inner];
            }
        }
    }
}

/// Why rows cannot be gathered from column groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GatherError {
    /// The sources name a different number of columns than the ensemble reads.
    Width,
    /// The groups hold different numbers of rows (or a partial row).
    Ragged,
    /// A source names a group or a column that does not exist.
    Column,
    /// A row index beyond the groups' rows.
    Row,
}

impl std::fmt::Display for GatherError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GatherError::Width => "the sources must name one column per column the trees read",
            GatherError::Ragged => "the column groups differ in their number of rows",
            GatherError::Column => "a source names a group or column that does not exist",
            GatherError::Row => "a row index is beyond the groups' rows",
        })
    }
}

impl std::error::Error for GatherError {}

/// A row's value type: float32 rows compare against [`CompleteEnsemble`]'s float32
/// thresholds, float64 rows against the model's own. `>` is false when either side is NaN,
/// as under numpy (see [`goes_right`]).
pub trait SplitValue: Copy + PartialOrd {
    /// Each split's (column, threshold), in heap order, tree after tree.
    fn splits(ensemble: &CompleteEnsemble) -> &[(u32, Self)];
}

impl SplitValue for f32 {
    fn splits(ensemble: &CompleteEnsemble) -> &[(u32, f32)] {
        &ensemble.splits32
    }
}

impl SplitValue for f64 {
    fn splits(ensemble: &CompleteEnsemble) -> &[(u32, f64)] {
        &ensemble.splits
    }
}

/// The largest float32 not above `t` (NaN stays NaN). For a float32 `x`,
/// `x > float32_floor(t)` exactly when `f64::from(x) > t`: if `x > t` then `x` exceeds
/// every float32 at or below `t`; if `x` exceeds the largest of them, `x` is a float32
/// above `t`.
fn float32_floor(t: f64) -> f32 {
    let near = t as f32;
    if f64::from(near) > t {
        near.next_down()
    } else {
        near
    }
}

/// Rows walked together by [`CompleteEnsemble::margins`].
pub const ROW_GROUP: usize = 16;

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

    fn view(a: &Arrays, base: f64) -> Ensemble<'_> {
        Ensemble {
            feature: &a.0,
            threshold: &a.1,
            left: &a.2,
            right: &a.3,
            value: &a.4,
            roots: &a.5,
            base,
        }
    }

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
        let arrays = stumps();
        let ensemble = view(&arrays, 0.25);
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
        let mut arrays = stumps();
        assert_eq!(
            view(&arrays, 0.0).validate(1),
            Err(TreeError::BadFeature(1))
        );
        arrays.2[0] = 99;
        assert_eq!(view(&arrays, 0.0).validate(2), Err(TreeError::BadNode(99)));
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
    fn the_complete_layout_scores_as_the_node_walk() {
        let arrays = stumps();
        let ensemble = view(&arrays, 0.5);
        let x = [0.5, 2.0, 0.6, 2.1, f64::NAN, 9.0, -1.0, f64::NAN];
        let mut walked = [0.0; 4];
        ensemble.margins(&x, 2, &mut walked).unwrap();
        for levels in [1, 3] {
            let complete = CompleteEnsemble::new(&ensemble, 2, levels)
                .unwrap()
                .unwrap();
            let mut out = [0.0; 4];
            complete.margins(&x, &mut out);
            assert_eq!(out, walked);
        }
        assert_eq!(CompleteEnsemble::new(&ensemble, 2, 0).unwrap(), None);
    }

    #[test]
    fn rows_in_groups_and_in_the_remainder_score_as_the_node_walk() {
        let arrays = stumps();
        let ensemble = view(&arrays, -0.5);
        // 2 full groups and a remainder of 7 rows (a group of 4 and 3 single rows), with NaNs and ties on the thresholds.
        let rows = 2 * ROW_GROUP + 7;
        let x: Vec<f64> = (0..rows * 2)
            .map(|i| match i % 7 {
                0 => f64::NAN,
                1 => 0.5,
                2 => 2.0,
                k => k as f64 * 0.37 - 0.4,
            })
            .collect();
        let mut walked = vec![0.0; rows];
        ensemble.margins(&x, 2, &mut walked).unwrap();
        let complete = CompleteEnsemble::new(&ensemble, 2, 2).unwrap().unwrap();
        let mut out = vec![0.0; rows];
        complete.margins(&x, &mut out);
        assert_eq!(out, walked);
    }

    #[test]
    fn float32_rows_split_as_their_float64_values() {
        let ts = [
            0.1,
            -0.1,
            1e-45,
            -1e-45,
            3.5e38,
            -3.5e38,
            1.0,
            0.0,
            -0.0,
            f64::INFINITY,
        ];
        let xs = [
            0.1f32,
            -0.1,
            0.0,
            -0.0,
            1.0,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        for t in ts {
            let floor = float32_floor(t);
            assert!(f64::from(floor) <= t);
            for x in xs {
                assert_eq!(x > floor, f64::from(x) > t, "x {x} t {t}");
                for y in [x.next_up(), x.next_down()] {
                    assert_eq!(y > floor, f64::from(y) > t, "x {y} t {t}");
                }
            }
        }
        assert!(float32_floor(f64::NAN).is_nan());
    }

    #[test]
    fn gathered_rows_score_as_the_joined_rows() {
        let arrays = stumps();
        let ensemble = view(&arrays, 0.5);
        let complete = CompleteEnsemble::new(&ensemble, 2, 2).unwrap().unwrap();
        // Column 0 of the rows lives in group 1 (column 2), column 1 in group 0 (column 0).
        let rows = 2 * ROW_GROUP + 5;
        let a: Vec<f32> = (0..rows).map(|i| (i % 5) as f32 * 0.9).collect();
        let b: Vec<f32> = (0..rows * 3).map(|i| (i % 7) as f32 * 0.2).collect();
        let picked: Vec<usize> = (0..rows).rev().step_by(2).collect();
        let joined: Vec<f32> = picked.iter().flat_map(|&r| [b[r * 3 + 2], a[r]]).collect();
        let mut expected = vec![0.0; picked.len()];
        complete.margins(&joined, &mut expected);
        let groups = [(&a[..], 1), (&b[..], 3)];
        let got = complete
            .margins_gathered(&groups, &[(1, 2), (0, 0)], &picked)
            .unwrap();
        assert_eq!(got, expected);
        assert_eq!(
            complete.margins_gathered(&groups, &[(1, 3), (0, 0)], &picked),
            Err(GatherError::Column)
        );
        assert_eq!(
            complete.margins_gathered(&groups, &[(1, 2), (0, 0)], &[rows]),
            Err(GatherError::Row)
        );
        assert_eq!(
            complete.margins_gathered(&groups, &[(1, 2)], &picked),
            Err(GatherError::Width)
        );
    }

    #[test]
    fn pairwise_sum_matches_plain_sum_on_exact_values() {
        let values: Vec<f64> = (0..300).map(f64::from).collect();
        assert_eq!(pairwise_sum(&values), 299.0 * 300.0 / 2.0);
        assert_eq!(pairwise_sum(&values[..5]), 10.0);
        assert_eq!(pairwise_sum(&[]), 0.0);
    }
}
