//! A learned model file held natively, checked once when it is loaded, and the scoring of
//! one page with it in one pass: features, stage 1, the context of its scores, stage 2 on
//! the uncertain blocks, the sequence network, the main-run guard, the blend and the
//! decoding into labels.
//!
//! A file names the columns each of its models reads; [`LearnedModel::new`] resolves every
//! name to where a page's features hold it ([`Source`]), keeps only the columns some split
//! reads, and refuses a file whose arrays are inconsistent, whose indices fall outside their
//! arrays, or whose values are not finite where they must be. Scoring then trusts them.
//! The features themselves are the ones of [`crate::features`], which training reads too.

use crate::document::Document;
use crate::dom::Dom;
use crate::features::page::Head;
use crate::features::tree::{TreeFacts, TreeParams};
use crate::features::{base, candidates, cetr, stage2, tokens};
use crate::hash::{HashMap, HashMapExt, HashSet};
use crate::seqnet::{SeqNet, Sizes};
use crate::trees::{CompleteEnsemble, Ensemble, LANES};
use std::ops::Range;

mod decode;
pub use decode::{decide, expected_f1_cut, Decoding};

/// Why a model file is refused: a sentence naming the model and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError(pub String);

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}

fn refuse<T>(what: String) -> Result<T, ModelError> {
    Err(ModelError(what))
}

/// The prefix of an id/class token column's name (``tok_<token>``).
pub const TOKEN_PREFIX: &str = "tok_";
/// Dragnet's column of CETR's k-means decision (see [`cetr::block_content`]).
pub const CETR_CLUSTER: &str = "cetr_cluster";

/// Where a column a model reads lies among one page's features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Column j of the base matrix ([`base::base_rows`]).
    Base(usize),
    /// Column j of Readability's candidate columns.
    Candidate(usize),
    /// Whether the block holds token t of the model's token list.
    Token(u32),
    /// Column j of stage 2's context of the stage-1 scores (stage 2 only).
    Context(usize),
    /// CETR's k-means decision: 1 outside the origin's cluster.
    CetrCluster,
}

/// A tree ensemble's arrays as the model file holds them (indices widened to i64).
#[derive(Clone, Debug, Default)]
pub struct TreeArrays {
    pub feature: Vec<i64>,
    pub threshold: Vec<f64>,
    pub left: Vec<i64>,
    pub right: Vec<i64>,
    pub value: Vec<f64>,
    pub roots: Vec<i64>,
    pub depth: i64,
    pub base: f64,
}

/// A linear model's arrays: the margin is `sum(((x - mean) / scale) * coef) + base`.
#[derive(Clone, Debug, Default)]
pub struct LinearArrays {
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
    pub coef: Vec<f64>,
    pub base: f64,
}

/// One weight of the sequence network: its shape and its values, row-major.
#[derive(Clone, Debug, Default)]
pub struct Weight {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// The sequence network's arrays and sizes as the model file holds them.
#[derive(Clone, Debug, Default)]
pub struct NetArrays {
    pub token_columns: Vec<String>,
    pub weights: HashMap<String, Weight>,
    pub layers: i64,
    pub heads: i64,
    pub chunk: i64,
}

/// What kind of model a file's entry is, with its arrays.
#[derive(Clone, Debug)]
pub enum Kind {
    Trees(TreeArrays),
    Linear(LinearArrays),
    Sequence(NetArrays),
}

/// One named model of a file: the names of the columns it reads, in its order, and its arrays.
#[derive(Clone, Debug)]
pub struct ModelSpec {
    pub feature_names: Vec<String>,
    pub kind: Kind,
}

/// A whole model file: its models by name and what its header's meta says.
#[derive(Clone, Debug, Default)]
pub struct FileSpec {
    pub models: HashMap<String, ModelSpec>,
    /// The trees' id/class token vocabulary.
    pub vocabulary: Vec<String>,
    /// The network's own vocabulary (`None`: the trees').
    pub network_vocabulary: Option<Vec<String>>,
    pub network_weight: f64,
    pub threshold: f64,
    pub decoding: Decoding,
}

/// How a tree stage computes margins from its compact rows.
#[derive(Clone, Debug)]
enum Scorer {
    Complete(CompleteEnsemble),
    Nodes {
        feature: Vec<i32>,
        threshold: Vec<f64>,
        left: Vec<i32>,
        right: Vec<i32>,
        value: Vec<f64>,
        roots: Vec<i32>,
        base: f64,
    },
    Linear(LinearArrays),
}

/// A tree ensemble or linear model reading `reads` (one compact row column each).
#[derive(Clone, Debug)]
struct Stage {
    scorer: Scorer,
    reads: Vec<Source>,
}

impl Stage {
    /// The width of its compact rows (at least one column, so that a model reading nothing
    /// still has one row per block).
    fn width(&self) -> usize {
        self.reads.len().max(1)
    }

    /// Whether its compact rows are laid out in lanes (see [`CompleteEnsemble::margins_lanes`]),
    /// else one after the other.
    fn lanes(&self) -> bool {
        matches!(self.scorer, Scorer::Complete(_))
    }

