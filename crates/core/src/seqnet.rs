//! The block-sequence network's inference, in float32, on one thread.
//!
//! One page's blocks in reading order go through:
//! 1. the numeric inputs standardised and clipped to ±[`CLIP`], beside the mean
//!    embedding of the block's id/class tokens, then two linear layers with a tanh
//!    GELU between them;
//! 2. a width-5 convolution over reading order (residual, ReLU);
//! 3. pre-norm transformer layers whose attention runs within consecutive chunks,
//!    so the cost stays linear in the page's length;
//! 4. a width-3 convolution (residual, ReLU), a layer norm and one logit per block.
//!
//! Weights arrive in the shapes PyTorch's `Linear` (out, in), `Conv1d` (out, in, width)
//! and `LayerNorm` give them and are laid out once for [`kernels`] (dense layers as tiles of
//! outputs, convolutions as dense layers over windows of rows). Matrices are row-major
//! `Vec<f32>`, one row per block. The arithmetic is float32 with fused multiply-adds and an
//! exponential accurate to a few units in the last place, so the logits are PyTorch's up to
//! float32 rounding, and the same on every processor.

mod kernels;

use crate::hash::HashMap;
#[cfg(target_arch = "x86_64")]
use kernels::Avx2;
use kernels::{attention, layer_norm, AttentionScratch, Dense, Heads, Kernels, Portable, Then};
use std::ops::Range;

/// A page is computed this many attention chunks at a time (see [`SeqNet::margins`]).
const SEGMENT_CHUNKS: usize = 64;
/// Standardised inputs are clipped to this magnitude.
pub const CLIP: f32 = 6.0;
const LAYER_NORM_EPS: f32 = 1e-5;

/// Why a network cannot be built from the weights given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    Missing(String),
    Shape {
        name: String,
        expected: usize,
        found: usize,
    },
    Heads,
    Input(String),
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetError::Missing(name) => write!(f, "the network lacks weight {name}"),
            NetError::Shape {
                name,
                expected,
                found,
            } => {
                write!(f, "weight {name} holds {found} values, not {expected}")
            }
            NetError::Heads => write!(
                f,
                "heads must divide the width, and heads and chunk be positive"
            ),
            NetError::Input(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for NetError {}

/// A convolution over rows with zero padding at both ends, as a dense layer over windows:
/// row i's window is rows i - width/2 .. i + width/2 of the input side by side, which in a
/// copy of the rows padded with width/2 zero rows at each end is one contiguous run. PyTorch
/// stores the weight as (out, in, width); it is laid out as a dense layer over the windows.
#[derive(Clone, Debug)]
struct Conv {
    dense: Dense,
    channels: usize,
    width: usize,
}

impl Conv {
    fn new(weight: &[f32], bias: &[f32], channels: usize, width: usize) -> Self {
        // (out, in, width) -> (out, width, in): each window is the taps' rows side by side.
        let mut laid = vec![0.0; weight.len()];
        for o in 0..channels {
            for c in 0..channels {
                for k in 0..width {
                    laid[(o * width + k) * channels + c] = weight[(o * channels + c) * width + k];
                }
            }
        }
        Conv {
            dense: Dense::new(&laid, bias, channels * width, channels),
            channels,
            width,
        }
    }

    /// `h` plus the ReLU of the convolution of `h`; `padded` is a buffer to reuse.
    #[inline(always)]
    fn add_relu<K: Kernels>(&self, kernels: K, h: &mut [f32], padded: &mut Vec<f32>) {
        let d = self.channels;
        let rows = h.len() / d;
        let half = self.width / 2;
        padded.clear();
        padded.resize((rows + 2 * half) * d, 0.0);
        padded[half * d..(half + rows) * d].copy_from_slice(h);
        self.dense.apply(kernels, padded, d, rows, h, Then::AddRelu);
    }
}

#[derive(Clone, Debug)]
struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Norm {
    #[inline(always)]
    fn apply(&self, x: &[f32], out: &mut [f32]) {
        layer_norm(x, &self.weight, &self.bias, LAYER_NORM_EPS, out);
    }
}

#[derive(Clone, Debug)]
struct Layer {
    ln1: Norm,
    qkv: Dense,
    proj: Dense,
    ln2: Norm,
    ff1: Dense,
    ff2: Dense,
}

/// The network, checked and laid out for inference.
#[derive(Clone, Debug)]
pub struct SeqNet {
    mean: Vec<f32>,
    scale: Vec<f32>,
    embedding: Vec<f32>,
    embedding_width: usize,
    tokens: usize,
    in1: Dense,
    in2: Dense,
    conv1: Conv,
    conv2: Conv,
    layers: Vec<Layer>,
    norm: Norm,
    out: Dense,
    heads: usize,
    chunk: usize,
}

/// The weights by name, as the model file holds them, with their shapes checked.
struct Weights<'a> {
    arrays: &'a HashMap<String, Vec<f32>>,
}

