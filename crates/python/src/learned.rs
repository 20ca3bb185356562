//! A learned model file as one native object (``thresher._core.LearnedModel``), checked once
//! when it is built, and a page's scores in one call (``Page.score``).

use numpy::{PyArray1, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyDictMethods, PyTuple};
use thresher_core::features::base::base_names;
use thresher_core::hash::{HashMap, HashMapExt};
use thresher_core::learned::{
    self, Decoding, FileSpec, Kind, LinearArrays, ModelSpec, NetArrays, PageScores, TreeArrays,
    Weight,
};

use crate::page::TreeFactsParams;

/// The model files' schema name and the versions read.
const SCHEMA: &str = "thresher.model";
const VERSIONS: [i64; 2] = [1, 2];

fn bad(what: impl Into<String>) -> PyErr {
    PyValueError::new_err(what.into())
}

/// Reads an array's shape and values (one of [`integers`], [`floats`]).
type Reader<T> = fn(&str, &Bound<'_, PyAny>) -> PyResult<(Vec<usize>, Vec<T>)>;

/// An array as a model file stores it, read without numpy: ``(descr, shape, data)``, numpy's
/// dtype string (little-endian), the shape and the C-ordered bytes
/// (``thresher.inference.treemodel.RawArray``).
struct RawArray {
    descr: String,
    shape: Vec<usize>,
    data: Vec<u8>,
}

impl RawArray {
    /// `array` when it is a raw array; None for anything else (a numpy array, say).
    fn of(array: &Bound<'_, PyAny>) -> PyResult<Option<RawArray>> {
        let Ok(tuple) = array.cast::<PyTuple>() else {
            return Ok(None);
        };
        if tuple.len() != 3 {
            return Err(bad("a raw array is (descr, shape, data)"));
        }
        let descr: String = tuple.get_item(0)?.extract()?;
        let shape: Vec<usize> = tuple.get_item(1)?.extract()?;
        let data = tuple.get_item(2)?.cast::<PyBytes>()?.as_bytes().to_vec();
        Ok(Some(RawArray { descr, shape, data }))
    }

    /// The values, each read from `width` little-endian bytes by `read`.
    fn values<T>(&self, name: &str, width: usize, read: impl Fn(&[u8]) -> T) -> PyResult<Vec<T>> {
        let count = self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if count.and_then(|n| n.checked_mul(width)) != Some(self.data.len()) {
            return Err(bad(format!(
                "{name}: {} bytes do not hold shape {:?}",
                self.data.len(),
                self.shape
            )));
        }
        Ok(self.data.chunks_exact(width).map(read).collect())
    }

    fn integers(&self, name: &str) -> PyResult<Vec<i64>> {
        macro_rules! read_as {
            ($t:ty) => {{
                let values = self.values(name, std::mem::size_of::<$t>(), |b| {
                    <$t>::from_le_bytes(b.try_into().expect("chunks of the type's width"))
                })?;
                values
                    .into_iter()
                    .map(|v| {
                        i64::try_from(v).map_err(|_| bad(format!("{name} holds {v}, beyond int64")))
                    })
                    .collect()
            }};
        }
        match self.descr.trim_start_matches(['<', '|']) {
            "i8" => read_as!(i64),
            "i4" => read_as!(i32),
            "i2" => read_as!(i16),
            "i1" => read_as!(i8),
            "u8" => read_as!(u64),
            "u4" => read_as!(u32),
            "u2" => read_as!(u16),
            "u1" => read_as!(u8),
            _ => Err(bad(format!("{name} is not an array of integers"))),
        }
    }

    fn floats(&self, name: &str) -> PyResult<Vec<f64>> {
        match self.descr.trim_start_matches('<') {
            "f8" => self.values(name, 8, |b| {
                f64::from_le_bytes(b.try_into().expect("8 bytes"))
            }),
            "f4" => self.values(name, 4, |b| {
                f64::from(f32::from_le_bytes(b.try_into().expect("4 bytes")))
            }),
            _ => Err(bad(format!("{name} is not an array of floats"))),
        }
    }
}

/// The values of an integer array of any width, as i64 (a u64 beyond i64 is refused).
fn integers(name: &str, array: &Bound<'_, PyAny>) -> PyResult<(Vec<usize>, Vec<i64>)> {
    if let Some(raw) = RawArray::of(array)? {
        return Ok((raw.shape.clone(), raw.integers(name)?));
    }
    macro_rules! try_as {
        ($($t:ty),*) => {$(
            if let Ok(a) = array.extract::<PyReadonlyArrayDyn<'_, $t>>() {
                let values = a
                    .as_array()
                    .iter()
                    .map(|&v| i64::try_from(v).map_err(|_| bad(format!("{name} holds {v}, beyond int64"))))
                    .collect::<PyResult<Vec<i64>>>()?;
                return Ok((a.shape().to_vec(), values));
            }
        )*};
    }
    try_as!(i64, i32, i16, i8, u64, u32, u16, u8);
    Err(bad(format!("{name} is not an array of integers")))
}