    /// One margin per row of the `n` compact rows `rows` (`width` values each, in lanes when
    /// [`Stage::lanes`]).
    fn margins(&self, rows: &[f32], n: usize, out: &mut Vec<f64>) {
        let width = self.width();
        out.clear();
        match &self.scorer {
            Scorer::Complete(complete) => {
                out.resize(n, 0.0);
                complete.margins_lanes(rows, out);
            }
            Scorer::Nodes {
                feature,
                threshold,
                left,
                right,
                value,
                roots,
                base,
            } => {
                out.resize(n, *base);
                let ensemble = Ensemble {
                    feature,
                    threshold,
                    left,
                    right,
                    value,
                    roots,
                    base: *base,
                };
                // The load checked every index and that the trees hold no cycle.
                let checked = ensemble.margins(rows, width, out);
                debug_assert!(checked.is_ok());
            }
            Scorer::Linear(linear) => {
                out.extend(rows.chunks_exact(width).map(|row| {
                    let mut sum = 0.0;
                    for (j, &x) in row.iter().enumerate().take(linear.coef.len()) {
                        sum += ((f64::from(x) - linear.mean[j]) / linear.scale[j]) * linear.coef[j];
                    }
                    sum + linear.base
                }));
            }
        }
    }
}

/// The sequence network and where its numeric inputs lie; its tokens are read as bags over
/// its own vocabulary (its token columns, in order).
#[derive(Clone, Debug)]
struct Network {
    net: SeqNet,
    numeric: Vec<Source>,
    vocabulary: tokens::Vocabulary,
    weight: f64,
}

/// A model file, checked and laid out for scoring. Immutable; shared by threads.
#[derive(Clone, Debug)]
pub struct LearnedModel {
    stage1: Stage,
    stage2: Option<Stage>,
    network: Option<Network>,
    /// The tokens the trees read, in [`Source::Token`]'s numbering.
    tokens: tokens::Vocabulary,
    threshold: f64,
    decoding: Decoding,
}

/// Every column a page offers a file's models, by name.
struct Columns {
    names: HashMap<String, Source>,
    vocabulary: HashSet<String>,
}

impl Columns {
    fn new(base_names: &[String], vocabulary: &[String]) -> Self {
        let mut names = HashMap::new();
        for (j, name) in base_names.iter().enumerate() {
            names.insert(name.clone(), Source::Base(j));
        }
        for (j, name) in candidates::NAMES.iter().enumerate() {
            names.insert((*name).to_owned(), Source::Candidate(j));
        }
        names.insert(CETR_CLUSTER.to_owned(), Source::CetrCluster);
        Columns {
            names,
            vocabulary: vocabulary.iter().cloned().collect(),
        }
    }

