//! The network's arithmetic on small float32 matrices: dense layers, layer norm, chunked
//! attention and the exponential they need.
//!
//! Every multiply-add is a fused one (`mul_add`) and every sum runs over [`LANES`] running
//! sums combined in a fixed order, so a row's results do not depend on how rows are grouped
//! nor on the processor: the innermost loops exist twice, as plain Rust ([`Portable`]) and
//! with AVX2 and FMA instructions (`Avx2`, chosen at run time), and the two do the same
//! operations on each value in the same order, so they give the same bits.

#[cfg(target_arch = "x86_64")]
mod avx2;

#[cfg(target_arch = "x86_64")]
pub use avx2::Avx2;

/// Running sums of a reduction (a vector register's width of float32 on AVX2).
pub const LANES: usize = 8;
/// Outputs of a dense layer computed together (four AVX2 registers per row).
pub const TILE: usize = 32;
/// Keys whose attention scores are computed together (eight AVX2 registers).
pub const KEYS: usize = 64;
/// Rows a dense layer computes together (eight AVX2 registers of running sums).
const ROWS: usize = 2;
/// Queries whose attention-weighted values are computed together.
const QUERIES: usize = 4;

/// The innermost loops of the network (see the module's comment).
pub trait Kernels: Copy {
    /// Row r of the result: `bias[j] + sum over k of xs[r][k] * weights[k * TILE + j]`,
    /// added in the order of k. `weights` holds `TILE` values per element of a row of `xs`.
    fn tile<const R: usize>(
        self,
        xs: [&[f32]; R],
        weights: &[f32],
        bias: &[f32; TILE],
    ) -> [[f32; TILE]; R];

    /// [`gelu`] of each value.
    fn gelu(self, values: &mut [f32; TILE]);

    /// `scores[j] = sum over dim of query[dim] * keys[dim * scores.len() + j]`, in the
    /// order of dim; `scores.len()` is a multiple of [`KEYS`].
    fn scores(self, query: &[f32], keys: &[f32], scores: &mut [f32]);

    /// softmax(scale x) over `x` (not empty), in place.
    fn softmax(self, x: &mut [f32], scale: f32);

    /// For each query q, `outs[q][dim] = sum over j of weights[q][j] * values[j * stride + dim]`,
    /// in the order of j. The weights are equally long, and so are the outputs.
    fn mix<const Q: usize>(
        self,
        weights: [&[f32]; Q],
        values: &[f32],
        stride: usize,
        outs: [&mut [f32]; Q],
    );
}

/// [`Kernels`] in plain Rust, for any processor.
#[derive(Clone, Copy, Debug)]
pub struct Portable;

impl Kernels for Portable {
    #[inline(always)]
    fn tile<const R: usize>(
        self,
        xs: [&[f32]; R],
        weights: &[f32],
        bias: &[f32; TILE],
    ) -> [[f32; TILE]; R] {
        let mut acc = [*bias; R];
        for (k, w) in weights.chunks_exact(TILE).enumerate() {
            for (a, x) in acc.iter_mut().zip(&xs) {
                let v = x[k];
                for (a, w) in a.iter_mut().zip(w) {
                    *a = v.mul_add(*w, *a);
                }
            }
        }
        acc
    }

    #[inline(always)]
    fn gelu(self, values: &mut [f32; TILE]) {
        for v in values.iter_mut() {
            *v = gelu(*v);
        }
    }

    #[inline(always)]
    fn scores(self, query: &[f32], keys: &[f32], scores: &mut [f32]) {
        let padded = scores.len();
        for (block, s) in scores.chunks_exact_mut(KEYS).enumerate() {
            let mut acc = [0.0f32; KEYS];
            for (dim, &q) in query.iter().enumerate() {
                let k = &keys[dim * padded + block * KEYS..][..KEYS];
                for (a, k) in acc.iter_mut().zip(k) {
                    *a = q.mul_add(*k, *a);
                }
            }
            s.copy_from_slice(&acc);
        }
    }

    #[inline(always)]
    fn softmax(self, x: &mut [f32], scale: f32) {
        let shift = maximum(x) * scale;
        for v in x.iter_mut() {
            *v = exp(v.mul_add(scale, -shift));
        }
        let inverse = 1.0 / sum(x);
        for v in x.iter_mut() {
            *v *= inverse;
        }
    }

    #[inline(always)]
    fn mix<const Q: usize>(
        self,
        weights: [&[f32]; Q],
        values: &[f32],
        stride: usize,
        outs: [&mut [f32]; Q],
    ) {
        for (weights, out) in weights.iter().zip(outs) {
            out.fill(0.0);
            for (j, &w) in weights.iter().enumerate() {
                let value = &values[j * stride..][..out.len()];
                for (o, v) in out.iter_mut().zip(value) {
                    *o = w.mul_add(*v, *o);
                }
            }
        }
    }
}

