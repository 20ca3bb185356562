//! Weninger et al.'s tag ratios (CETR): text characters per tag of each unit (block or
//! source line), Gaussian-smoothed along the reading order. The one smoothing used both
//! by the flagship's `cetr_*` columns and by the CETR algorithm, which treat the first and
//! last units differently (see [`Edges`]).

use super::columns::Columns;
use crate::document::Document;

/// What the smoothing does where the kernel runs past the first or last unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edges {
    /// The end values repeat past the ends (the flagship's columns).
    Extend,
    /// Only the units that exist count, the kernel renormalised over them (the algorithm).
    Renormalise,
}

/// Text characters per tag, a unit without tags counting one.
pub fn tag_ratios(chars: &[f64], tags: &[f64]) -> Vec<f64> {
    chars
        .iter()
        .zip(tags)
        .map(|(&c, &t)| c / t.max(1.0))
        .collect()
}

/// The farthest a kernel reaches, in units: far beyond any useful smoothing, and a bound on
/// the kernel's memory whatever the caller's settings.
pub const MAX_REACH: u32 = 1 << 20;

/// A sum in the order numpy's `sum` adds a contiguous float64 array (pairwise, with eight
/// running sums over blocks of up to 128 values), so a kernel normalised here has the bits
/// of one normalised with numpy.
fn numpy_sum(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        return values.iter().fold(0.0, |acc, &v| acc + v);
    }
    if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&values[..8]);
        let whole = n - n % 8;
        for chunk in values[8..whole].chunks_exact(8) {
            for (acc, &v) in r.iter_mut().zip(chunk) {
                *acc += v;
            }
        }
        let mut total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &values[whole..] {
            total += v;
        }
        return total;
    }
    let half = n / 2;
    let half = half - half % 8;
    // Blocks halve until they hold at most 128 values: the depth is logarithmic in `n`.
    numpy_sum(&values[..half]) + numpy_sum(&values[half..])
}

/// The normalised Gaussian kernel of standard deviation `sigma` (in units) reaching
/// `ceil(radius_sigmas * sigma)` units each way; a single 1 when that reach is 0 or `sigma`
/// is not positive. `None` when the reach is not a finite number of units, or more than
/// [`MAX_REACH`].
pub fn gaussian_kernel(sigma: f64, radius_sigmas: f64) -> Option<Vec<f64>> {
    let reach = (radius_sigmas * sigma).ceil();
    if !reach.is_finite() || reach > MAX_REACH as f64 {
        return None;
    }
    let radius = reach.max(0.0) as i64;
    if sigma <= 0.0 || radius == 0 {
        return Some(vec![1.0]);
    }
    let kernel: Vec<f64> = (-radius..=radius)
        .map(|x| {
            let x = x as f64;
            (-(x * x) / (2.0 * sigma * sigma)).exp()
        })
        .collect();
    let total = numpy_sum(&kernel);
    Some(kernel.into_iter().map(|k| k / total).collect())
}

/// `values` smoothed with `kernel` (odd length, centred), one value per unit. Each output
/// sums its window left to right.
pub fn smooth(values: &[f64], kernel: &[f64], edges: Edges) -> Vec<f64> {
    let n = values.len();
    let half = kernel.len() / 2;
    let mut out = Vec::with_capacity(n);
    let last = n.saturating_sub(1);
    for i in 0..n {
        let (mut weighted, mut coverage) = (0.0f64, 0.0f64);
        for (t, &weight) in kernel.iter().rev().enumerate() {
            // Unit i + t - half, when it exists.
            let at = (i + t).checked_sub(half);
            let value = match (at, edges) {
                (Some(at), _) if at < n => values[at],
                (None, Edges::Extend) => values[0],
                (Some(_), Edges::Extend) => values[last],
                (_, Edges::Renormalise) => continue,
            };
            weighted += value * weight;
            coverage += weight;
        }
        out.push(match edges {
            Edges::Extend => weighted,
            Edges::Renormalise => weighted / coverage,
        });
    }
    out
}

/// The smoothing reach of the flagship's columns: one unit of standard deviation, three each way.
const SIGMA: f64 = 1.0;
const RADIUS_SIGMAS: f64 = 3.0;