    /// Where column `name` lies: stage 2's context (when `context`), a token of the
    /// vocabulary (numbered in `tokens`), then the page's other columns.
    fn resolve(
        &self,
        model: &str,
        name: &str,
        context: bool,
        tokens: &mut Vec<String>,
    ) -> Result<Source, ModelError> {
        if context {
            if let Some(j) = stage2::NAMES.iter().position(|n| *n == name) {
                return Ok(Source::Context(j));
            }
        }
        if let Some(token) = name.strip_prefix(TOKEN_PREFIX) {
            if self.vocabulary.contains(token) {
                let at = match tokens.iter().position(|t| t == token) {
                    Some(at) => at,
                    None => {
                        tokens.push(token.to_owned());
                        tokens.len() - 1
                    }
                };
                return Ok(Source::Token(at as u32));
            }
        }
        match self.names.get(name) {
            Some(&source) => Ok(source),
            None => refuse(format!(
                "model {model} reads features this thresher does not compute ({name:?}); \
                 retrain the model"
            )),
        }
    }
}

/// Check a tree ensemble's arrays against each other and against `width` named columns:
/// equal lengths, every split's column below `width`, every child and root inside the
/// arrays, no cycle, finite leaf values and base, no NaN threshold (±inf is a split that
/// always goes one way). Returns the trees' greatest depth.
pub fn check_trees(model: &str, t: &TreeArrays, width: usize) -> Result<u32, ModelError> {
    let n = t.feature.len();
    for (name, len) in [
        ("threshold", t.threshold.len()),
        ("left", t.left.len()),
        ("right", t.right.len()),
        ("value", t.value.len()),
    ] {
        if len != n {
            return refuse(format!(
                "model {model}: {name} holds {len} nodes, feature holds {n}"
            ));
        }
    }
    if !t.base.is_finite() {
        return refuse(format!("model {model}: the base margin is not finite"));
    }
    if t.depth < 0 {
        return refuse(format!("model {model}: negative depth {}", t.depth));
    }
    let node = |what: &str, i: i64| -> Result<usize, ModelError> {
        match usize::try_from(i) {
            Ok(i) if i < n => Ok(i),
            _ => refuse(format!(
                "model {model}: {what} {i} is outside the {n} nodes"
            )),
        }
    };
    for i in 0..n {
        let f = t.feature[i];
        if f < 0 {
            if f != -1 {
                return refuse(format!("model {model}: node {i} has feature {f}"));
            }
            if !t.value[i].is_finite() {
                return refuse(format!(
                    "model {model}: leaf {i} has a value that is not finite"
                ));
            }
            continue;
        }
        if usize::try_from(f).map_or(true, |f| f >= width) {
            return refuse(format!(
                "model {model}: node {i} splits on feature {f}, beyond its {width} features"
            ));
        }
        if t.threshold[i].is_nan() {
            return refuse(format!("model {model}: node {i} has a NaN threshold"));
        }
        node("a child index", t.left[i])?;
        node("a child index", t.right[i])?;
    }
    // Every root's tree: a walk no longer than the node count (else a cycle), its depth kept.
    let mut deepest = 0usize;
    let mut stack = Vec::new();
    for &root in &t.roots {
        stack.push((node("a root", root)?, 0usize));
        while let Some((at, depth)) = stack.pop() {
            if depth > n {
                return refuse(format!("model {model}: the trees hold a cycle"));
            }
            deepest = deepest.max(depth);
            if t.feature[at] >= 0 {
                stack.push((t.left[at] as usize, depth + 1));
                stack.push((t.right[at] as usize, depth + 1));
            }
        }
    }
    u32::try_from(deepest).map_err(|_| ModelError(format!("model {model}: trees too deep")))
}

/// Check a linear model: one finite mean, non-zero finite scale and finite coefficient per
/// column, a finite base.
fn check_linear(model: &str, l: &LinearArrays, width: usize) -> Result<(), ModelError> {
    for (name, values) in [("mean", &l.mean), ("scale", &l.scale), ("coef", &l.coef)] {
        if values.len() != width {
            return refuse(format!(
                "model {model}: {name} holds {} values for {width} features",
                values.len()
            ));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return refuse(format!(
                "model {model}: {name} holds a value that is not finite"
            ));
        }
    }
    if l.scale.contains(&0.0) || !l.base.is_finite() {
        return refuse(format!(
            "model {model}: a zero scale or a base that is not finite"
        ));
    }
    Ok(())
}

/// The shape of every weight of a sequence network of these sizes, by name (PyTorch's
/// `Linear` (out, in), `Conv1d` (out, in, width), `LayerNorm` (width)).
pub fn weight_shapes(s: &Sizes) -> Vec<(String, Vec<usize>)> {
    let (d, e) = (s.width, s.embedding);
    let mut shapes: Vec<(String, Vec<usize>)> = [
        ("mean", vec![s.numeric]),
        ("scale", vec![s.numeric]),
        ("embedding", vec![s.tokens, e]),
        ("in1.weight", vec![d, s.numeric + e]),
        ("in1.bias", vec![d]),
        ("in2.weight", vec![d, d]),
        ("in2.bias", vec![d]),
        ("conv1.weight", vec![d, d, 5]),
        ("conv1.bias", vec![d]),
        ("conv2.weight", vec![d, d, 3]),
        ("conv2.bias", vec![d]),
        ("norm.weight", vec![d]),
        ("norm.bias", vec![d]),
        ("out.weight", vec![1, d]),
        ("out.bias", vec![1]),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_owned(), s))
    .collect();
    for i in 0..s.layers {
        for (name, shape) in [
            ("ln1.weight", vec![d]),
            ("ln1.bias", vec![d]),
            ("qkv.weight", vec![3 * d, d]),
            ("qkv.bias", vec![3 * d]),
            ("proj.weight", vec![d, d]),
            ("proj.bias", vec![d]),
            ("ln2.weight", vec![d]),
            ("ln2.bias", vec![d]),
            ("ff1.weight", vec![2 * d, d]),
            ("ff1.bias", vec![2 * d]),
            ("ff2.weight", vec![d, 2 * d]),
            ("ff2.bias", vec![d]),
        ] {
            shapes.push((format!("layer{i}.{name}"), shape));
        }
    }
    shapes
}

fn positive(model: &str, name: &str, value: i64) -> Result<usize, ModelError> {
    match usize::try_from(value) {
        Ok(v) if (1..=1 << 20).contains(&v) => Ok(v),
        _ => refuse(format!("model {model}: {name} is {value}")),
    }
}

impl LearnedModel {
    /// Check `file` and lay it out for pages whose base columns are named `base_names`.
    /// Needs a `stage1` model; `stage2` and `network` are optional.
    pub fn new(file: &FileSpec, base_names: &[String]) -> Result<Self, ModelError> {
        if !file.threshold.is_finite() {
            return refuse("the model's threshold is not finite".to_owned());
        }
        if !(0.0..=1.0).contains(&file.network_weight) {
            return refuse(format!(
                "the network weight {} is not within [0, 1]",
                file.network_weight
            ));
        }
        let columns = Columns::new(base_names, &file.vocabulary);
        let mut token_list = Vec::new();
        let Some(spec1) = file.models.get("stage1") else {
            return refuse("the model file has no stage1 model".to_owned());
        };
        let stage1 = Self::stage("stage1", spec1, &columns, false, &mut token_list)?;
        let stage2 = match file.models.get("stage2") {
            Some(spec) => Some(Self::stage(
                "stage2",
                spec,
                &columns,
                true,
                &mut token_list,
            )?),
            None => None,
        };
        let network = match file.models.get("network") {
            Some(spec) => Some(Self::network(
                spec,
                base_names,
                file.network_vocabulary.as_ref().unwrap_or(&file.vocabulary),
                file.network_weight,
            )?),
            None => None,
        };
        if let Some(name) = file
            .models
            .keys()
            .find(|k| !["stage1", "stage2", "network"].contains(&k.as_str()))
        {
            return refuse(format!("the model file holds an unknown model {name:?}"));
        }
        Ok(LearnedModel {
            stage1,
            stage2,
            network,
            tokens: tokens::Vocabulary::new(&token_list),
            threshold: file.threshold,
            decoding: file.decoding,
        })
    }

