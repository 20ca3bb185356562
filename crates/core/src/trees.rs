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
            crate::budget::check();
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
    // The float32 splits for rows in lanes (see [`CompleteEnsemble::margins_lanes`]): each
    // column times [`LANES`], where the column's values of a group of rows begin.
    lanes32: Vec<(u32, f32)>,
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
        let splits32: Vec<(u32, f32)> =
            splits.iter().map(|&(f, t)| (f, float32_floor(t))).collect();
        let lanes32 = splits32
            .iter()
            .map(|&(f, t)| (f * LANES as u32, t))
            .collect();
        Ok(Some(CompleteEnsemble {
            levels,
            splits,
            splits32,
            lanes32,
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

    /// The margin of each row of `x` laid out in lanes: the rows in groups of [`LANES`], each
    /// group's columns one after the other, [`LANES`] values each (row r of group g, column j
    /// at `x[(g * width + j) * LANES + r]`), a last partial group padded with any values;
    /// `out` holds one margin per row. The same margins as [`CompleteEnsemble::margins`] of the
    /// rows one after the other: a step reads its value at the split's offset plus the lane,
    /// so it needs no pointer per row.
    pub fn margins_lanes(&self, x: &[f32], out: &mut [f64]) {
        let width = self.width.max(1);
        let mut leaves = vec![[0.0; LANES]; self.trees];
        for (group, margins) in x.chunks_exact(width * LANES).zip(out.chunks_mut(LANES)) {
            crate::budget::check();
            if self.trees == 0 {
                margins.fill(pairwise_sum(&[]) + self.base);
                continue;
            }
            self.lane_leaves(group, &mut leaves);
            let sums = pairwise_sum_lanes(&leaves);
            for (margin, sum) in margins.iter_mut().zip(sums) {
                *margin = sum + self.base;
            }
        }
    }

    /// The leaf value of every tree for each row of one group in lanes, into
    /// `leaves[t][r]` (tree t, row r).
    fn lane_leaves(&self, group: &[f32], leaves: &mut [[f64; LANES]]) {
        let inner = (1usize << self.levels) - 1;
        assert_eq!(group.len(), self.width.max(1) * LANES);
        for (t, tree_leaves) in leaves.iter_mut().enumerate().take(self.trees) {
            let tree = &self.lanes32[t * inner..(t + 1) * inner];
            let mut heap = [0usize; LANES];
            for _ in 0..self.levels {
                for (lane, h) in heap.iter_mut().enumerate() {
                    debug_assert!(*h < tree.len());
                    // SAFETY: as in `group_leaves`, h stays below `inner` = tree.len().
                    let (at, threshold) = unsafe { *tree.get_unchecked(*h) };
                    debug_assert!((at as usize) + lane < group.len());
                    // SAFETY: `at` is a split's column times LANES, the column below `width`
                    // (validated by `new`; padding splits read column 0), and `lane` is below
                    // LANES, so `at + lane` < width * LANES, which is `group.len()` (asserted).
                    let value = unsafe { *group.get_unchecked(at as usize + lane) };
                    *h = 2 * *h + 1 + usize::from(value > threshold);
                }
            }
            let values = &self.value[t * (inner + 1)..(t + 1) * (inner + 1)];
            for (leaf, h) in tree_leaves.iter_mut().zip(heap) {
                *leaf = values[h - inner];
            }
        }
    }

    /// The margins of `rows` (at most [`ROW_GROUP`] whole rows) into `margins`.
    fn chunk_margins<X: SplitValue>(&self, rows: &[X], leaves: &mut [f64], margins: &mut [f64]) {
        crate::budget::check();
        if self.trees == 0 {
            margins.fill(pairwise_sum(&[]) + self.base);
            return;
        }
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

/// Rows walked together by [`CompleteEnsemble::margins_lanes`]: enough independent walks to
/// hide a step's loads, few enough that their positions stay in registers.
pub const LANES: usize = 8;

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

/// [`pairwise_sum`] of each lane: lane r's sum is that of `values[t][r]` over t, each lane
/// added in the very order [`pairwise_sum`] adds one row, so each gives its bits. The lanes are
/// added side by side (one vector instruction for several).
pub fn pairwise_sum_lanes(values: &[[f64; LANES]]) -> [f64; LANES] {
    const BLOCK: usize = 128;
    #[inline(always)]
    fn add(a: &mut [f64; LANES], b: &[f64; LANES]) {
        for (a, b) in a.iter_mut().zip(b) {
            *a += b;
        }
    }
    let n = values.len();
    if n < 8 {
        // numpy starts from -0.0 here, so that a sum of negative zeros stays negative.
        let mut sum = [-0.0; LANES];
        for v in values {
            add(&mut sum, v);
        }
        return sum;
    }
    if n <= BLOCK {
        let mut r = [[0.0; LANES]; 8];
        r.copy_from_slice(&values[..8]);
        let mut i = 8;
        while i + 8 <= n {
            for (k, acc) in r.iter_mut().enumerate() {
                add(acc, &values[i + k]);
            }
            i += 8;
        }
        // ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), lane by lane.
        let [mut r0, r1, mut r2, r3, mut r4, r5, mut r6, r7] = r;
        add(&mut r0, &r1);
        add(&mut r2, &r3);
        add(&mut r4, &r5);
        add(&mut r6, &r7);
        add(&mut r0, &r2);
        add(&mut r4, &r6);
        add(&mut r0, &r4);
        for v in &values[i..] {
            add(&mut r0, v);
        }
        return r0;
    }
    let half = (n / 2) - (n / 2) % 8;
    let mut sum = pairwise_sum_lanes(&values[..half]);
    add(&mut sum, &pairwise_sum_lanes(&values[half..]));
    sum
}

#[cfg(test)]
mod tests;
