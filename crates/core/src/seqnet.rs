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
//! Weights keep the shapes PyTorch's `Linear` (out, in), `Conv1d` (out, in, width)
//! and `LayerNorm` give them. Matrices are row-major `Vec<f32>`, one row per block.

use crate::hash::HashMap;

use ndarray::{s, Array2, ArrayView2};

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

/// A dense layer. PyTorch stores the weight as (out, in); it is kept transposed, (in, out),
/// for one matrix product per layer (ndarray's, with the processor's vector instructions
/// chosen at run time).
#[derive(Clone, Debug)]
struct Linear {
    weight: Array2<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Linear {
    fn new(weight: &[f32], bias: Vec<f32>, inputs: usize, outputs: usize) -> Self {
        let weight = ArrayView2::from_shape((outputs, inputs), weight)
            .expect("shape checked by the caller")
            .t()
            .as_standard_layout()
            .into_owned();
        Linear {
            weight,
            bias,
            inputs,
            outputs,
        }
    }

    /// `x` (rows × inputs) times the weight's transpose, plus the bias.
    fn apply(&self, x: &[f32]) -> Vec<f32> {
        let rows = x.len() / self.inputs;
        let x = ArrayView2::from_shape((rows, self.inputs), x).expect("whole rows");
        let mut out = x.dot(&self.weight);
        for mut row in out.rows_mut() {
            for (o, b) in row.iter_mut().zip(&self.bias) {
                *o += b;
            }
        }
        out.into_raw_vec_and_offset().0
    }
}

/// A convolution over rows with zero padding at both ends, as one matrix product: row i
/// of the windows holds rows i - width/2 .. i + width/2 of the input side by side. PyTorch
/// stores the weight as (out, in, width); it is laid out as a dense layer over the windows.
#[derive(Clone, Debug)]
struct Conv {
    dense: Linear,
    channels: usize,
    width: usize,
}

impl Conv {
    fn new(weight: &[f32], bias: Vec<f32>, channels: usize, width: usize) -> Self {
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
            dense: Linear::new(&laid, bias, channels * width, channels),
            channels,
            width,
        }
    }

    fn apply(&self, x: &[f32]) -> Vec<f32> {
        let d = self.channels;
        let rows = x.len() / d;
        let half = self.width / 2;
        let mut windows = vec![0.0f32; rows * d * self.width];
        for (i, window) in windows.chunks_exact_mut(d * self.width).enumerate() {
            for (k, slot) in window.chunks_exact_mut(d).enumerate() {
                if let Some(source) = (i + k).checked_sub(half).filter(|&r| r < rows) {
                    slot.copy_from_slice(&x[source * d..(source + 1) * d]);
                }
            }
        }
        self.dense.apply(&windows)
    }
}

#[derive(Clone, Debug)]
struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Norm {
    fn apply(&self, x: &[f32]) -> Vec<f32> {
        let d = self.weight.len();
        let mut out = Vec::with_capacity(x.len());
        for row in x.chunks_exact(d) {
            let mean = row.iter().sum::<f32>() / d as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d as f32;
            let deviation = (var + LAYER_NORM_EPS).sqrt();
            out.extend(
                row.iter()
                    .zip(&self.weight)
                    .zip(&self.bias)
                    .map(|((v, w), b)| (v - mean) / deviation * w + b),
            );
        }
        out
    }
}

#[derive(Clone, Debug)]
struct Layer {
    ln1: Norm,
    qkv: Linear,
    proj: Linear,
    ln2: Norm,
    ff1: Linear,
    ff2: Linear,
}

/// The network, checked and laid out for inference.
#[derive(Clone, Debug)]
pub struct SeqNet {
    mean: Vec<f32>,
    scale: Vec<f32>,
    embedding: Vec<f32>,
    embedding_width: usize,
    tokens: usize,
    in1: Linear,
    in2: Linear,
    conv1: Conv,
    conv2: Conv,
    layers: Vec<Layer>,
    norm: Norm,
    out: Linear,
    heads: usize,
    chunk: usize,
}

fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + (0.797_884_6 * (x + 0.044_715 * x * x * x)).tanh())
}

fn add_relu(h: &mut [f32], update: &[f32]) {
    for (a, b) in h.iter_mut().zip(update) {
        *a += b.max(0.0);
    }
}