    fn stage(
        model: &str,
        spec: &ModelSpec,
        columns: &Columns,
        context: bool,
        token_list: &mut Vec<String>,
    ) -> Result<Stage, ModelError> {
        let width = spec.feature_names.len();
        // Every name the model was trained on must be one a page has, read or not.
        let sources = spec
            .feature_names
            .iter()
            .map(|name| columns.resolve(model, name, context, token_list))
            .collect::<Result<Vec<Source>, ModelError>>()?;
        match &spec.kind {
            Kind::Trees(t) => {
                let depth = check_trees(model, t, width)?;
                // Only the columns some split reads, in ascending order, renumbered.
                let mut read: Vec<usize> = t
                    .feature
                    .iter()
                    .filter_map(|&f| usize::try_from(f).ok())
                    .collect();
                read.sort_unstable();
                read.dedup();
                let mut compact = vec![0i32; width];
                for (j, &f) in read.iter().enumerate() {
                    compact[f] = j as i32;
                }
                let feature: Vec<i32> = t
                    .feature
                    .iter()
                    .map(|&f| usize::try_from(f).map_or(-1, |f| compact[f]))
                    .collect();
                let narrow = |v: &[i64]| v.iter().map(|&i| i as i32).collect::<Vec<i32>>();
                let (left, right, roots) = (narrow(&t.left), narrow(&t.right), narrow(&t.roots));
                let reads: Vec<Source> = read.iter().map(|&f| sources[f]).collect();
                let ensemble = Ensemble {
                    feature: &feature,
                    threshold: &t.threshold,
                    left: &left,
                    right: &right,
                    value: &t.value,
                    roots: &roots,
                    base: t.base,
                };
                let complete = CompleteEnsemble::new(&ensemble, reads.len().max(1), depth)
                    .map_err(|e| ModelError(format!("model {model}: {e}")))?;
                let scorer = match complete {
                    Some(complete) => Scorer::Complete(complete),
                    None => Scorer::Nodes {
                        feature,
                        threshold: t.threshold.clone(),
                        left,
                        right,
                        value: t.value.clone(),
                        roots,
                        base: t.base,
                    },
                };
                Ok(Stage { scorer, reads })
            }
            Kind::Linear(l) => {
                check_linear(model, l, width)?;
                Ok(Stage {
                    scorer: Scorer::Linear(l.clone()),
                    reads: sources,
                })
            }
            Kind::Sequence(_) => refuse(format!(
                "model {model} is a sequence network; only the \"network\" entry may be one"
            )),
        }
    }

    fn network(
        spec: &ModelSpec,
        base_names: &[String],
        vocabulary: &[String],
        weight: f64,
    ) -> Result<Network, ModelError> {
        let model = "network";
        let Kind::Sequence(arrays) = &spec.kind else {
            return refuse("model network is not a sequence network".to_owned());
        };
        let held: HashSet<&str> = vocabulary.iter().map(String::as_str).collect();
        let mut tokens = Vec::with_capacity(arrays.token_columns.len());
        let mut seen = HashSet::default();
        for column in &arrays.token_columns {
            let token = column
                .strip_prefix(TOKEN_PREFIX)
                .filter(|t| held.contains(t));
            let Some(token) = token else {
                return refuse(format!(
                    "model network: token column {column:?} is not a token of its vocabulary"
                ));
            };
            if !seen.insert(token) {
                return refuse(format!(
                    "model network: token column {column:?} is listed twice"
                ));
            }
            tokens.push(token.to_owned());
        }
        let token_set: HashSet<&str> = arrays.token_columns.iter().map(String::as_str).collect();
        let base: HashMap<&str, usize> = base_names
            .iter()
            .enumerate()
            .map(|(j, n)| (n.as_str(), j))
            .collect();
        let numeric = spec
            .feature_names
            .iter()
            .filter(|n| !token_set.contains(n.as_str()))
            .map(|n| match base.get(n.as_str()) {
                Some(&j) => Ok(Source::Base(j)),
                None => refuse(format!(
                    "model network reads features this thresher does not compute ({n:?}); retrain the model"
                )),
            })
            .collect::<Result<Vec<Source>, ModelError>>()?;
        if numeric.len() + tokens.len() != spec.feature_names.len() {
            return refuse("model network: a token column is not among its features".to_owned());
        }
        let shape = |name: &str| arrays.weights.get(name).map(|w| w.shape.clone());
        let (Some(in2), Some(embedding)) = (shape("in2.weight"), shape("embedding")) else {
            return refuse("model network lacks its in2 or embedding weights".to_owned());
        };
        let sizes = Sizes {
            numeric: numeric.len(),
            tokens: tokens.len(),
            width: in2.first().copied().unwrap_or(0),
            embedding: embedding.get(1).copied().unwrap_or(0),
            layers: usize::try_from(arrays.layers)
                .ok()
                .filter(|&l| l <= 64)
                .ok_or_else(|| ModelError(format!("model network: {} layers", arrays.layers)))?,
            heads: positive(model, "heads", arrays.heads)?,
            chunk: positive(model, "chunk", arrays.chunk)?,
        };
        let expected = weight_shapes(&sizes);
        for (name, shape) in &expected {
            match arrays.weights.get(name) {
                None => return refuse(format!("model network lacks the weight {name}")),
                Some(w) if &w.shape != shape || w.values.len() != shape.iter().product() => {
                    return refuse(format!(
                        "model network: weight {name} has shape {:?}, not {shape:?}",
                        w.shape
                    ))
                }
                Some(w) if w.values.iter().any(|v| !v.is_finite()) => {
                    return refuse(format!(
                        "model network: weight {name} holds a value that is not finite"
                    ))
                }
                Some(_) => {}
            }
        }
        if let Some(name) = arrays
            .weights
            .keys()
            .find(|k| !expected.iter().any(|(n, _)| n == *k))
        {
            return refuse(format!("model network holds an unknown weight {name}"));
        }
        if arrays.weights["scale"].values.contains(&0.0) {
            return refuse("model network: a scale of 0".to_owned());
        }
        let flat: crate::hash::HashMap<String, Vec<f32>> = arrays
            .weights
            .iter()
            .map(|(k, w)| (k.clone(), w.values.clone()))
            .collect();
        let net =
            SeqNet::new(&flat, &sizes).map_err(|e| ModelError(format!("model network: {e}")))?;
        Ok(Network {
            net,
            numeric,
            vocabulary: tokens::Vocabulary::new(&tokens),
            weight,
        })
    }