/// `cetr_ratio` (the log of each block's smoothed tag ratio, the ends extended) and
/// `cetr_derivative` (the log of its absolute difference to the next block's; 0 for the last).
pub fn columns(doc: &Document) -> Columns {
    let chars: Vec<f64> = doc.blocks.iter().map(|b| f64::from(b.chars)).collect();
    let tags: Vec<f64> = doc.blocks.iter().map(|b| f64::from(b.tags)).collect();
    let kernel = gaussian_kernel(SIGMA, RADIUS_SIGMAS).unwrap_or_else(|| vec![1.0]);
    let smoothed = smooth(&tag_ratios(&chars, &tags), &kernel, Edges::Extend);
    let derivative = (0..smoothed.len()).map(|i| {
        let next = smoothed.get(i + 1).copied().unwrap_or(smoothed[i]);
        (next - smoothed[i]).abs()
    });
    let mut cols = Columns::default();
    cols.push("cetr_ratio", smoothed.iter().map(|v| v.ln_1p()));
    cols.push("cetr_derivative", derivative.map(f64::ln_1p));
    cols
}

/// The CETR paper's settings for the block decision ([`block_content`]): the smoothing's
/// reach, the derivative's look-ahead, k-means' seeds (quantiles of the points' distance
/// from the origin) and its iteration bound.
pub const ALPHA: usize = 3;
pub const SEED_QUANTILES: [f64; 2] = [0.5, 0.95];
pub const MAX_ITER: usize = 100;

/// `|mean of the next alpha values - value|` (fewer near the end; 0 for the last), the
/// means taken from running sums as the Python definition takes them.
pub fn derivative(smoothed: &[f64], alpha: usize) -> Vec<f64> {
    let n = smoothed.len();
    let mut out = vec![0.0; n];
    if n < 2 || alpha < 1 {
        return out;
    }
    let mut cumulative = Vec::with_capacity(n + 1);
    cumulative.push(0.0);
    let mut total = 0.0;
    for &v in smoothed {
        total += v;
        cumulative.push(total);
    }
    for i in 0..n - 1 {
        let stop = (i + 1 + alpha).min(n);
        let mean = (cumulative[stop] - cumulative[i + 1]) / (stop - i - 1) as f64;
        out[i] = (mean - smoothed[i]).abs();
    }
    out
}

/// Lloyd's k-means over 2-d `points` with centroid 0 pinned at the origin, seeded with the
/// origin and the points at `quantiles` of distance from it; deterministic. Returns the
/// centroids (the origin first) and each point's cluster (ties go to the lower centroid).
pub fn kmeans_origin(
    points: &[[f64; 2]],
    quantiles: &[f64],
    max_iter: usize,
) -> (Vec<[f64; 2]>, Vec<usize>) {
    let n = points.len();
    if n == 0 {
        return (vec![[0.0, 0.0]; quantiles.len() + 1], Vec::new());
    }
    let distance: Vec<f64> = points.iter().map(|p| p[0].hypot(p[1])).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        distance[a]
            .partial_cmp(&distance[b])
            .unwrap_or_else(|| distance[a].is_nan().cmp(&distance[b].is_nan()))
    });
    let mut centroids = vec![[0.0, 0.0]];
    for &q in quantiles {
        // Python's round: halves go to the even neighbour.
        let at = (q * (n - 1) as f64).round_ties_even().max(0.0) as usize;
        centroids.push(points[order[at.min(n - 1)]]);
    }
    let assign = |centroids: &[[f64; 2]]| -> Vec<usize> {
        points
            .iter()
            .map(|p| {
                let mut best = (0usize, f64::INFINITY);
                for (c, centre) in centroids.iter().enumerate() {
                    let (dx, dy) = (p[0] - centre[0], p[1] - centre[1]);
                    let d = dx * dx + dy * dy;
                    if d < best.1 || (c == 0 && d.is_nan()) {
                        best = (c, d);
                    }
                }
                best.0
            })
            .collect()
    };
    let mut assignment = assign(&centroids);
    for _ in 0..max_iter {
        // The free clusters' means (an empty one keeps its centroid); the origin stays.
        for (c, centre) in centroids.iter_mut().enumerate().skip(1) {
            let (mut sum, mut count) = ([0.0, 0.0], 0usize);
            for (p, &a) in points.iter().zip(&assignment) {
                if a == c {
                    sum[0] += p[0];
                    sum[1] += p[1];
                    count += 1;
                }
            }
            if count > 0 {
                *centre = [sum[0] / count as f64, sum[1] / count as f64];
            }
        }
        let new = assign(&centroids);
        if new == assignment {
            break;
        }
        assignment = new;
    }
    (centroids, assignment)
}