/// The values of a float array (float64 or float32), as f64.
fn floats(name: &str, array: &Bound<'_, PyAny>) -> PyResult<(Vec<usize>, Vec<f64>)> {
    if let Some(raw) = RawArray::of(array)? {
        return Ok((raw.shape.clone(), raw.floats(name)?));
    }
    if let Ok(a) = array.extract::<PyReadonlyArrayDyn<'_, f64>>() {
        return Ok((a.shape().to_vec(), a.as_array().iter().copied().collect()));
    }
    if let Ok(a) = array.extract::<PyReadonlyArrayDyn<'_, f32>>() {
        return Ok((
            a.shape().to_vec(),
            a.as_array().iter().map(|&v| f64::from(v)).collect(),
        ));
    }
    Err(bad(format!("{name} is not an array of floats")))
}

/// The arrays of one file, by their names in it (``<model>.<key>``).
struct Arrays<'a, 'py> {
    arrays: &'a Bound<'py, PyDict>,
}

impl<'py> Arrays<'_, 'py> {
    fn get(&self, name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.arrays
            .get_item(name)?
            .ok_or_else(|| bad(format!("the array {name} is missing")))
    }

    fn vector<T>(&self, name: &str, read: Reader<T>) -> PyResult<Vec<T>> {
        let (shape, values) = read(name, &self.get(name)?)?;
        if shape.len() != 1 {
            return Err(bad(format!("{name} has shape {shape:?}, not one axis")));
        }
        Ok(values)
    }

    fn scalar<T: Copy>(&self, name: &str, read: Reader<T>) -> PyResult<T> {
        let (shape, values) = read(name, &self.get(name)?)?;
        match (shape.is_empty(), values.first()) {
            (true, Some(&v)) => Ok(v),
            _ => Err(bad(format!("{name} has shape {shape:?}, not a scalar"))),
        }
    }

    fn trees(&self, model: &str) -> PyResult<TreeArrays> {
        let key = |k: &str| format!("{model}.{k}");
        Ok(TreeArrays {
            feature: self.vector(&key("feature"), integers)?,
            threshold: self.vector(&key("threshold"), floats)?,
            left: self.vector(&key("left"), integers)?,
            right: self.vector(&key("right"), integers)?,
            value: self.vector(&key("value"), floats)?,
            roots: self.vector(&key("roots"), integers)?,
            depth: self.scalar(&key("depth"), integers)?,
            base: self.scalar(&key("base"), floats)?,
        })
    }

    fn linear(&self, model: &str) -> PyResult<LinearArrays> {
        let key = |k: &str| format!("{model}.{k}");
        Ok(LinearArrays {
            mean: self.vector(&key("mean"), floats)?,
            scale: self.vector(&key("scale"), floats)?,
            coef: self.vector(&key("coef"), floats)?,
            base: self.scalar(&key("base"), floats)?,
        })
    }

    fn network(&self, model: &str, token_columns: Vec<String>) -> PyResult<NetArrays> {
        let prefix = format!("{model}.w.");
        let mut weights = HashMap::new();
        for (name, array) in self.arrays.iter() {
            let name: String = name.extract()?;
            let Some(weight) = name.strip_prefix(&prefix) else {
                continue;
            };
            let (shape, values) = floats(&name, &array)?;
            // float32 weights: a float64 file's values are rounded as the network reads them.
            let values = values.into_iter().map(|v| v as f32).collect();
            weights.insert(weight.to_owned(), Weight { shape, values });
        }
        let key = |k: &str| format!("{model}.{k}");
        Ok(NetArrays {
            token_columns,
            weights,
            layers: self.scalar(&key("layers"), integers)?,
            heads: self.scalar(&key("heads"), integers)?,
            chunk: self.scalar(&key("chunk"), integers)?,
        })
    }
}