    /// The file's probability threshold.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The file's decoding.
    pub fn decoding(&self) -> Decoding {
        self.decoding
    }

    /// Whether the file has a stage-2 model.
    pub fn has_stage2(&self) -> bool {
        self.stage2.is_some()
    }

    /// Whether the file has a sequence network.
    pub fn has_network(&self) -> bool {
        self.network.is_some()
    }
}

/// Everything of one page that scoring reads.
#[derive(Clone, Copy)]
pub struct PageInput<'a> {
    pub dom: &'a Dom,
    pub doc: &'a Document,
    /// The tree facts computed with `params` (the params the model was laid out for).
    pub facts: &'a TreeFacts,
    pub params: &'a TreeParams,
    pub stop_words: &'a HashSet<String>,
    pub head: &'a Head<'a>,
}

/// How the scores become labels (the flagship's `Params`, resolved against the model).
#[derive(Clone, Copy, Debug)]
pub struct ScoreParams {
    /// Use stage 2 (when the file has one).
    pub smoothing: bool,
    pub confident: f64,
    pub certain: f64,
    pub decoding: Decoding,
    pub threshold: f64,
    pub never_empty: bool,
    pub fallback_ratio: f64,
    pub allow_empty: bool,
    pub beta: f64,
}

/// A page's scores at every step, its labels and the cut applied.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageScores {
    /// Stage 1's probabilities.
    pub own: Vec<f64>,
    /// Stage 2's (stage 1's where it was not evaluated, or without smoothing).
    pub context: Vec<f64>,
    /// Stage 2's after the main-run guard.
    pub guarded: Vec<f64>,
    /// The sequence network's, when the file has one.
    pub network: Option<Vec<f64>>,
    /// What the decoding read.
    pub final_scores: Vec<f64>,
    pub labels: Vec<bool>,
    /// The threshold or cut applied (`inf`: the expected-F1 decoding kept nothing).
    pub cut: f64,
}

/// A page's feature groups, computed once and read by every stage.
struct Features {
    rows: usize,
    base: base::BaseMatrix,
    candidates: Vec<f32>,
    /// Per block, the trees' tokens it holds (ascending positions).
    bags: (Vec<i64>, Vec<i64>),
    cetr_cluster: Vec<bool>,
}

impl Features {
    fn value(&self, source: Source, row: usize, context: &[f32]) -> f32 {
        match source {
            Source::Base(j) => self.base.get(row, j),
            Source::Candidate(j) => self.candidates[row * candidates::NAMES.len() + j],
            Source::Context(j) => context[row * stage2::NAMES.len() + j],
            Source::CetrCluster => f32::from(u8::from(self.cetr_cluster[row])),
            Source::Token(_) => 0.0, // set from the bags by `rows_of`
        }
    }