impl Weights<'_> {
    fn get(&self, name: &str, expected: usize) -> Result<Vec<f32>, NetError> {
        let values = self
            .arrays
            .get(name)
            .ok_or_else(|| NetError::Missing(name.to_owned()))?;
        if values.len() != expected {
            return Err(NetError::Shape {
                name: name.to_owned(),
                expected,
                found: values.len(),
            });
        }
        Ok(values.clone())
    }

    fn linear(&self, name: &str, inputs: usize, outputs: usize) -> Result<Dense, NetError> {
        let weight = self.get(&format!("{name}.weight"), inputs * outputs)?;
        let bias = self.get(&format!("{name}.bias"), outputs)?;
        Ok(Dense::new(&weight, &bias, inputs, outputs))
    }

    fn norm(&self, name: &str, width: usize) -> Result<Norm, NetError> {
        Ok(Norm {
            weight: self.get(&format!("{name}.weight"), width)?,
            bias: self.get(&format!("{name}.bias"), width)?,
        })
    }

    fn conv(&self, name: &str, width: usize, taps: usize) -> Result<Conv, NetError> {
        let weight = self.get(&format!("{name}.weight"), width * width * taps)?;
        Ok(Conv::new(
            &weight,
            &self.get(&format!("{name}.bias"), width)?,
            width,
            taps,
        ))
    }
}

/// The network's sizes, read off its weights' lengths.
pub struct Sizes {
    pub numeric: usize,
    pub tokens: usize,
    pub width: usize,
    pub embedding: usize,
    pub layers: usize,
    pub heads: usize,
    pub chunk: usize,
}

impl SeqNet {
    /// Build the network from its weights (named as the model file names them).
    pub fn new(arrays: &HashMap<String, Vec<f32>>, sizes: &Sizes) -> Result<Self, NetError> {
        let Sizes {
            numeric,
            tokens,
            width,
            embedding,
            layers,
            heads,
            chunk,
        } = *sizes;
        if heads == 0 || chunk == 0 || width % heads != 0 {
            return Err(NetError::Heads);
        }
        let w = Weights { arrays };
        let layers = (0..layers)
            .map(|i| {
                let p = format!("layer{i}");
                Ok(Layer {
                    ln1: w.norm(&format!("{p}.ln1"), width)?,
                    qkv: w.linear(&format!("{p}.qkv"), width, 3 * width)?,
                    proj: w.linear(&format!("{p}.proj"), width, width)?,
                    ln2: w.norm(&format!("{p}.ln2"), width)?,
                    ff1: w.linear(&format!("{p}.ff1"), width, 2 * width)?,
                    ff2: w.linear(&format!("{p}.ff2"), 2 * width, width)?,
                })
            })
            .collect::<Result<Vec<_>, NetError>>()?;
        Ok(SeqNet {
            mean: w.get("mean", numeric)?,
            scale: w.get("scale", numeric)?,
            embedding: w.get("embedding", tokens * embedding)?,
            embedding_width: embedding,
            tokens,
            in1: w.linear("in1", numeric + embedding, width)?,
            in2: w.linear("in2", width, width)?,
            conv1: w.conv("conv1", width, 5)?,
            conv2: w.conv("conv2", width, 3)?,
            layers,
            norm: w.norm("norm", width)?,
            out: w.linear("out", width, 1)?,
            heads,
            chunk,
        })
    }

    /// Numeric inputs a row must have.
    pub fn numeric(&self) -> usize {
        self.mean.len()
    }

    /// One logit per block. `values` holds the numeric inputs (rows × [`SeqNet::numeric`]);
    /// block i's tokens are `indices[offsets[i]..offsets[i + 1]]`, numbered as the
    /// embedding's rows.
    pub fn margins(
        &self,
        values: &[f32],
        indices: &[i64],
        offsets: &[i64],
    ) -> Result<Vec<f32>, NetError> {
        let numeric = self.numeric();
        let rows = values
            .len()
            .checked_div(numeric)
            .unwrap_or(offsets.len().saturating_sub(1));
        let fill = |range: Range<usize>, out: &mut [f32]| {
            out.copy_from_slice(&values[range.start * numeric..range.end * numeric]);
        };
        self.margins_with(rows, fill, indices, offsets)
    }

