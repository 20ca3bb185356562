//! Stage 2's context of the stage-1 scores: around each block in reading order, in its
//! ancestors' subtrees (character-weighted means), on the whole page, and against the page's
//! main run of confident content.

use std::iter::repeat_n;

use crate::document::Document;

/// The column names, in order.
pub const NAMES: [&str; 25] = [
    "p",
    "p@-3",
    "p@-2",
    "p@-1",
    "p@+1",
    "p@+2",
    "p@+3",
    "p_max_2",
    "p_mean_2",
    "p_max_5",
    "p_mean_5",
    "p_max_10",
    "p_mean_10",
    "p_anc0",
    "p_anc1",
    "p_anc2",
    "p_anc3",
    "p_anc4",
    "p_page_mean",
    "p_page_max",
    "p_page_kept_share",
    "p_rel_max",
    "run_member",
    "run_distance",
    "run_share",
];

const SHIFTS: [i64; 6] = [-3, -2, -1, 1, 2, 3];
const RADII: [usize; 3] = [2, 5, 10];
const ANCESTOR_LEVELS: usize = 5;
/// The score above which a block's text counts as kept, and the level the main run's
/// weights are measured from.
const LEVEL: f64 = 0.5;

/// Largest value within `radius` positions (the edges see only the blocks that exist).
pub fn window_max(values: &[f64], radius: usize) -> Vec<f64> {
    let n = values.len();
    (0..n)
        .map(|i| {
            let window = &values[i.saturating_sub(radius)..(i + radius + 1).min(n)];
            window.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        })
        .collect()
}

/// Mean over the blocks within `radius` positions (the edges average fewer blocks), summed
/// from the first position of the window to the last.
pub fn window_mean(values: &[f64], radius: usize) -> Vec<f64> {
    let n = values.len();
    (0..n)
        .map(|i| {
            let window = &values[i.saturating_sub(radius)..(i + radius + 1).min(n)];
            let mut sum = 0.0;
            for &v in window {
                sum += v;
            }
            sum / window.len() as f64
        })
        .collect()
}

/// A sum in numpy's order (`np.sum` of a contiguous float64 array): blocks of up to 128
/// values summed in eight interleaved lanes, larger ranges split in two (at a multiple of
/// eight) and the halves' sums added. Iterative: a stack of ranges still to sum.
pub fn numpy_sum(values: &[f64]) -> f64 {
    enum Task {
        Sum(usize, usize),
        Add,
    }
    let mut tasks = vec![Task::Sum(0, values.len())];
    let mut sums: Vec<f64> = Vec::new();
    while let Some(task) = tasks.pop() {
        match task {
            Task::Add => {
                let right = sums.pop().unwrap_or(0.0);
                let left = sums.pop().unwrap_or(0.0);
                sums.push(left + right);
            }
            Task::Sum(start, n) if n > 128 => {
                let half = n / 2;
                let half = half - half % 8;
                tasks.push(Task::Add);
                tasks.push(Task::Sum(start + half, n - half));
                tasks.push(Task::Sum(start, half));
            }
            Task::Sum(start, n) => sums.push(block_sum(&values[start..start + n])),
        }
    }
    sums.pop().unwrap_or(0.0)
}

fn block_sum(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        let mut sum = 0.0;
        for &v in values {
            sum += v;
        }
        return sum;
    }
    let mut lanes = [0.0f64; 8];
    lanes.copy_from_slice(&values[..8]);
    let whole = n - n % 8;
    for chunk in values[8..whole].chunks_exact(8) {
        for (lane, v) in lanes.iter_mut().zip(chunk) {
            *lane += v;
        }
    }
    let mut sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
        + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
    for &v in &values[whole..] {
        sum += v;
    }
    sum
}

/// First and last index of the contiguous run with the largest positive sum (None: no run).
pub fn best_run(weights: &[f64]) -> Option<(usize, usize)> {
    let (mut best, mut span) = (0.0, None);
    let (mut total, mut start) = (0.0, 0);
    for (i, &weight) in weights.iter().enumerate() {
        if total <= 0.0 {
            total = 0.0;
            start = i;
        }
        total += weight;
        if total > best {
            best = total;
            span = Some((start, i));
        }
    }
    span
}