/// A dense layer, its weights packed as tiles of [`TILE`] outputs: tile t holds, for each
/// input k, the weights of outputs `t * TILE ..` side by side (zeros past the last output).
#[derive(Clone, Debug)]
pub struct Dense {
    packed: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

/// What a dense layer does with its results (bias included) before writing them out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Then {
    /// Write them.
    Store,
    /// Write their GELU (tanh approximation).
    Gelu,
    /// Write their ReLU.
    Relu,
    /// Add them to the output.
    Add,
    /// Add their ReLU to the output.
    AddRelu,
}

impl Dense {
    /// From PyTorch's (out, in) weight and the bias.
    pub fn new(weight: &[f32], bias: &[f32], inputs: usize, outputs: usize) -> Self {
        let tiles = outputs.div_ceil(TILE);
        let mut packed = vec![0.0; tiles * inputs * TILE];
        for o in 0..outputs {
            let (t, j) = (o / TILE, o % TILE);
            for k in 0..inputs {
                packed[(t * inputs + k) * TILE + j] = weight[o * inputs + k];
            }
        }
        let mut padded = vec![0.0; tiles * TILE];
        padded[..outputs].copy_from_slice(bias);
        Dense {
            packed,
            bias: padded,
            inputs,
            outputs,
        }
    }

    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Row r of the result is the layer applied to `x[r * stride .. r * stride + inputs]`
    /// (a stride below the inputs reads overlapping windows: a convolution), written or
    /// added to `out[r * outputs ..]` as `then` says.
    #[inline(always)]
    pub fn apply<K: Kernels>(
        &self,
        kernels: K,
        x: &[f32],
        stride: usize,
        rows: usize,
        out: &mut [f32],
        then: Then,
    ) {
        let n = self.inputs;
        let m = self.outputs;
        let window = |r: usize| &x[r * stride..r * stride + n];
        if m == 1 {
            // One output: lane 0 of a tile, without the other lanes.
            let weights: Vec<f32> = self.packed.chunks_exact(TILE).map(|w| w[0]).collect();
            for (r, out) in out[..rows].iter_mut().enumerate() {
                let mut acc = [0.0; TILE];
                acc[0] = window(r)
                    .iter()
                    .zip(&weights)
                    .fold(self.bias[0], |acc, (x, w)| x.mul_add(*w, acc));
                finish(kernels, &mut acc, std::slice::from_mut(out), then);
            }
            return;
        }
        let mut outs = out[..rows * m].chunks_exact_mut(m);
        let mut r = 0;
        while r + ROWS <= rows {
            let out: [&mut [f32]; ROWS] = std::array::from_fn(|_| outs.next().expect("a row"));
            self.rows(kernels, std::array::from_fn(|i| window(r + i)), out, then);
            r += ROWS;
        }
        for (r, out) in (r..rows).zip(outs) {
            self.rows(kernels, [window(r)], [out], then);
        }
    }

    /// The layer over the `R` rows `xs` (each `inputs` long) into `outs` (each `outputs` long).
    #[inline(always)]
    fn rows<K: Kernels, const R: usize>(
        &self,
        kernels: K,
        xs: [&[f32]; R],
        outs: [&mut [f32]; R],
        then: Then,
    ) {
        let mut outs = outs;
        let tiles = self.packed.chunks_exact(self.inputs * TILE);
        for (t, (weights, bias)) in tiles.zip(self.bias.chunks_exact(TILE)).enumerate() {
            let bias: &[f32; TILE] = bias.try_into().expect("whole tiles");
            let mut acc = kernels.tile(xs, weights, bias);
            let at = t * TILE;
            let valid = (self.outputs - at).min(TILE);
            for (a, out) in acc.iter_mut().zip(outs.iter_mut()) {
                finish(kernels, a, &mut out[at..at + valid], then);
            }
        }
    }
}

/// The first `out.len()` results of `acc`, finished as `then` says, into `out`.
#[inline(always)]
fn finish<K: Kernels>(kernels: K, acc: &mut [f32; TILE], out: &mut [f32], then: Then) {
    if out.len() == TILE {
        // A whole tile: loops of a length the compiler knows.
        finish_part(kernels, acc, &mut out[..TILE], then);
    } else {
        finish_part(kernels, acc, out, then);
    }
}