    /// The margins of `stage` for blocks `rows` (all blocks when `None`), made
    /// [`SCORE_BATCH`] blocks at a time: a batch's compact rows are made, scored and dropped,
    /// so the page's peak holds one batch of them, never a row per block of every column the
    /// stage reads (hundreds of MB on a page of 500,000 blocks). Each row's margin depends on
    /// that row alone, so the batches change no value.
    ///
    /// On a page of a batch or more, a batch's equal rows (equal to the bit in every column the
    /// stage reads) are scored once: the long lists and feeds that make pages of hundreds of
    /// thousands of blocks repeat the same few rows. Once a batch's rows turn out mostly
    /// distinct, the later batches are scored without looking them up.
    fn margins_of(&self, stage: &Stage, rows: Option<&[usize]>, context: &[f32]) -> Vec<f64> {
        let count = rows.map_or(self.rows, <[usize]>::len);
        // Rows are told apart by the columns that can differ between blocks: a base column
        // with one value for every block cannot.
        let varying: Vec<Source> = stage
            .reads
            .iter()
            .copied()
            .filter(|s| !matches!(*s, Source::Base(c) if self.base.same(c).is_some()))
            .collect();
        let (slots, varying_slots) = (token_slots(&stage.reads), token_slots(&varying));
        let mut margins = Vec::with_capacity(count);
        let mut batch = Vec::new();
        let (mut x, mut blocks) = (Vec::new(), Vec::new());
        let mut distinct = DistinctRows::default();
        // Rows are looked up on pages of a batch or more only: on a smaller page the lookup's
        // passes cost more than the walks of the few repeated rows it would save.
        let mut repeats = count >= SCORE_BATCH;
        let lanes = stage.lanes();
        let mut start = 0;
        while start < count {
            let end = (start + SCORE_BATCH).min(count);
            if repeats {
                self.rows_of(
                    &varying,
                    start..end,
                    rows,
                    context,
                    &varying_slots,
                    false,
                    &mut x,
                );
                distinct.find(&x, varying.len().max(1));
                // The whole rows of the distinct ones, scored.
                blocks.clear();
                blocks.extend(
                    distinct
                        .firsts
                        .iter()
                        .map(|&k| rows.map_or(start + k, |r| r[start + k])),
                );
                let n = blocks.len();
                self.rows_of(
                    &stage.reads,
                    0..n,
                    Some(&blocks),
                    context,
                    &slots,
                    lanes,
                    &mut x,
                );
                stage.margins(&x, n, &mut batch);
                margins.extend(distinct.row_of.iter().map(|&k| batch[k as usize]));
                // Fewer than a quarter of the rows repeated: looking them up costs more than
                // it saves.
                repeats = n * 4 <= (end - start) * 3;
            } else {
                self.rows_of(
                    &stage.reads,
                    start..end,
                    rows,
                    context,
                    &slots,
                    lanes,
                    &mut x,
                );
                stage.margins(&x, end - start, &mut batch);
                margins.extend_from_slice(&batch);
            }
            start = end;
        }
        margins
    }

    /// The compact rows of the columns `reads` for positions `span` of `rows` (of all blocks
    /// when `None`) into `out` (a column of zeros when `reads` is empty), in lanes when `lanes`
    /// (see [`Stage::lanes`]; the last group padded with zeros), else one after the other.
    /// `token_slots`: [`token_slots`] of `reads`. They are made column by column, [`ROW_GROUP`] rows
    /// at a time: each column's values for the group are read into one buffer (its kind
    /// matched once), then placed.
    #[allow(clippy::too_many_arguments)]
    fn rows_of(
        &self,
        reads: &[Source],
        span: Range<usize>,
        rows: Option<&[usize]>,
        context: &[f32],
        token_slots: &TokenSlots,
        lanes: bool,
        out: &mut Vec<f32>,
    ) {
        let width = reads.len().max(1);
        // Row k of a group, column j, is at `place[k] + j * column` in the group's values.
        let column = if lanes { LANES } else { 1 };
        let place: [usize; ROW_GROUP] = std::array::from_fn(|k| {
            if lanes {
                (k / LANES) * width * LANES + k % LANES
            } else {
                k * width
            }
        });
        let blocks: Vec<usize> = span.map(|k| rows.map_or(k, |r| r[k])).collect();
        let padded = if lanes {
            blocks.len().div_ceil(LANES) * LANES
        } else {
            blocks.len()
        };
        out.clear();
        out.resize(padded * width, 0.0);
        let mut values = [0.0f32; ROW_GROUP];
        let (indices, offsets) = &self.bags;
        for (group, out) in blocks
            .chunks(ROW_GROUP)
            .zip(out.chunks_mut(ROW_GROUP * width))
        {
            crate::budget::check();
            let values = &mut values[..group.len()];
            for (j, &source) in reads.iter().enumerate() {
                match source {
                    // Stage 1 reads every block: a group is then a range of them.
                    Source::Base(c) if rows.is_none() => {
                        self.base
                            .gather_range(c, group[0]..group[0] + group.len(), values);
                    }
                    Source::Base(c) => self.base.gather(c, group, values),
                    Source::Candidate(c) => {
                        let stride = candidates::NAMES.len();
                        for (v, &b) in values.iter_mut().zip(group) {
                            *v = self.candidates[b * stride + c];
                        }
                    }
                    Source::Context(c) => {
                        let stride = stage2::NAMES.len();
                        for (v, &b) in values.iter_mut().zip(group) {
                            *v = context[b * stride + c];
                        }
                    }
                    Source::CetrCluster => {
                        for (v, &b) in values.iter_mut().zip(group) {
                            *v = f32::from(u8::from(self.cetr_cluster[b]));
                        }
                    }
                    Source::Token(_) => continue, // set from the bags below
                }
                let at = j * column;
                if lanes {
                    // A lane group's values of one column are one run of LANES.
                    for (k, run) in values.chunks(LANES).enumerate() {
                        let from = k * width * LANES + at;
                        out[from..from + run.len()].copy_from_slice(run);
                    }
                } else {
                    for (&v, &p) in values.iter().zip(&place) {
                        out[p + at] = v;
                    }
                }
            }
            if !token_slots.is_empty() {
                for (&b, &p) in group.iter().zip(&place) {
                    for &t in &indices[offsets[b] as usize..offsets[b + 1] as usize] {
                        for &j in token_slots.get(t as usize).map_or(&[][..], Vec::as_slice) {
                            out[p + j * column] = 1.0;
                        }
                    }
                }
            }
        }
    }
}

