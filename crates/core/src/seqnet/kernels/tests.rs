use super::*;

/// Pseudo-random values in [-1, 1).
fn noise(n: usize, seed: u32) -> Vec<f32> {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        })
        .collect()
}

#[test]
fn exp_is_within_three_units_in_the_last_place() {
    let mut worst = 0.0f64;
    let steps = 1_000_000;
    for i in 0..=steps {
        let x = -87.0 + 175.0 * i as f32 / steps as f32;
        let exact = f64::from(x).exp();
        let error = ((f64::from(exp(x)) - exact) / exact).abs();
        worst = worst.max(error);
    }
    // Near 0, where softmax's largest terms are, too.
    for i in -10_000..=10_000 {
        let x = i as f32 * 1e-5;
        let exact = f64::from(x).exp();
        worst = worst.max(((f64::from(exp(x)) - exact) / exact).abs());
    }
    assert!(worst < 3.0 * f64::from(f32::EPSILON) / 2.0, "{worst}");
    assert_eq!(exp(0.0), 1.0);
}

#[test]
fn exp_saturates_without_infinities_and_keeps_nan() {
    assert!(exp(f32::NAN).is_nan());
    for x in [-1e30, -200.0, -87.5, f32::NEG_INFINITY] {
        assert_eq!(exp(x), 0.0);
    }
    assert!(exp(-87.3) > 0.0);
    for x in [89.0, 1e30, f32::INFINITY] {
        let e = exp(x);
        assert!(e.is_finite() && e > 2e38, "{x}: {e}");
    }
}

#[test]
fn gelu_is_the_tanh_approximation() {
    for i in -4000..=4000 {
        let x = i as f32 * 0.005;
        let v = f64::from(x);
        let exact =
            0.5 * v * (1.0 + (0.797_884_560_802_865_4 * (v + 0.044_715 * v * v * v)).tanh());
        assert!(
            (f64::from(gelu(x)) - exact).abs() <= 1e-6 * (1.0 + exact.abs()),
            "{x}"
        );
    }
    assert_eq!(gelu(0.0), 0.0);
    assert_eq!(gelu(-1e20), 0.0);
    assert_eq!(gelu(1e20), 1e20);
    assert!(gelu(f32::NAN).is_nan());
}

/// A dense layer over `x` (rows of `inputs`) in float64, with PyTorch's (out, in) weight.
fn dense_reference(x: &[f32], weight: &[f32], bias: &[f32], inputs: usize) -> Vec<f64> {
    let outputs = bias.len();
    x.chunks_exact(inputs)
        .flat_map(|row| {
            (0..outputs).map(move |o| {
                f64::from(bias[o])
                    + row
                        .iter()
                        .zip(&weight[o * inputs..(o + 1) * inputs])
                        .map(|(a, b)| f64::from(*a) * f64::from(*b))
                        .sum::<f64>()
            })
        })
        .collect()
}

fn close(got: &[f32], expected: &[f64], tolerance: f64) {
    assert_eq!(got.len(), expected.len());
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!(
            (f64::from(*g) - e).abs() <= tolerance * (1.0 + e.abs()),
            "{i}: {g} vs {e}"
        );
    }
}

#[test]
fn dense_layers_compute_their_products_and_finish_them() {
    for (inputs, outputs, rows) in [(3, 1, 1), (7, 33, 5), (40, 64, 4), (5, 70, 3)] {
        let weight = noise(inputs * outputs, 1);
        let bias = noise(outputs, 2);
        let x = noise(rows * inputs, 3);
        let dense = Dense::new(&weight, &bias, inputs, outputs);
        let expected = dense_reference(&x, &weight, &bias, inputs);
        let base: Vec<f32> = noise(rows * outputs, 4);
        for then in [
            Then::Store,
            Then::Gelu,
            Then::Relu,
            Then::Add,
            Then::AddRelu,
        ] {
            let mut out = base.clone();
            dense.apply(Portable, &x, inputs, rows, &mut out, then);
            let finished: Vec<f64> = expected
                .iter()
                .zip(&base)
                .map(|(&e, &b)| match then {
                    Then::Store => e,
                    Then::Gelu => f64::from(gelu(e as f32)),
                    Then::Relu => e.max(0.0),
                    Then::Add => f64::from(b) + e,
                    Then::AddRelu => f64::from(b) + e.max(0.0),
                })
                .collect();
            close(&out, &finished, 1e-5);
        }
    }
}

#[test]
fn a_row_gives_the_same_bits_alone_or_among_others_and_windows_overlap() {
    let (inputs, outputs, rows) = (12, 40, 7);
    let dense = Dense::new(
        &noise(inputs * outputs, 5),
        &noise(outputs, 6),
        inputs,
        outputs,
    );
    // A stride of 4 reads overlapping windows of 12, as a convolution does.
    let x = noise((rows - 1) * 4 + inputs, 7);
    let mut together = vec![0.0; rows * outputs];
    dense.apply(Portable, &x, 4, rows, &mut together, Then::Store);
    for r in 0..rows {
        let mut alone = vec![0.0; outputs];
        dense.apply(
            Portable,
            &x[r * 4..r * 4 + inputs],
            inputs,
            1,
            &mut alone,
            Then::Store,
        );
        assert_eq!(alone, together[r * outputs..(r + 1) * outputs]);
    }
}