#[inline(always)]
fn finish_part<K: Kernels>(kernels: K, acc: &mut [f32; TILE], out: &mut [f32], then: Then) {
    match then {
        Then::Store => out.copy_from_slice(&acc[..out.len()]),
        Then::Gelu => {
            kernels.gelu(acc);
            out.copy_from_slice(&acc[..out.len()]);
        }
        Then::Relu => {
            for (o, a) in out.iter_mut().zip(acc.iter()) {
                *o = relu(*a);
            }
        }
        Then::Add => {
            for (o, a) in out.iter_mut().zip(acc.iter()) {
                *o += a;
            }
        }
        Then::AddRelu => {
            for (o, a) in out.iter_mut().zip(acc.iter()) {
                *o += relu(*a);
            }
        }
    }
}

/// max(x, 0), and 0 for NaN.
#[inline(always)]
pub fn relu(x: f32) -> f32 {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// The sum of `values` over [`LANES`] running sums, combined pairwise.
#[inline(always)]
fn sum(values: &[f32]) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, v) in lanes.iter_mut().zip(chunk) {
            *l += v;
        }
    }
    for (l, v) in lanes.iter_mut().zip(rest) {
        *l += v;
    }
    combine(lanes)
}

/// The sum of `(v - centre)^2` over `values`, as [`sum`] adds.
#[inline(always)]
fn squares(values: &[f32], centre: f32) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, v) in lanes.iter_mut().zip(chunk) {
            let d = v - centre;
            *l = d.mul_add(d, *l);
        }
    }
    for (l, v) in lanes.iter_mut().zip(rest) {
        let d = v - centre;
        *l = d.mul_add(d, *l);
    }
    combine(lanes)
}

/// The lanes' sum, in a fixed order.
#[inline(always)]
fn combine(l: [f32; LANES]) -> f32 {
    ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
}

/// `if v > m { v } else { m }`: the larger, and `m` when either is NaN.
#[inline(always)]
fn larger(v: f32, m: f32) -> f32 {
    if v > m {
        v
    } else {
        m
    }
}

/// The largest of `values` (which must not be empty), over [`LANES`] running maxima that
/// start at the first value.
#[inline(always)]
fn maximum(values: &[f32]) -> f32 {
    let mut lanes = [values[0]; LANES];
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l = larger(v, *l);
        }
    }
    for (l, &v) in lanes.iter_mut().zip(rest) {
        *l = larger(v, *l);
    }
    lanes.into_iter().fold(lanes[0], |m, v| larger(v, m))
}

/// Row-wise layer norm of `x` (rows of `weight.len()` values) into `out`.
#[inline(always)]
pub fn layer_norm(x: &[f32], weight: &[f32], bias: &[f32], eps: f32, out: &mut [f32]) {
    let d = weight.len();
    let width = d as f32;
    for (row, out) in x.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
        let mean = sum(row) / width;
        let inverse = 1.0 / (squares(row, mean) / width + eps).sqrt();
        for (((o, v), w), b) in out.iter_mut().zip(row).zip(weight).zip(bias) {
            *o = ((v - mean) * inverse).mul_add(*w, *b);
        }
    }
}

/// Below this, [`exp`] is 0 (e^x would be subnormal).
const EXP_LOW: f32 = -87.33;
/// Above this, [`exp`] is e^EXP_HIGH (about 2.5e38, a normal float32).
const EXP_HIGH: f32 = 88.37;
/// 1.5 * 2^23: adding it rounds a float32 below 2^22 in magnitude to an integer, held in the
/// low bits of the sum.
const SHIFTER: f32 = 12_582_912.0;
/// ln 2 in two parts: 355 / 512 (so n * LN2_HIGH is exact for |n| < 2^15) and the rest.
const LN2_HIGH: f32 = 0.693_359_4;
const LN2_LOW: f32 = -2.121_944_4e-4;
/// The Taylor coefficients of e^r from r^7 down to r^0.
const EXP_TAYLOR: [f32; 8] = [
    1.0 / 5040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
    1.0,
    1.0,
];

/// e^x for float32, within a few units in the last place (NaN stays NaN).
///
/// e^x is 0 below [`EXP_LOW`] and e^EXP_HIGH above [`EXP_HIGH`]. Between them,
/// x = n ln2 + r with n = round(x / ln2) and |r| <= ln2 / 2, e^r is its Taylor polynomial of
/// degree 7 (truncation below 1.1e-8 relative for |r| <= 0.35) and 2^n is built in the
/// exponent bits.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let below = x < EXP_LOW;
    let x = if below {
        EXP_LOW
    } else if x > EXP_HIGH {
        EXP_HIGH
    } else {
        x
    };
    let shifted = x.mul_add(std::f32::consts::LOG2_E, SHIFTER);
    let n = shifted - SHIFTER;
    let r = n.mul_add(-LN2_HIGH, x);
    let r = n.mul_add(-LN2_LOW, r);
    let mut p = EXP_TAYLOR[0];
    for c in &EXP_TAYLOR[1..] {
        p = p.mul_add(r, *c);
    }
    // n (between -126 and 127 after the clamp) plus the exponent bias, into the exponent bits.
    let exponent = shifted
        .to_bits()
        .wrapping_sub(SHIFTER.to_bits())
        .wrapping_add(127)
        << 23;
    let e = p * f32::from_bits(exponent);
    if below {
        0.0
    } else {
        e
    }
}