fn add(h: &mut [f32], update: &[f32]) {
    for (a, b) in h.iter_mut().zip(update) {
        *a += b;
    }
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

    fn linear(&self, name: &str, inputs: usize, outputs: usize) -> Result<Linear, NetError> {
        let weight = self.get(&format!("{name}.weight"), inputs * outputs)?;
        Ok(Linear::new(
            &weight,
            self.get(&format!("{name}.bias"), outputs)?,
            inputs,
            outputs,
        ))
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
            self.get(&format!("{name}.bias"), width)?,
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
        self.check_tokens(rows, indices, offsets)?;
        Ok(self.margins_in_segments(values, indices, offsets, rows, SEGMENT_CHUNKS * self.chunk))
    }

    /// [`SeqNet::margins`] over `segment` rows at a time, so that a page of a million blocks
    /// needs the intermediate matrices of one segment, not of the page. A block's logit
    /// depends on its attention chunk (widened by the convolutions: two rows for the first,
    /// one for the second), so each segment is computed over the chunks that reach it, plus
    /// the rows the first convolution reads beyond them; every logit is the one the whole
    /// page at once would give.
    fn margins_in_segments(
        &self,
        values: &[f32],
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
            let out = self.logits(values, indices, offsets, a..b);
            logits.extend_from_slice(&out[start - a..end - a]);
            start = end;
        }
        logits
    }

    /// The logits of rows `range` computed from those rows alone (the convolutions pad
    /// with zeros at the range's ends; attention chunks keep the page's boundaries).
    fn logits(
        &self,
        values: &[f32],
        indices: &[i64],
        offsets: &[i64],
        range: std::ops::Range<usize>,
    ) -> Vec<f32> {
        let first = range.start;
        let mut h = self.input(values, indices, offsets, range);
        let update = self.conv1.apply(&h);
        add_relu(&mut h, &update);
        for layer in &self.layers {
            self.transform(&mut h, layer, first);
        }
        let update = self.conv2.apply(&h);
        add_relu(&mut h, &update);
        self.out.apply(&self.norm.apply(&h))
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

    /// The perceptron over each block's standardised inputs and mean token embedding.
    fn input(
        &self,
        values: &[f32],
        indices: &[i64],
        offsets: &[i64],
        range: std::ops::Range<usize>,
    ) -> Vec<f32> {
        let numeric = self.numeric();
        let e = self.embedding_width;
        let mut x = Vec::with_capacity(range.len() * (numeric + e));
        for i in range {
            let row = &values[i * numeric..(i + 1) * numeric];
            x.extend(
                row.iter()
                    .zip(&self.mean)
                    .zip(&self.scale)
                    .map(|((v, m), s)| ((v - m) / s).clamp(-CLIP, CLIP)),
            );
            let tokens = &indices[offsets[i] as usize..offsets[i + 1] as usize];
            let mut sum = vec![0.0f32; e];
            for &t in tokens {
                add(
                    &mut sum,
                    &self.embedding[t as usize * e..(t as usize + 1) * e],
                );
            }
            let count = tokens.len().max(1) as f32;
            x.extend(sum.iter().map(|s| s / count));
        }
        let hidden: Vec<f32> = self.in1.apply(&x).into_iter().map(gelu).collect();
        self.in2.apply(&hidden)
    }

    /// One transformer layer over rows whose first is the page's row `first`.
    fn transform(&self, h: &mut [f32], layer: &Layer, first: usize) {
        let qkv = layer.qkv.apply(&layer.ln1.apply(h));
        let mixed = self.attention(&qkv, h.len() / self.in2.outputs, first);
        add(h, &layer.proj.apply(&mixed));
        let inner: Vec<f32> = layer
            .ff1
            .apply(&layer.ln2.apply(h))
            .into_iter()
            .map(|v| v.max(0.0))
            .collect();
        add(h, &layer.ff2.apply(&inner));
    }

    /// Multi-head attention of each block over the blocks of its own chunk; `qkv` holds
    /// each row's queries, keys and values side by side. Row 0 is the page's row `first`:
    /// chunks start at the page's multiples of the chunk size.
    fn attention(&self, qkv: &[f32], rows: usize, first: usize) -> Vec<f32> {
        let d = self.in2.outputs;
        let size = d / self.heads;
        let scale = 1.0 / (size as f32).sqrt();
        let mut out = Array2::<f32>::zeros((rows, d));
        let qkv = ArrayView2::from_shape((rows, 3 * d), qkv).expect("whole rows");
        let mut start = 0;
        while start < rows {
            let end = (start + self.chunk - (first + start) % self.chunk).min(rows);
            for head in 0..self.heads {
                // This head's queries, keys and values over the chunk, as strided views.
                let at = head * size;
                let query = qkv.slice(s![start..end, at..at + size]);
                let key = qkv.slice(s![start..end, d + at..d + at + size]);
                let value = qkv.slice(s![start..end, 2 * d + at..2 * d + at + size]);
                let mut weights = query.dot(&key.t());
                for mut row in weights.rows_mut() {
                    let top = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) * scale;
                    let mut total = 0.0;
                    for w in row.iter_mut() {
                        *w = (*w * scale - top).exp();
                        total += *w;
                    }
                    row.mapv_inplace(|w| w / total);
                }
                out.slice_mut(s![start..end, at..at + size])
                    .assign(&weights.dot(&value));
            }
            start = end;
        }
        out.into_raw_vec_and_offset().0
    }
}

#[cfg(test)]
mod tests;
