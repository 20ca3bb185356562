//! [`Kernels`] with AVX2 and FMA instructions: eight float32 lanes per register. Each lane
//! does what [`Portable`](super::Portable) does to one value, in the same order, so both
//! give the same bits.

use std::arch::x86_64::*;

use super::{
    combine, larger, Kernels, EXP_HIGH, EXP_LOW, EXP_TAYLOR, GELU_CUBIC, GELU_SCALE, KEYS, LANES,
    LN2_HIGH, LN2_LOW, SHIFTER, TILE,
};

/// Proof that the processor has AVX2 and FMA: only [`Avx2::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

impl Avx2 {
    /// The kernels, when the processor has AVX2 and FMA.
    pub fn detect() -> Option<Self> {
        (is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")).then_some(Avx2(()))
    }
}

// SAFETY (every call below): an `Avx2` exists only when `detect` found AVX2 and FMA, the
// features the called functions are compiled for.
impl Kernels for Avx2 {
    #[inline(always)]
    fn tile<const R: usize>(
        self,
        xs: [&[f32]; R],
        weights: &[f32],
        bias: &[f32; TILE],
    ) -> [[f32; TILE]; R] {
        // SAFETY: see the impl's comment.
        unsafe { tile(xs, weights, bias) }
    }

    #[inline(always)]
    fn gelu(self, values: &mut [f32; TILE]) {
        // SAFETY: see the impl's comment.
        unsafe { gelu_tile(values) }
    }

    #[inline(always)]
    fn scores(self, query: &[f32], keys: &[f32], scores: &mut [f32]) {
        // SAFETY: see the impl's comment.
        unsafe { scores_blocks(query, keys, scores) }
    }

    #[inline(always)]
    fn softmax(self, x: &mut [f32], scale: f32) {
        // SAFETY: see the impl's comment.
        unsafe { softmax(x, scale) }
    }

    #[inline(always)]
    fn mix<const Q: usize>(
        self,
        weights: [&[f32]; Q],
        values: &[f32],
        stride: usize,
        outs: [&mut [f32]; Q],
    ) {
        // SAFETY: see the impl's comment.
        unsafe { mix(weights, values, stride, outs) }
    }
}

/// The first eight values of `v`.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn load(v: &[f32]) -> __m256 {
    let v = &v[..LANES];
    // SAFETY: `v` holds 8 readable floats, and an unaligned load reads exactly those.
    unsafe { _mm256_loadu_ps(v.as_ptr()) }
}

/// `x` into the first eight values of `out`.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn store(x: __m256, out: &mut [f32]) {
    let out = &mut out[..LANES];
    // SAFETY: `out` holds 8 writable floats, and an unaligned store writes exactly those.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), x) }
}

#[target_feature(enable = "avx2,fma")]
#[inline]
fn lanes(x: __m256) -> [f32; LANES] {
    let mut out = [0.0; LANES];
    store(x, &mut out);
    out
}

#[target_feature(enable = "avx2,fma")]
#[inline(never)]
fn tile<const R: usize>(xs: [&[f32]; R], weights: &[f32], bias: &[f32; TILE]) -> [[f32; TILE]; R] {
    const V: usize = TILE / LANES;
    let inputs = weights.len() / TILE;
    let xs = xs.map(|x| &x[..inputs]);
    let start: [__m256; V] = std::array::from_fn(|v| load(&bias[v * LANES..]));
    let mut acc = [start; R];
    // One input k: each row's value times the tile's weights for k, into its running sums.
    let mut step = |k: usize, w: &[f32]| {
        let w: [__m256; V] = std::array::from_fn(|v| load(&w[v * LANES..]));
        for (a, x) in acc.iter_mut().zip(&xs) {
            debug_assert!(k < x.len());
            // SAFETY: `weights` holds `inputs` tiles, so k < inputs, the length of each row of `xs`.
            let x = _mm256_set1_ps(unsafe { *x.get_unchecked(k) });
            for (a, w) in a.iter_mut().zip(&w) {
                *a = _mm256_fmadd_ps(x, *w, *a);
            }
        }
    };
    // Four inputs per iteration (less loop overhead), in order, then the rest.
    let quads = weights.chunks_exact(4 * TILE);
    let rest = quads.remainder();
    for (q, four) in quads.enumerate() {
        for (i, w) in four.chunks_exact(TILE).enumerate() {
            step(4 * q + i, w);
        }
    }
    let done = inputs / 4 * 4;
    for (i, w) in rest.chunks_exact(TILE).enumerate() {
        step(done + i, w);
    }
    let mut out = [[0.0; TILE]; R];
    for (o, a) in out.iter_mut().zip(&acc) {
        for (v, a) in a.iter().enumerate() {
            store(*a, &mut o[v * LANES..]);
        }
    }
    out
}

/// [`super::exp`] of each lane.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn exp(x: __m256) -> __m256 {
    let below = _mm256_cmp_ps::<_CMP_LT_OQ>(x, _mm256_set1_ps(EXP_LOW));
    let above = _mm256_cmp_ps::<_CMP_GT_OQ>(x, _mm256_set1_ps(EXP_HIGH));
    let x = _mm256_blendv_ps(x, _mm256_set1_ps(EXP_HIGH), above);
    let x = _mm256_blendv_ps(x, _mm256_set1_ps(EXP_LOW), below);
    let shifter = _mm256_set1_ps(SHIFTER);
    let shifted = _mm256_fmadd_ps(x, _mm256_set1_ps(std::f32::consts::LOG2_E), shifter);
    let n = _mm256_sub_ps(shifted, shifter);
    let r = _mm256_fmadd_ps(n, _mm256_set1_ps(-LN2_HIGH), x);
    let r = _mm256_fmadd_ps(n, _mm256_set1_ps(-LN2_LOW), r);
    let mut p = _mm256_set1_ps(EXP_TAYLOR[0]);
    for c in &EXP_TAYLOR[1..] {
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(*c));
    }
    let bits = _mm256_castps_si256(shifted);
    let bits = _mm256_sub_epi32(bits, _mm256_set1_epi32(SHIFTER.to_bits() as i32));
    let bits = _mm256_add_epi32(bits, _mm256_set1_epi32(127));
    let scale = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(bits));
    _mm256_andnot_ps(below, _mm256_mul_ps(p, scale))
}