/// sqrt(2 / pi), and the cubic term's factor, of GELU's tanh approximation.
const GELU_SCALE: f32 = 0.797_884_6;
const GELU_CUBIC: f32 = 0.044_715;

/// GELU's tanh approximation, x (1 + tanh(u)) / 2 with u = sqrt(2 / pi) (x + 0.044715 x^3),
/// computed as x / (1 + e^(-2u)) with e^(-2|u|), which stays in [0, 1].
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    let u = GELU_SCALE * (x + GELU_CUBIC * x * x * x);
    let e = exp(-2.0 * u.abs());
    let top = if u < 0.0 { x * e } else { x };
    top / (1.0 + e)
}

/// Reusable buffers of [`attention`].
#[derive(Default)]
pub struct AttentionScratch {
    keys: Vec<f32>,
    scores: Vec<f32>,
    mixed: Vec<f32>,
}

/// The shape of the attention: the rows' width, heads and chunk.
#[derive(Clone, Copy, Debug)]
pub struct Heads {
    pub width: usize,
    pub heads: usize,
    pub chunk: usize,
}

/// Multi-head attention of each row over the rows of its own chunk, into `out` (rows x
/// width); `qkv` holds each row's queries, keys and values side by side. Row 0 is the page's
/// row `first`: chunks start at the page's multiples of the chunk size.
#[inline(always)]
pub fn attention<K: Kernels>(
    kernels: K,
    qkv: &[f32],
    rows: usize,
    first: usize,
    shape: Heads,
    scratch: &mut AttentionScratch,
    out: &mut [f32],
) {
    let Heads {
        width: d,
        heads,
        chunk,
    } = shape;
    let size = d / heads;
    let scale = 1.0 / (size as f32).sqrt();
    let mut start = 0;
    while start < rows {
        let end = (start + chunk - (first + start) % chunk).min(rows);
        let n = end - start;
        let padded = n.div_ceil(KEYS) * KEYS;
        for head in 0..heads {
            let at = head * size;
            // This head's keys over the chunk, transposed (one row of `padded` per dimension,
            // zeros past the chunk), so that a query's scores are computed KEYS at a time.
            let keys = &mut scratch.keys;
            keys.clear();
            keys.resize(size * padded, 0.0);
            for j in 0..n {
                let row = &qkv[(start + j) * 3 * d + d + at..][..size];
                for (dim, &v) in row.iter().enumerate() {
                    keys[dim * padded + j] = v;
                }
            }
            scratch.scores.resize(QUERIES * padded, 0.0);
            scratch.mixed.resize(QUERIES * size, 0.0);
            let values = &qkv[start * 3 * d + 2 * d + at..];
            let mut i = 0;
            while i < n {
                let group = (n - i).min(QUERIES);
                let scores = &mut scratch.scores[..group * padded];
                for (q, scores) in scores.chunks_exact_mut(padded).enumerate() {
                    let query = &qkv[(start + i + q) * 3 * d + at..][..size];
                    kernels.scores(query, keys, scores);
                    kernels.softmax(&mut scores[..n], scale);
                }
                let mut weights = scores.chunks_exact(padded).map(|s| &s[..n]);
                let mut mixed = scratch.mixed.chunks_exact_mut(size);
                if group == QUERIES {
                    let weights = std::array::from_fn(|_| weights.next().expect("a query"));
                    let outs = std::array::from_fn(|_| mixed.next().expect("a query"));
                    kernels.mix::<QUERIES>(weights, values, 3 * d, outs);
                } else {
                    for (w, out) in weights.zip(mixed.by_ref()) {
                        kernels.mix([w], values, 3 * d, [out]);
                    }
                }
                for (q, mixed) in scratch.mixed.chunks_exact(size).take(group).enumerate() {
                    out[(start + i + q) * d + at..][..size].copy_from_slice(mixed);
                }
                i += group;
            }
        }
        start = end;
    }
}

#[cfg(test)]
mod tests;