#[test]
fn layer_norm_standardises_each_row() {
    let d = 13;
    let x = noise(3 * d, 8);
    let weight = noise(d, 9);
    let bias = noise(d, 10);
    let mut out = vec![0.0; 3 * d];
    layer_norm(&x, &weight, &bias, 1e-5, &mut out);
    let expected: Vec<f64> = x
        .chunks_exact(d)
        .flat_map(|row| {
            let row: Vec<f64> = row.iter().map(|&v| f64::from(v)).collect();
            let mean = row.iter().sum::<f64>() / d as f64;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / d as f64;
            let deviation = (var + 1e-5).sqrt();
            (0..d)
                .map(|i| (row[i] - mean) / deviation * f64::from(weight[i]) + f64::from(bias[i]))
                .collect::<Vec<_>>()
        })
        .collect();
    close(&out, &expected, 1e-5);
}

/// Attention in float64: each row over the rows of its chunk (chunks at the page's multiples
/// of `chunk`, row 0 being the page's row `first`).
fn attention_reference(qkv: &[f32], rows: usize, first: usize, shape: Heads) -> Vec<f64> {
    let Heads {
        width: d,
        heads,
        chunk,
    } = shape;
    let size = d / heads;
    let at = |r: usize, c: usize| f64::from(qkv[r * 3 * d + c]);
    let mut out = vec![0.0; rows * d];
    for i in 0..rows {
        let page = first + i;
        let lo = (page / chunk * chunk).max(first) - first;
        let hi = ((page / chunk + 1) * chunk - first).min(rows);
        for h in 0..heads {
            let scores: Vec<f64> = (lo..hi)
                .map(|j| {
                    (0..size)
                        .map(|k| at(i, h * size + k) * at(j, d + h * size + k))
                        .sum::<f64>()
                        / (size as f64).sqrt()
                })
                .collect();
            let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
            let total: f64 = weights.iter().sum();
            for k in 0..size {
                out[i * d + h * size + k] = (lo..hi)
                    .zip(&weights)
                    .map(|(j, w)| w / total * at(j, 2 * d + h * size + k))
                    .sum();
            }
        }
    }
    out
}

#[test]
fn attention_runs_within_the_page_s_chunks() {
    for (width, heads, chunk, rows, first) in
        [(8, 2, 4, 11, 0), (12, 3, 70, 150, 5), (6, 1, 3, 1, 2)]
    {
        let shape = Heads {
            width,
            heads,
            chunk,
        };
        let qkv: Vec<f32> = noise(rows * 3 * width, 11)
            .iter()
            .map(|v| 3.0 * v)
            .collect();
        let mut out = vec![0.0; rows * width];
        attention(
            Portable,
            &qkv,
            rows,
            first,
            shape,
            &mut AttentionScratch::default(),
            &mut out,
        );
        close(&out, &attention_reference(&qkv, rows, first, shape), 1e-5);
    }
}

/// A dense layer with GELU, a layer norm and attention with `kernels`.
#[cfg(target_arch = "x86_64")]
fn run<K: Kernels>(
    kernels: K,
    dense: &Dense,
    x: &[f32],
    rows: usize,
    qkv: &[f32],
    shape: Heads,
) -> Vec<f32> {
    let mut out = vec![0.0; rows * dense.outputs()];
    dense.apply(kernels, x, dense.inputs, rows, &mut out, Then::Gelu);
    let mut normed = vec![0.0; out.len()];
    let ones = vec![1.0; dense.outputs()];
    layer_norm(&out, &ones, &ones, 1e-5, &mut normed);
    let mut mixed = vec![0.0; rows * shape.width];
    attention(
        kernels,
        qkv,
        rows,
        3,
        shape,
        &mut AttentionScratch::default(),
        &mut mixed,
    );
    out.extend(normed);
    out.extend(mixed);
    out
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_avx2_kernels_give_the_portable_bits() {
    let Some(avx2) = Avx2::detect() else {
        return;
    };
    // Odd sizes, so that every remainder path runs; large values, so that exp saturates.
    for (inputs, outputs, rows, width, heads, chunk) in
        [(37, 45, 9, 16, 2, 5), (5, 3, 70, 36, 3, 67)]
    {
        let dense = Dense::new(
            &noise(inputs * outputs, 12),
            &noise(outputs, 13),
            inputs,
            outputs,
        );
        let x: Vec<f32> = noise(rows * inputs, 14).iter().map(|v| 40.0 * v).collect();
        let shape = Heads {
            width,
            heads,
            chunk,
        };
        let qkv: Vec<f32> = noise(rows * 3 * width, 15)
            .iter()
            .map(|v| 9.0 * v)
            .collect();
        let fast = run(avx2, &dense, &x, rows, &qkv, shape);
        assert_eq!(fast, run(Portable, &dense, &x, rows, &qkv, shape));
    }
    let edges = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -87.34,
        -87.32,
        88.36,
        88.38,
        0.0,
        -0.0,
        1e-30,
    ];
    let mut values: Vec<f32> = edges
        .iter()
        .copied()
        .chain(noise(60, 16).iter().map(|v| 100.0 * v))
        .collect();
    values.truncate(65);
    let mut fast = [0.0; TILE];
    let mut slow = [0.0; TILE];
    for part in values.chunks_exact(TILE) {
        fast.copy_from_slice(part);
        slow.copy_from_slice(part);
        avx2.gelu(&mut fast);
        Portable.gelu(&mut slow);
        assert_eq!(fast.map(f32::to_bits), slow.map(f32::to_bits));
    }
    for n in [1, 7, 8, 9, 64] {
        let mut fast: Vec<f32> = values[1..=n].iter().map(|v| v.clamp(-1e3, 1e3)).collect();
        let mut slow = fast.clone();
        avx2.softmax(&mut fast, 0.37);
        Portable.softmax(&mut slow, 0.37);
        assert_eq!(fast, slow);
    }
}