/// [`super::gelu`] of each lane.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn gelu(x: __m256) -> __m256 {
    let cube = _mm256_mul_ps(
        _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(GELU_CUBIC), x), x),
        x,
    );
    let u = _mm256_mul_ps(_mm256_set1_ps(GELU_SCALE), _mm256_add_ps(x, cube));
    let magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0), u);
    let e = exp(_mm256_mul_ps(_mm256_set1_ps(-2.0), magnitude));
    let negative = _mm256_cmp_ps::<_CMP_LT_OQ>(u, _mm256_setzero_ps());
    let top = _mm256_blendv_ps(x, _mm256_mul_ps(x, e), negative);
    _mm256_div_ps(top, _mm256_add_ps(_mm256_set1_ps(1.0), e))
}

#[target_feature(enable = "avx2,fma")]
#[inline(never)]
fn gelu_tile(values: &mut [f32; TILE]) {
    for v in values.chunks_exact_mut(LANES) {
        store(gelu(load(v)), v);
    }
}

#[target_feature(enable = "avx2,fma")]
#[inline(never)]
fn scores_blocks(query: &[f32], keys: &[f32], scores: &mut [f32]) {
    const V: usize = KEYS / LANES;
    let padded = scores.len();
    for (block, s) in scores.chunks_exact_mut(KEYS).enumerate() {
        let mut acc = [_mm256_setzero_ps(); V];
        for (dim, &q) in query.iter().enumerate() {
            let k = &keys[dim * padded + block * KEYS..][..KEYS];
            let q = _mm256_set1_ps(q);
            for (v, a) in acc.iter_mut().enumerate() {
                *a = _mm256_fmadd_ps(q, load(&k[v * LANES..]), *a);
            }
        }
        for (v, a) in acc.iter().enumerate() {
            store(*a, &mut s[v * LANES..]);
        }
    }
}

#[target_feature(enable = "avx2,fma")]
#[inline(never)]
fn softmax(x: &mut [f32], scale: f32) {
    // The largest value, as `maximum` finds it: lanes starting at the first value.
    let mut top = _mm256_set1_ps(x[0]);
    let mut chunks = x.chunks_exact(LANES);
    for chunk in chunks.by_ref() {
        top = _mm256_max_ps(load(chunk), top);
    }
    let mut top = lanes(top);
    for (l, &v) in top.iter_mut().zip(chunks.remainder()) {
        *l = larger(v, *l);
    }
    let shift = top.into_iter().fold(top[0], |m, v| larger(v, m)) * scale;
    // The exponentials, summed as `sum` adds them.
    let (scale_v, shift_v) = (_mm256_set1_ps(scale), _mm256_set1_ps(-shift));
    let mut total = _mm256_setzero_ps();
    let mut chunks = x.chunks_exact_mut(LANES);
    for chunk in chunks.by_ref() {
        let e = exp(_mm256_fmadd_ps(load(chunk), scale_v, shift_v));
        total = _mm256_add_ps(total, e);
        store(e, chunk);
    }
    let mut total = lanes(total);
    for (l, v) in total.iter_mut().zip(chunks.into_remainder()) {
        *v = super::exp(v.mul_add(scale, -shift));
        *l += *v;
    }
    let inverse = 1.0 / combine(total);
    let inverse_v = _mm256_set1_ps(inverse);
    let mut chunks = x.chunks_exact_mut(LANES);
    for chunk in chunks.by_ref() {
        store(_mm256_mul_ps(load(chunk), inverse_v), chunk);
    }
    for v in chunks.into_remainder() {
        *v *= inverse;
    }
}

#[target_feature(enable = "avx2,fma")]
#[inline(never)]
fn mix<const Q: usize>(weights: [&[f32]; Q], values: &[f32], stride: usize, outs: [&mut [f32]; Q]) {
    let mut outs = outs;
    let n = weights[0].len();
    let weights = weights.map(|w| &w[..n]);
    let size = outs[0].len();
    let whole = size / LANES * LANES;
    // Eight dimensions at a time ...
    for at in (0..whole).step_by(LANES) {
        let mut acc = [_mm256_setzero_ps(); Q];
        for (j, value) in values.chunks(stride).take(n).enumerate() {
            let v = load(&value[at..]);
            for (a, w) in acc.iter_mut().zip(&weights) {
                *a = _mm256_fmadd_ps(_mm256_set1_ps(w[j]), v, *a);
            }
        }
        for (a, out) in acc.iter().zip(outs.iter_mut()) {
            store(*a, &mut out[at..]);
        }
    }
    // ... and the rest one at a time.
    for (w, out) in weights.iter().zip(outs.iter_mut()) {
        for (dim, o) in out.iter_mut().enumerate().skip(whole) {
            *o = 0.0;
            for (j, &w) in w.iter().enumerate() {
                *o = w.mul_add(values[j * stride + dim], *o);
            }
        }
    }
}