/// Per token t of the trees' list (slot t), the columns of `reads` that read it; empty when
/// no column reads a token.
type TokenSlots = Vec<Vec<usize>>;

/// [`TokenSlots`] of `reads`.
fn token_slots(reads: &[Source]) -> TokenSlots {
    let mut slots: TokenSlots = Vec::new();
    for (j, source) in reads.iter().enumerate() {
        if let Source::Token(t) = *source {
            let t = t as usize;
            if slots.len() <= t {
                slots.resize(t + 1, Vec::new());
            }
            slots[t].push(j);
        }
    }
    slots
}

/// The distinct rows of a batch of compact rows (one after the other), and which of them
/// each row is. Rows are equal when every value is equal to the bit.
#[derive(Default)]
struct DistinctRows {
    /// Each distinct row's first position, in order of first appearance.
    firsts: Vec<usize>,
    /// For each row, its distinct row's number (its place in `firsts`).
    row_of: Vec<u32>,
    /// The hash of each distinct row -> the last distinct row with that hash.
    table: crate::hash::HashMap<u64, u32>,
    /// For each distinct row, the one before it with the same hash (`u32::MAX`: none).
    earlier: Vec<u32>,
    seed: u64,
}

impl DistinctRows {
    /// Find the distinct rows of `x` (rows of `width` values): `firsts` and `row_of` then
    /// describe them.
    fn find(&mut self, x: &[f32], width: usize) {
        use std::hash::BuildHasher;
        if self.seed == 0 {
            // Seeded per process (as the core's hash maps are), so that crafted pages cannot
            // aim rows at one slot.
            self.seed = foldhash::fast::RandomState::default().hash_one(0x5EED_u64) | 1;
        }
        self.firsts.clear();
        self.row_of.clear();
        self.table.clear();
        self.earlier.clear();
        for (i, row) in x.chunks_exact(width).enumerate() {
            crate::budget::check();
            let hash = row_hash(row, self.seed);
            let next = self.firsts.len() as u32;
            let last = *self.table.entry(hash).or_insert(u32::MAX);
            let mut k = last;
            while k != u32::MAX {
                let first = self.firsts[k as usize];
                if equal_bits(&x[first * width..(first + 1) * width], row) {
                    break;
                }
                k = self.earlier[k as usize];
            }
            if k == u32::MAX {
                k = next;
                self.firsts.push(i);
                self.earlier.push(last);
                self.table.insert(hash, next);
            }
            self.row_of.push(k);
        }
    }
}

/// Whether two rows hold the same values to the bit.
fn equal_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// A hash of a row's bits under `seed`: four independent multiply-xor chains (so that they
/// overlap in the processor), folded together.
fn row_hash(row: &[f32], seed: u64) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = [
        seed,
        seed.rotate_left(16),
        seed.rotate_left(32),
        seed.rotate_left(48),
    ];
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (k, h) in h.iter_mut().enumerate() {
            let word = u64::from(c[2 * k].to_bits()) << 32 | u64::from(c[2 * k + 1].to_bits());
            *h = (*h ^ word).wrapping_mul(K).rotate_left(29);
        }
    }
    for &v in chunks.remainder() {
        h[0] = (h[0] ^ u64::from(v.to_bits()))
            .wrapping_mul(K)
            .rotate_left(29);
    }
    let mut out = (row.len() as u64) ^ seed;
    for v in h {
        out = (out ^ v).wrapping_mul(K).rotate_left(31);
    }
    out ^ (out >> 32)
}

/// Rows whose compact columns are written together (see [`Features::rows_of`]); a multiple
/// of [`LANES`].
const ROW_GROUP: usize = 64;

/// Blocks whose compact rows are made and scored together (see [`Features::margins_of`]).
const SCORE_BATCH: usize = 4096;

fn needs(stages: &[&Stage], what: impl Fn(&Source) -> bool) -> bool {
    stages.iter().any(|s| s.reads.iter().any(&what))
}

/// numpy's `1 / (1 + exp(-m))` in float64.
fn sigmoid(margin: f64) -> f64 {
    1.0 / (1.0 + (-margin).exp())
}

/// The same in float32 (numpy's arithmetic on the network's float32 logits).
fn sigmoid32(margin: f32) -> f32 {
    1.0 / (1.0 + (-margin).exp())
}

/// numpy's `maximum`: NaN when either is NaN.
fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a >= b {
        a
    } else {
        b
    }
}

/// The blocks stage 2 is evaluated on: stage-1 probability within [certain, 1 - certain]
/// (all of them when `certain` is 0 or less).
pub fn uncertain(own: &[f64], certain: f64) -> Vec<usize> {
    (0..own.len())
        .filter(|&i| certain <= 0.0 || (own[i] >= certain && own[i] <= 1.0 - certain))
        .collect()
}

/// Everything scoring reads of a page's tree facts, computed from them once
/// ([`LearnedModel::features`]): the facts may be dropped before the page is scored.
pub struct ScoringFeatures {
    features: Features,
    /// The network's token bags over its own vocabulary, when the file has a network.
    network_bags: Option<(Vec<i64>, Vec<i64>)>,
}