fn item<'py>(dict: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    dict.get_item(key)?
        .ok_or_else(|| bad(format!("the header lacks {key:?}")))
}

fn file_spec(header: &Bound<'_, PyDict>, arrays: &Bound<'_, PyDict>) -> PyResult<FileSpec> {
    let schema: String = item(header, "schema")?.extract().unwrap_or_default();
    if schema != SCHEMA {
        return Err(bad(format!("schema {schema:?} is not {SCHEMA:?}")));
    }
    let version: i64 = item(header, "version")?.extract().unwrap_or(-1);
    if !VERSIONS.contains(&version) {
        return Err(bad(format!(
            "model version {version} unsupported (this thresher reads 1, 2)"
        )));
    }
    let meta = match header.get_item("meta")? {
        Some(meta) => meta
            .cast_into::<PyDict>()
            .map_err(|_| bad("the header's meta is not a mapping"))?,
        None => PyDict::new(header.py()),
    };
    let strings = |key: &str| -> PyResult<Option<Vec<String>>> {
        match meta.get_item(key)? {
            Some(v) => {
                Ok(Some(v.extract().map_err(|_| {
                    bad(format!("meta {key} is not a list of strings"))
                })?))
            }
            None => Ok(None),
        }
    };
    let number = |key: &str, default: f64| -> PyResult<f64> {
        match meta.get_item(key)? {
            Some(v) => v
                .extract()
                .map_err(|_| bad(format!("meta {key} is not a number"))),
            None => Ok(default),
        }
    };
    let decoding_name: String = match meta.get_item("decoding")? {
        Some(v) => v
            .extract()
            .map_err(|_| bad("meta decoding is not a string"))?,
        None => "threshold".to_owned(),
    };
    let decoding = Decoding::named(&decoding_name).ok_or_else(|| {
        bad(format!(
            "model file names an unknown decoding {decoding_name:?} (known: expected_f1, threshold)"
        ))
    })?;
    let described = item(header, "models")?
        .cast_into::<PyDict>()
        .map_err(|_| bad("the header's models is not a mapping"))?;
    let arrays = Arrays { arrays };
    let mut models = HashMap::new();
    for (name, spec) in described.iter() {
        let name: String = name.extract()?;
        let spec = spec
            .cast_into::<PyDict>()
            .map_err(|_| bad(format!("model {name} is not described by a mapping")))?;
        let kind: String = item(&spec, "kind")?.extract()?;
        let feature_names: Vec<String> = item(&spec, "feature_names")?.extract().map_err(|_| {
            bad(format!(
                "model {name}: feature_names is not a list of strings"
            ))
        })?;
        let kind = match kind.as_str() {
            "trees" => Kind::Trees(arrays.trees(&name)?),
            "linear" => Kind::Linear(arrays.linear(&name)?),
            "sequence" => Kind::Sequence(arrays.network(
                &name,
                item(&spec, "token_columns")?.extract().map_err(|_| {
                    bad(format!(
                        "model {name}: token_columns is not a list of strings"
                    ))
                })?,
            )?),
            other => return Err(bad(format!("model {name:?}: unknown kind {other:?}"))),
        };
        models.insert(
            name,
            ModelSpec {
                feature_names,
                kind,
            },
        );
    }
    Ok(FileSpec {
        models,
        vocabulary: strings("vocabulary")?.unwrap_or_default(),
        network_vocabulary: strings("network_vocabulary")?,
        network_weight: number("network_weight", 0.0)?,
        threshold: number("threshold", 0.5)?,
        decoding,
    })
}

/// A model file, checked and laid out once (see ``thresher-core``'s ``learned``):
/// immutable, shared by every thread that scores pages with it.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct LearnedModel {
    pub(crate) model: learned::LearnedModel,
    /// The tree-fact constants its columns were resolved against (pages are scored with them).
    pub(crate) params: Py<TreeFactsParams>,
}