/// CETR's decision per block with the paper's settings (the blocks playing the source's
/// lines, the smoothing renormalised at the ends): true outside the origin's cluster.
/// Dragnet's `cetr_cluster` column.
pub fn block_content(doc: &Document) -> Vec<bool> {
    let chars: Vec<f64> = doc.blocks.iter().map(|b| f64::from(b.chars)).collect();
    let tags: Vec<f64> = doc.blocks.iter().map(|b| f64::from(b.tags)).collect();
    let kernel = gaussian_kernel(SIGMA, RADIUS_SIGMAS).unwrap_or_else(|| vec![1.0]);
    let smoothed = smooth(&tag_ratios(&chars, &tags), &kernel, Edges::Renormalise);
    let points: Vec<[f64; 2]> = smoothed
        .iter()
        .zip(derivative(&smoothed, ALPHA))
        .map(|(&s, d)| [s, d])
        .collect();
    kmeans_origin(&points, &SEED_QUANTILES, MAX_ITER)
        .1
        .into_iter()
        .map(|c| c != 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    #[test]
    fn the_kernel_is_normalised_and_symmetric() {
        let k = gaussian_kernel(1.0, 3.0).unwrap();
        assert_eq!(k.len(), 7);
        assert!((k.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert!(k.iter().zip(k.iter().rev()).all(|(a, b)| a == b));
        assert_eq!(gaussian_kernel(0.0, 3.0).unwrap(), [1.0]);
        assert_eq!(gaussian_kernel(1.0, 0.0).unwrap(), [1.0]);
        assert!(gaussian_kernel(f64::INFINITY, 3.0).is_none());
        assert!(gaussian_kernel(f64::NAN, 3.0).is_none());
        assert!(gaussian_kernel(1e12, 3.0).is_none());
        assert_eq!(gaussian_kernel(-2.0, 3.0).unwrap(), [1.0]);
    }

    #[test]
    fn numpy_sum_adds_every_value() {
        for n in [0usize, 3, 8, 13, 128, 129, 1000] {
            let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
            assert_eq!(numpy_sum(&v), (n * n.saturating_sub(1) / 2) as f64);
        }
    }

    #[test]
    fn constants_stay_constant_under_both_edges() {
        let k = gaussian_kernel(1.0, 3.0).unwrap();
        for edges in [Edges::Extend, Edges::Renormalise] {
            assert!(close(&smooth(&[2.0; 5], &k, edges), &[2.0; 5]));
            assert!(smooth(&[], &k, edges).is_empty());
        }
    }

    #[test]
    fn the_edges_differ_as_documented() {
        let k = [0.25, 0.5, 0.25];
        let v = [4.0, 0.0, 0.0];
        // Extended: 4 repeats before the start; renormalised: the first unit's window is 2 units.
        assert!(close(&smooth(&v, &k, Edges::Extend), &[3.0, 1.0, 0.0]));
        assert!(close(
            &smooth(&v, &k, Edges::Renormalise),
            &[4.0 * 0.5 / 0.75, 1.0, 0.0]
        ));
        // One unit: extended, it is its own neighbours.
        assert!(close(&smooth(&[5.0], &k, Edges::Extend), &[5.0]));
        assert!(close(&smooth(&[5.0], &k, Edges::Renormalise), &[5.0]));
    }

    #[test]
    fn kmeans_splits_far_points_from_the_origin() {
        let points = [[0.0, 0.0], [0.1, 0.0], [10.0, 1.0], [11.0, 1.0], [0.2, 0.1]];
        let (centroids, clusters) = kmeans_origin(&points, &SEED_QUANTILES, MAX_ITER);
        assert_eq!(centroids[0], [0.0, 0.0]);
        assert_eq!(clusters[0], 0);
        assert_eq!(clusters[1], 0);
        assert_ne!(clusters[2], 0);
        assert_ne!(clusters[3], 0);
        assert!(kmeans_origin(&[], &SEED_QUANTILES, MAX_ITER).1.is_empty());
    }

    #[test]
    fn the_derivative_looks_ahead() {
        assert_eq!(derivative(&[1.0, 2.0, 4.0], 3), [2.0, 2.0, 0.0]);
        assert_eq!(derivative(&[1.0], 3), [0.0]);
    }

    #[test]
    fn ratios_count_a_tagless_unit_as_one_tag() {
        assert_eq!(tag_ratios(&[10.0, 10.0], &[0.0, 4.0]), [10.0, 2.5]);
    }
}