/// Stage 2's context columns (`NAMES`, one row per block, row-major, float32) of the
/// stage-1 scores `p` (one per block).
///
/// `p@k`: block i + k's score (0 past the edges); `p_max_r` / `p_mean_r`: within r blocks;
/// `p_anc{l}`: the character-weighted mean score of the subtree of the block's element's l-th
/// ancestor; page-wide mean (character-weighted), maximum and share of characters above 0.5;
/// the score over the page's maximum; and where the block lies against the main run, the
/// stretch of reading order with the largest sum of (p - 0.5) × characters: inside it or not,
/// the signed log distance to it, and its share of the page's characters.
///
/// None when `p` does not hold one score per block.
pub fn context_features(doc: &Document, p: &[f64]) -> Option<Vec<f32>> {
    let n = p.len();
    if n != doc.blocks.len() {
        return None;
    }
    let chars: Vec<f64> = doc.blocks.iter().map(|b| f64::from(b.chars)).collect();
    crate::budget::checkpoint();
    let mut columns = Rows::new(n, NAMES.len());
    columns.push(p.iter().copied());
    for offset in SHIFTS {
        columns.push((0..n as i64).map(|i| {
            usize::try_from(i + offset)
                .ok()
                .and_then(|j| p.get(j))
                .copied()
                .unwrap_or(0.0)
        }));
    }
    for radius in RADII {
        crate::budget::checkpoint();
        columns.push(window_max(p, radius));
        columns.push(window_mean(p, radius));
    }
    let weighted: Vec<f64> = {
        let (mut cum_pc, mut cum_c) = (Vec::with_capacity(n + 1), Vec::with_capacity(n + 1));
        cum_pc.push(0.0f64);
        cum_c.push(0.0f64);
        for (&score, &c) in p.iter().zip(&chars) {
            cum_pc.push(cum_pc[cum_pc.len() - 1] + score * c);
            cum_c.push(cum_c[cum_c.len() - 1] + c);
        }
        crate::budget::checkpoint();
        (0..doc.len())
            .map(|e| {
                let (first, end) = (doc.first_blocks[e] as usize, doc.end_blocks[e] as usize);
                (cum_pc[end] - cum_pc[first]) / (cum_c[end] - cum_c[first]).max(1.0)
            })
            .collect()
    };
    let mut elements: Vec<usize> = doc.blocks.iter().map(|b| b.element as usize).collect();
    for _ in 0..ANCESTOR_LEVELS {
        crate::budget::checkpoint();
        columns.push(elements.iter().map(|&e| weighted[e]));
        for e in &mut elements {
            if let Ok(parent) = usize::try_from(doc.parents[*e]) {
                *e = parent;
            }
        }
    }
    crate::budget::checkpoint();
    let total = numpy_sum(&chars).max(1.0);
    let products: Vec<f64> = p.iter().zip(&chars).map(|(s, c)| s * c).collect();
    let page_max = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let kept: Vec<f64> = p
        .iter()
        .zip(&chars)
        .filter(|(&s, _)| s > LEVEL)
        .map(|(_, &c)| c)
        .collect();
    let page_mean = numpy_sum(&products) / total;
    let kept_share = numpy_sum(&kept) / total;
    let rel = if n > 0 { page_max } else { 1.0 }.max(1e-6);
    columns.push(repeat_n(page_mean, n));
    columns.push(repeat_n(if n > 0 { page_max } else { 0.0 }, n));
    columns.push(repeat_n(kept_share, n));
    columns.push(p.iter().map(|s| s / rel));
    let run_weights: Vec<f64> = p.iter().zip(&chars).map(|(s, c)| (s - LEVEL) * c).collect();
    match best_run(&run_weights) {
        None => {
            for _ in 0..3 {
                columns.push(repeat_n(0.0, n));
            }
        }
        Some((first, last)) => {
            let offset = |i: usize| -> f64 {
                if i < first {
                    -((first - i) as f64)
                } else if i > last {
                    (i - last) as f64
                } else {
                    0.0
                }
            };
            columns.push((0..n).map(|i| f64::from(u8::from(offset(i) == 0.0))));
            columns.push((0..n).map(|i| {
                let d = offset(i);
                if d == 0.0 {
                    0.0
                } else {
                    d.signum() * d.abs().ln_1p()
                }
            }));
            let share = numpy_sum(&chars[first..=last]) / numpy_sum(&chars).max(1.0);
            columns.push(repeat_n(share, n));
        }
    }
    Some(columns.out)
}

/// Row-major float32 rows filled column after column, each column written (rounded from
/// float64) as it is computed: no column is held on its own.
struct Rows {
    out: Vec<f32>,
    width: usize,
    next: usize,
}

impl Rows {
    fn new(rows: usize, width: usize) -> Rows {
        // Zeroed a slice at a time: on a page of millions of blocks the table is hundreds of
        // megabytes, and making it is a long step of its own.
        const SLICE: usize = 1 << 20;
        let size = rows * width;
        let mut out = Vec::with_capacity(size);
        while out.len() < size {
            crate::budget::checkpoint();
            out.resize((out.len() + SLICE).min(size), 0.0);
        }
        Rows {
            out,
            width,
            next: 0,
        }
    }

    /// Writes the next column (one value per row; rows past its end keep zero).
    fn push(&mut self, column: impl IntoIterator<Item = f64>) {
        if self.width > 0 {
            for (row, v) in self.out.chunks_exact_mut(self.width).zip(column) {
                // One cheap step per row; the first column also makes the table's memory.
                crate::budget::check();
                if let Some(slot) = row.get_mut(self.next) {
                    *slot = v as f32;
                }
            }
        }
        self.next += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build, parse, Limits};