    /// [`SeqNet::margins`] of `rows` blocks whose numeric inputs `fill(range, out)` writes
    /// into `out` (blocks `range`, [`SeqNet::numeric`] values each, row after row) when a
    /// segment needs them: the caller need not hold them for the whole page.
    pub fn margins_with(
        &self,
        rows: usize,
        fill: impl Fn(Range<usize>, &mut [f32]),
        indices: &[i64],
        offsets: &[i64],
    ) -> Result<Vec<f32>, NetError> {
        self.check_tokens(rows, indices, offsets)?;
        Ok(self.margins_in_segments(&fill, indices, offsets, rows, SEGMENT_CHUNKS * self.chunk))
    }

    /// [`SeqNet::margins`] over `segment` rows at a time, so that a page of a million blocks
    /// needs the intermediate matrices of one segment, not of the page. A block's logit
    /// depends on its attention chunk (widened by the convolutions: two rows for the first,
    /// one for the second), so each segment is computed over the chunks that reach it, plus
    /// the rows the first convolution reads beyond them; every logit is the one the whole
    /// page at once would give.
    fn margins_in_segments(
        &self,
        fill: &dyn Fn(Range<usize>, &mut [f32]),
        indices: &[i64],
        offsets: &[i64],
        rows: usize,
        segment: usize,
    ) -> Vec<f32> {
        let mut logits = Vec::with_capacity(rows);
        let mut start = 0;
        while start < rows {
            let end = start.saturating_add(segment.max(1)).min(rows);
            // The chunks holding rows start - 1 .. end + 1 (the second convolution's reach) ...
            let first_chunk = start.saturating_sub(1) / self.chunk * self.chunk;
            let end_chunk = ((end + 1).div_ceil(self.chunk) * self.chunk).min(rows);
            // ... and the rows the first convolution reads around them.
            let (a, b) = (first_chunk.saturating_sub(2), (end_chunk + 2).min(rows));
            let out = self.logits(fill, indices, offsets, a..b);
            logits.extend_from_slice(&out[start - a..end - a]);
            start = end;
        }
        logits
    }

    /// The logits of rows `range` computed from those rows alone (the convolutions pad
    /// with zeros at the range's ends; attention chunks keep the page's boundaries).
    fn logits(
        &self,
        fill: &dyn Fn(Range<usize>, &mut [f32]),
        indices: &[i64],
        offsets: &[i64],
        range: std::ops::Range<usize>,
    ) -> Vec<f32> {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = Avx2::detect() {
            // SAFETY: `logits_avx2` is compiled for AVX2 and FMA, which `detect` found.
            return unsafe { self.logits_avx2(avx2, fill, indices, offsets, range) };
        }
        self.logits_with(Portable, fill, indices, offsets, range)
    }