#[pymethods]
impl LearnedModel {
    /// Build from a file's parsed JSON ``header`` and its ``arrays`` (name -> numpy array),
    /// for pages whose tree facts use ``params``. A ValueError says what is wrong with a
    /// file that is not sound.
    #[new]
    fn new(
        header: &Bound<'_, PyDict>,
        arrays: &Bound<'_, PyDict>,
        params: Bound<'_, TreeFactsParams>,
    ) -> PyResult<Self> {
        let spec = file_spec(header, arrays)?;
        let names = base_names(&params.get().params);
        let model = header
            .py()
            .detach(|| learned::LearnedModel::new(&spec, &names))
            .map_err(|e| bad(e.0))?;
        Ok(LearnedModel {
            model,
            params: params.unbind(),
        })
    }

    /// The file's probability threshold.
    #[getter]
    fn threshold(&self) -> f64 {
        self.model.threshold()
    }

    /// The file's decoding ("expected_f1" or "threshold").
    #[getter]
    fn decoding(&self) -> &'static str {
        self.model.decoding().name()
    }

    #[getter]
    fn has_stage2(&self) -> bool {
        self.model.has_stage2()
    }

    #[getter]
    fn has_network(&self) -> bool {
        self.model.has_network()
    }
}

/// One page's scores at every step (float64 arrays, one value per block), its labels and the
/// cut applied (``inf``: the expected-F1 decoding kept nothing).
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct Scores {
    scores: PageScores,
}

impl Scores {
    pub(crate) fn new(scores: PageScores) -> Self {
        Scores { scores }
    }
}

#[pymethods]
impl Scores {
    #[getter]
    fn own<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.scores.own)
    }

    #[getter]
    fn context<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.scores.context)
    }

    #[getter]
    fn guarded<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.scores.guarded)
    }

    #[getter]
    fn network<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.scores
            .network
            .as_ref()
            .map(|n| PyArray1::from_slice(py, n))
    }

    #[getter]
    fn final_scores<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.scores.final_scores)
    }

    /// The labels as a tuple of bools, and the final scores as a tuple of floats (what a
    /// classification holds), made without numpy.
    fn classification<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let labels = pyo3::types::PyTuple::new(py, &self.scores.labels)?;
        let scores = pyo3::types::PyTuple::new(py, &self.scores.final_scores)?;
        pyo3::types::PyTuple::new(py, [labels.into_any(), scores.into_any()])
    }

    #[getter]
    fn labels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, &self.scores.labels)
    }

    #[getter]
    fn cut(&self) -> f64 {
        self.scores.cut
    }

    fn __len__(&self) -> usize {
        self.scores.labels.len()
    }
}

/// Labels (a tuple of bools) and the cut applied, under ``decoding`` ("expected_f1" or
/// "threshold", the latter with the never-empty fallback).
#[pyfunction]
#[pyo3(signature = (p, words, *, decoding, threshold, never_empty, fallback_ratio, allow_empty, beta))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn decide(
    p: Vec<f64>,
    words: Vec<f64>,
    decoding: &str,
    threshold: f64,
    never_empty: bool,
    fallback_ratio: f64,
    allow_empty: bool,
    beta: f64,
) -> PyResult<(Vec<bool>, f64)> {
    if p.len() != words.len() {
        return Err(bad("p and words differ in length"));
    }
    let decoding =
        Decoding::named(decoding).ok_or_else(|| bad(format!("unknown decoding {decoding:?}")))?;
    let params = learned::ScoreParams {
        smoothing: false,
        confident: 1.0,
        certain: 0.0,
        decoding,
        threshold,
        never_empty,
        fallback_ratio,
        allow_empty,
        beta,
    };
    Ok(learned::decide(&p, &words, &params))
}

/// The ``.npy`` members of the model file at ``path`` (a ``.npz`` archive), read with the GIL
/// released: a dict of member name -> ``(descr, shape, data)``, the raw arrays
/// :class:`LearnedModel` reads (``thresher.inference.modelfile.read_raw``). OSError when the
/// file cannot be read, ValueError when it is not an archive of ``.npy`` arrays.
#[pyfunction]
pub(crate) fn read_npz<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let arrays = py.detach(|| -> PyResult<_> {
        let bytes = std::fs::read(path)?;
        thresher_core::npz::read_npz(&bytes).map_err(bad)
    })?;
    let found = PyDict::new(py);
    for (name, array) in arrays {
        let shape = PyTuple::new(py, array.shape)?;
        found.set_item(name, (array.descr, shape, PyBytes::new(py, &array.data)))?;
    }
    Ok(found)
}