impl LearnedModel {
    /// Score one page: every block's probabilities at each step, its labels and the cut.
    pub fn score(&self, page: &PageInput<'_>, params: &ScoreParams) -> PageScores {
        let features = self.features(page, params);
        self.score_features(page.doc, features, params)
    }

    /// The feature groups of `page` that [`LearnedModel::score_features`] reads.
    pub fn features(&self, page: &PageInput<'_>, params: &ScoreParams) -> ScoringFeatures {
        let doc = page.doc;
        let stage2 = self.stage2.as_ref().filter(|_| params.smoothing);
        let mut stages = vec![&self.stage1];
        stages.extend(stage2);
        let candidates_needed = needs(&stages, |s| matches!(s, Source::Candidate(_)));
        let features = Features {
            rows: doc.blocks.len(),
            base: base::BaseMatrix::new(
                page.dom,
                doc,
                page.facts,
                page.params,
                page.stop_words,
                page.head,
            ),
            candidates: if candidates_needed {
                candidates::candidate_columns(page.dom, doc, page.facts)
            } else {
                Vec::new()
            },
            bags: tokens::token_bags(doc, page.facts, &self.tokens),
            cetr_cluster: if needs(&stages, |s| *s == Source::CetrCluster) {
                cetr::block_content(doc)
            } else {
                Vec::new()
            },
        };
        let network_bags = self
            .network
            .as_ref()
            .map(|net| tokens::token_bags(doc, page.facts, &net.vocabulary));
        ScoringFeatures {
            features,
            network_bags,
        }
    }

    /// Score the page `doc` from its [`LearnedModel::features`] (made with the same `params`).
    pub fn score_features(
        &self,
        doc: &Document,
        features: ScoringFeatures,
        params: &ScoreParams,
    ) -> PageScores {
        let n = doc.blocks.len();
        let stage2 = self.stage2.as_ref().filter(|_| params.smoothing);
        let ScoringFeatures {
            features,
            network_bags,
        } = features;
        let own: Vec<f64> = features
            .margins_of(&self.stage1, None, &[])
            .iter()
            .map(|&m| sigmoid(m))
            .collect();
        let network = self
            .network
            .as_ref()
            .zip(network_bags)
            .map(|(net, bags)| net.scores(&features, bags));
        let (context, guarded) = match stage2 {
            None => (own.clone(), own.clone()),
            Some(stage) => {
                // The context is computed from scores of one per block, which `own` is.
                let around = stage2::context_features(doc, &own).unwrap_or_default();
                let mut context = own.clone();
                let rows = uncertain(&own, params.certain);
                if !rows.is_empty() {
                    let margins = features.margins_of(stage, Some(&rows), &around);
                    for (&row, &m) in rows.iter().zip(&margins) {
                        context[row] = sigmoid(m);
                    }
                }
                let width = stage2::NAMES.len();
                let run = stage2::NAMES.iter().position(|n| *n == "run_member");
                let guarded = (0..n)
                    .map(|i| {
                        let in_run = run.is_some_and(|j| around[i * width + j] > 0.0);
                        if in_run && own[i] >= params.confident {
                            maximum(own[i], context[i])
                        } else {
                            context[i]
                        }
                    })
                    .collect();
                (context, guarded)
            }
        };
        drop(features);
        let final_scores: Vec<f64> = match (&network, &self.network) {
            (Some(net), Some(model)) => guarded
                .iter()
                .zip(net)
                .map(|(&g, &p)| (1.0 - model.weight) * g + model.weight * p)
                .collect(),
            _ => guarded.clone(),
        };
        let words: Vec<f64> = doc
            .blocks
            .iter()
            .map(|b| f64::from(b.words).max(1.0))
            .collect();
        let (labels, cut) = decide(&final_scores, &words, params);
        PageScores {
            own,
            context,
            guarded,
            network,
            final_scores,
            labels,
            cut,
        }
    }
}

impl Network {
    /// The network's probabilities (float32 logits and arithmetic, as numpy does on them).
    /// Its numeric inputs are read from the features a segment of rows at a time, never
    /// copied out for the whole page.
    fn scores(&self, features: &Features, bags: (Vec<i64>, Vec<i64>)) -> Vec<f64> {
        let n = features.rows;
        let (indices, offsets) = bags;
        if n == 0 {
            return Vec::new();
        }
        let width = self.numeric.len();
        // Column by column: each column's values for the segment read into one buffer (its
        // kind matched once), then placed in the rows.
        let fill = |range: Range<usize>, out: &mut [f32]| {
            let mut values = vec![0.0f32; range.len()];
            for (j, &source) in self.numeric.iter().enumerate() {
                match source {
                    Source::Base(c) => features.base.gather_range(c, range.clone(), &mut values),
                    _ => {
                        for (v, row) in values.iter_mut().zip(range.clone()) {
                            *v = features.value(source, row, &[]);
                        }
                    }
                }
                for (k, &v) in values.iter().enumerate() {
                    out[k * width + j] = v;
                }
            }
        };
        // The load checked the sizes, and the bags are the vocabulary's positions.
        let logits = self
            .net
            .margins_with(n, fill, &indices, &offsets)
            .unwrap_or_else(|_| vec![0.0; n]);
        logits.iter().map(|&m| f64::from(sigmoid32(m))).collect()
    }
}

#[cfg(test)]
mod tests;