    /// [`SeqNet::logits_with`] the AVX2 kernels, its loops compiled for AVX2 and FMA too.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn logits_avx2(
        &self,
        avx2: Avx2,
        fill: &dyn Fn(Range<usize>, &mut [f32]),
        indices: &[i64],
        offsets: &[i64],
        range: std::ops::Range<usize>,
    ) -> Vec<f32> {
        self.logits_with(avx2, fill, indices, offsets, range)
    }

    /// [`SeqNet::logits`] with `kernels` (the same results with either: see [`kernels`]).
    #[inline(always)]
    fn logits_with<K: Kernels>(
        &self,
        kernels: K,
        fill: &dyn Fn(Range<usize>, &mut [f32]),
        indices: &[i64],
        offsets: &[i64],
        range: std::ops::Range<usize>,
    ) -> Vec<f32> {
        let first = range.start;
        let rows = range.len();
        let d = self.in2.outputs();
        let mut buffers = Buffers::default();
        let mut h = vec![0.0f32; rows * d];
        self.input(kernels, fill, indices, offsets, range, &mut buffers, &mut h);
        crate::budget::checkpoint();
        self.conv1.add_relu(kernels, &mut h, &mut buffers.padded);
        for layer in &self.layers {
            crate::budget::checkpoint();
            self.transform(kernels, &mut h, layer, first, &mut buffers);
        }
        crate::budget::checkpoint();
        self.conv2.add_relu(kernels, &mut h, &mut buffers.padded);
        let normed = &mut buffers.normed;
        normed.resize(rows * d, 0.0);
        self.norm.apply(&h, normed);
        let mut logits = vec![0.0f32; rows];
        self.out
            .apply(kernels, normed, d, rows, &mut logits, Then::Store);
        logits
    }

    fn check_tokens(&self, rows: usize, indices: &[i64], offsets: &[i64]) -> Result<(), NetError> {
        if offsets.len() != rows + 1 || offsets.first() != Some(&0) {
            return Err(NetError::Input(format!(
                "offsets must start at 0 and hold {} entries",
                rows + 1
            )));
        }
        if offsets.windows(2).any(|w| w[0] > w[1]) || offsets[rows] as usize != indices.len() {
            return Err(NetError::Input(
                "offsets must rise to the number of token indices".to_owned(),
            ));
        }
        if indices
            .iter()
            .any(|&t| usize::try_from(t).map_or(true, |t| t >= self.tokens))
        {
            return Err(NetError::Input(format!(
                "a token index is outside 0..{}",
                self.tokens
            )));
        }
        Ok(())
    }

    /// The perceptron over each block's standardised inputs and mean token embedding, into `h`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn input<K: Kernels>(
        &self,
        kernels: K,
        fill: &dyn Fn(Range<usize>, &mut [f32]),
        indices: &[i64],
        offsets: &[i64],
        range: std::ops::Range<usize>,
        buffers: &mut Buffers,
        h: &mut [f32],
    ) {
        let numeric = self.numeric();
        let e = self.embedding_width;
        let rows = range.len();
        let x = &mut buffers.inputs;
        x.clear();
        x.resize(rows * (numeric + e), 0.0);
        let (centre, scale) = (&self.mean[..numeric], &self.scale[..numeric]);
        let mut values = vec![0.0f32; rows * numeric];
        fill(range.clone(), &mut values);
        for ((i, x), row) in range
            .zip(x.chunks_exact_mut(numeric + e))
            .zip(values.chunks_exact(numeric.max(1)))
        {
            let (standard, mean) = x.split_at_mut(numeric);
            for j in 0..numeric {
                standard[j] = ((row[j] - centre[j]) / scale[j]).clamp(-CLIP, CLIP);
            }
            let tokens = &indices[offsets[i] as usize..offsets[i + 1] as usize];
            for &t in tokens {
                let embedding = &self.embedding[t as usize * e..(t as usize + 1) * e];
                for (m, v) in mean.iter_mut().zip(embedding) {
                    *m += v;
                }
            }
            let count = tokens.len().max(1) as f32;
            for m in mean.iter_mut() {
                *m /= count;
            }
        }
        let hidden = &mut buffers.hidden;
        hidden.resize(rows * self.in1.outputs(), 0.0);
        self.in1
            .apply(kernels, x, numeric + e, rows, hidden, Then::Gelu);
        let width = self.in1.outputs();
        self.in2.apply(kernels, hidden, width, rows, h, Then::Store);
    }

    /// One transformer layer over rows whose first is the page's row `first`.
    #[inline(always)]
    fn transform<K: Kernels>(
        &self,
        kernels: K,
        h: &mut [f32],
        layer: &Layer,
        first: usize,
        buffers: &mut Buffers,
    ) {
        let d = self.in2.outputs();
        let rows = h.len() / d;
        let Buffers {
            normed,
            qkv,
            mixed,
            hidden,
            attention: scratch,
            ..
        } = buffers;
        normed.resize(rows * d, 0.0);
        qkv.resize(rows * 3 * d, 0.0);
        mixed.resize(rows * d, 0.0);
        hidden.resize(rows * layer.ff1.outputs(), 0.0);
        layer.ln1.apply(h, normed);
        layer.qkv.apply(kernels, normed, d, rows, qkv, Then::Store);
        let shape = Heads {
            width: d,
            heads: self.heads,
            chunk: self.chunk,
        };
        attention(kernels, qkv, rows, first, shape, scratch, mixed);
        layer.proj.apply(kernels, mixed, d, rows, h, Then::Add);
        layer.ln2.apply(h, normed);
        layer
            .ff1
            .apply(kernels, normed, d, rows, hidden, Then::Relu);
        let inner = layer.ff1.outputs();
        layer.ff2.apply(kernels, hidden, inner, rows, h, Then::Add);
    }
}

/// The intermediate matrices of one [`SeqNet::logits`] call, reused across its steps.
#[derive(Default)]
struct Buffers {
    inputs: Vec<f32>,
    hidden: Vec<f32>,
    padded: Vec<f32>,
    normed: Vec<f32>,
    qkv: Vec<f32>,
    mixed: Vec<f32>,
    attention: AttentionScratch,
}

#[cfg(test)]
mod tests;
