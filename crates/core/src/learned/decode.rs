//! Turning a page's block probabilities into labels: the expected-F1 cut or a threshold,
//! with the never-empty fallback (``thresher.algorithms.flagship`` documents the rules).
//! Sums and products run in numpy's order for these arrays (sequential), so the cut is the
//! one the Python definition gives.

use super::ScoreParams;

/// How the flagship turns probabilities into labels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decoding {
    /// Keep the blocks above the cut that maximises the page's expected word F-beta.
    ExpectedF1,
    /// Keep the blocks at or above a fixed threshold.
    #[default]
    Threshold,
}

impl Decoding {
    /// The decoding a model file or a caller names ("expected_f1", "threshold").
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "expected_f1" => Some(Decoding::ExpectedF1),
            "threshold" => Some(Decoding::Threshold),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Decoding::ExpectedF1 => "expected_f1",
            Decoding::Threshold => "threshold",
        }
    }
}

/// The probability cut that maximises the page's expected word F-beta (`words[i]`: block
/// i's words, at least one), or `inf` under `allow_empty` when no block being content is
/// likelier than the best cut's expected score. 1 for a page without blocks.
///
/// Read as the chance that block i is content, `p` gives keeping the blocks at or above a
/// cut an expected F1 of about 2 * sum_kept(p * w) / (sum_kept(w) + sum_all(p * w)): the
/// expected overlap over the sizes of the kept text and of the expected content (F-beta:
/// (1 + b^2) * sum_kept(p * w) / (sum_kept(w) + b^2 * sum_all(p * w)), so a `beta` below 1
/// raises the cut and one above lowers it). One sorted scan tries every cut. Unlike a fixed
/// threshold the cut follows the page: it goes down where the content is a few uncertain
/// blocks and up where doubtful blocks would dilute a long article.
///
/// With `allow_empty`, keeping nothing is one more choice, exact when no block is content,
/// which has probability prod(1 - p): an error or consent page, a shell filled in by
/// scripts, but also a tiny page of one or two short paragraphs, which is why the flagship
/// uses it only when asked.
pub fn expected_f1_cut(p: &[f64], words: &[f64], allow_empty: bool, beta: f64) -> f64 {
    if p.is_empty() {
        return 1.0;
    }
    // argsort(-p, stable): descending, ties in block order, NaN last.
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| match (p[a].is_nan(), p[b].is_nan()) {
        (false, false) => p[b].partial_cmp(&p[a]).unwrap_or(std::cmp::Ordering::Equal),
        (x, y) => x.cmp(&y),
    });
    let b2 = beta * beta;
    let mut gain = Vec::with_capacity(p.len());
    let mut total = 0.0;
    for &i in &order {
        total += p[i] * words[i];
        gain.push(total);
    }
    let all = gain[gain.len() - 1];
    let (mut best, mut best_value) = (0usize, f64::NEG_INFINITY);
    let mut kept_words = 0.0;
    for (k, &i) in order.iter().enumerate() {
        kept_words += words[i];
        let denominator = kept_words + b2 * all;
        let expected = (1.0 + b2) * gain[k]
            / if denominator > 1e-12 || denominator.is_nan() {
                denominator
            } else {
                1e-12
            };
        // numpy's argmax: the first maximum (the first NaN, if any).
        if expected > best_value || (expected.is_nan() && !best_value.is_nan()) {
            best = k;
            best_value = expected;
            if expected.is_nan() {
                break;
            }
        }
    }
    if allow_empty {
        let none = p.iter().fold(1.0, |product, &x| product * (1.0 - x));
        if none > best_value {
            return f64::INFINITY;
        }
    }
    p[order[best]]
}

/// Labels of the blocks and the cut applied, under `params`' decoding.
pub fn decide(p: &[f64], words: &[f64], params: &ScoreParams) -> (Vec<bool>, f64) {
    let keep = |cut: f64| p.iter().map(|&x| x >= cut).collect::<Vec<bool>>();
    match params.decoding {
        Decoding::ExpectedF1 => {
            let cut = expected_f1_cut(p, words, params.allow_empty, params.beta);
            (keep(cut), cut)
        }
        Decoding::Threshold => {
            let labels = keep(params.threshold);
            if params.never_empty && !p.is_empty() && !labels.contains(&true) {
                // numpy's max: NaN when any is NaN.
                let top = p.iter().fold(f64::NEG_INFINITY, |m, &x| {
                    if m.is_nan() || x.is_nan() {
                        f64::NAN
                    } else {
                        m.max(x)
                    }
                });
                let cut = top * params.fallback_ratio;
                return (keep(cut), cut);
            }
            (labels, params.threshold)
        }
    }
}