    /// A page of one paragraph per length, its text that many characters.
    fn paragraphs(lengths: &[usize]) -> Document {
        let body: String = lengths
            .iter()
            .map(|&k| format!("<p>{}</p>", "x".repeat(k)))
            .collect();
        build(&parse(&body, Limits::default()))
    }

    fn column(doc: &Document, p: &[f64], name: &str) -> Vec<f32> {
        let j = NAMES.iter().position(|&c| c == name).unwrap();
        context_features(doc, p)
            .unwrap()
            .chunks(NAMES.len())
            .map(|row| row[j])
            .collect()
    }

    #[test]
    fn best_run_is_the_largest_positive_stretch() {
        assert_eq!(best_run(&[]), None);
        assert_eq!(best_run(&[-1.0, -2.0]), None);
        assert_eq!(best_run(&[0.0, 0.0]), None);
        // 3 - 1 + 2 = 4 beats every other stretch
        assert_eq!(
            best_run(&[1.0, -5.0, 3.0, -1.0, 2.0, -9.0, 1.0]),
            Some((2, 4))
        );
        assert_eq!(best_run(&[2.0, -1.0, 2.0]), Some((0, 2)));
        assert_eq!(best_run(&[5.0, -6.0, 4.0]), Some((0, 0)));
    }

    #[test]
    fn windows_see_only_the_blocks_that_exist() {
        let values = [0.5, 0.1, 0.9, 0.3];
        assert_eq!(window_max(&values, 1), [0.5, 0.9, 0.9, 0.9]);
        assert_eq!(window_mean(&values, 1)[0], (0.5 + 0.1) / 2.0);
        assert_eq!(window_mean(&values, 10)[2], (0.5 + 0.1 + 0.9 + 0.3) / 4.0);
        assert!(window_max(&[], 3).is_empty() && window_mean(&[], 3).is_empty());
    }

    #[test]
    fn numpy_sum_adds_in_numpys_order() {
        let values: Vec<f64> = (0..1000).map(|i| 1.0 / f64::from(i + 1)).collect();
        let exact: f64 = values.iter().sum();
        assert!((numpy_sum(&values) - exact).abs() < 1e-12);
        assert_eq!(numpy_sum(&[]), 0.0);
        assert_eq!(numpy_sum(&[1.0, 2.0, 3.0]), 6.0);
    }

    #[test]
    fn run_columns_place_blocks_against_the_main_run() {
        let doc = paragraphs(&[10, 100, 100, 100, 100, 50, 50, 10]);
        let p = [0.9, 0.1, 0.9, 0.9, 0.8, 0.1, 0.1, 0.7];
        // the run is blocks 2-4: the menu (0) and the teaser (7) lie outside
        assert_eq!(
            column(&doc, &p, "run_member"),
            [0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
        );
        let distance = column(&doc, &p, "run_distance");
        let want = [
            -3f64.ln(),
            -2f64.ln(),
            0.0,
            0.0,
            0.0,
            2f64.ln(),
            3f64.ln(),
            4f64.ln(),
        ];
        for (got, want) in distance.iter().zip(want) {
            assert!((f64::from(*got) - want).abs() < 1e-6);
        }
        let share = column(&doc, &p, "run_share");
        assert!(share.iter().all(|&s| (s - 300.0 / 520.0).abs() < 1e-6));
    }

    #[test]
    fn without_a_confident_block_the_run_columns_are_zero() {
        let doc = paragraphs(&[10, 10]);
        assert_eq!(column(&doc, &[0.2, 0.4], "run_member"), [0.0, 0.0]);
        assert_eq!(column(&doc, &[0.2, 0.4], "run_share"), [0.0, 0.0]);
    }

    #[test]
    fn shifts_ancestors_and_page_columns() {
        let doc = paragraphs(&[10, 30]);
        let p = [0.2, 0.6];
        assert_eq!(column(&doc, &p, "p@-1"), [0.0, 0.2]);
        assert_eq!(column(&doc, &p, "p@+1"), [0.6, 0.0]);
        assert_eq!(column(&doc, &p, "p_anc0"), [0.2, 0.6]);
        // the body's subtree holds both paragraphs: (0.2 * 10 + 0.6 * 30) / 40
        assert_eq!(column(&doc, &p, "p_anc1"), [0.5, 0.5]);
        assert_eq!(column(&doc, &p, "p_page_kept_share"), [0.75, 0.75]);
        assert_eq!(column(&doc, &p, "p_rel_max"), [(0.2f64 / 0.6) as f32, 1.0]);
        assert!(context_features(&paragraphs(&[]), &[]).unwrap().is_empty());
        assert!(context_features(&doc, &[0.5]).is_none());
    }
}
