//! Model inference: tree ensembles and the block-sequence network, compiled once per model.

use numpy::{
    PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArrayDyn, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use thresher_core::hash::HashMap;
use thresher_core::seqnet::{SeqNet, Sizes};
use thresher_core::trees::{CompleteEnsemble, Ensemble, SplitValue, TreeError};

/// The node arrays of a tree ensemble, as the model file holds them.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct Nodes<'py> {
    feature: PyReadonlyArray1<'py, i32>,
    threshold: PyReadonlyArray1<'py, f64>,
    left: PyReadonlyArray1<'py, i32>,
    right: PyReadonlyArray1<'py, i32>,
    value: PyReadonlyArray1<'py, f64>,
    roots: PyReadonlyArray1<'py, i32>,
}

impl Nodes<'_> {
    fn ensemble(&self, base: f64) -> PyResult<Ensemble<'_>> {
        Ok(Ensemble {
            feature: self.feature.as_slice()?,
            threshold: self.threshold.as_slice()?,
            left: self.left.as_slice()?,
            right: self.right.as_slice()?,
            value: self.value.as_slice()?,
            roots: self.roots.as_slice()?,
            base,
        })
    }
}

fn model_error(error: TreeError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A tree ensemble compiled for rows of one width. Immutable; safe to share between threads.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct Trees {
    layout: Layout,
    width: usize,
    base: f64,
}

/// The complete-tree layout of a shallow ensemble, or the node arrays of a deeper one.
enum Layout {
    Complete(CompleteEnsemble),
    Nodes(OwnedNodes),
}

/// The node arrays, owned, for ensembles too deep for the complete layout.
struct OwnedNodes {
    feature: Vec<i32>,
    threshold: Vec<f64>,
    left: Vec<i32>,
    right: Vec<i32>,
    value: Vec<f64>,
    roots: Vec<i32>,
}

impl OwnedNodes {
    fn ensemble(&self, base: f64) -> Ensemble<'_> {
        Ensemble {
            feature: &self.feature,
            threshold: &self.threshold,
            left: &self.left,
            right: &self.right,
            value: &self.value,
            roots: &self.roots,
            base,
        }
    }
}

impl Trees {
    fn margins_of<X: SplitValue + Into<f64> + numpy::Element + Send + Sync>(
        &self,
        py: Python<'_>,
        x: &PyReadonlyArray2<'_, X>,
    ) -> PyResult<Vec<f64>> {
        let (rows, width) = (x.shape()[0], x.shape()[1]);
        if width != self.width {
            return Err(PyValueError::new_err(format!(
                "rows have {width} columns, the trees read {}",
                self.width
            )));
        }
        let x = x.as_slice()?;
        let mut out = vec![self.base; rows];
        crate::budget::detach(py, || match &self.layout {
            Layout::Complete(complete) => {
                complete.margins(x, &mut out);
                Ok(())
            }
            Layout::Nodes(nodes) => nodes.ensemble(self.base).margins(x, width, &mut out),
        })?
        .map_err(model_error)?;
        Ok(out)
    }
}

#[pymethods]
impl Trees {
    /// Compile the ensemble of ``nodes`` (``feature``, ``threshold``, ``left``, ``right``,
    /// ``value``, ``roots``), at most ``depth`` deep, for rows of ``width`` columns.
    #[new]
    #[pyo3(signature = (nodes, *, depth, width, base))]
    fn new(nodes: Nodes<'_>, depth: u32, width: usize, base: f64) -> PyResult<Self> {
        let ensemble = nodes.ensemble(base)?;
        let layout = match CompleteEnsemble::new(&ensemble, width, depth).map_err(model_error)? {
            Some(complete) => Layout::Complete(complete),
            None => Layout::Nodes(OwnedNodes {
                feature: ensemble.feature.to_vec(),
                threshold: ensemble.threshold.to_vec(),
                left: ensemble.left.to_vec(),
                right: ensemble.right.to_vec(),
                value: ensemble.value.to_vec(),
                roots: ensemble.roots.to_vec(),
            }),
        };
        Ok(Trees {
            layout,
            width,
            base,
        })
    }

    /// The margin of every row of ``x`` (a C-contiguous float32 or float64 matrix of
    /// ``width`` columns); the GIL is released while the trees are walked.
    fn margins<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let out = if let Ok(x32) = x.extract::<PyReadonlyArray2<'py, f32>>() {
            self.margins_of(py, &x32)?
        } else {
            self.margins_of(py, &x.extract::<PyReadonlyArray2<'py, f64>>()?)?
        };
        Ok(PyArray1::from_vec(py, out))
    }

    /// The margins of rows ``rows`` (int64 indices; all rows when None) of a page whose
    /// columns lie in several C-contiguous float32 matrices ``groups`` of equal height, without
    /// joining them: column j of the trees' rows is column ``sources[j, 1]`` of group
    /// ``sources[j, 0]`` (an int64 matrix of ``width`` rows). Complete layouts only; the GIL is
    /// released while the rows are gathered and the trees walked.
    #[pyo3(signature = (groups, sources, rows=None))]
    fn margins_gathered<'py>(
        &self,
        py: Python<'py>,
        groups: Vec<PyReadonlyArray2<'py, f32>>,
        sources: PyReadonlyArray2<'py, i64>,
        rows: Option<PyReadonlyArray1<'py, i64>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let Layout::Complete(complete) = &self.layout else {
            return Err(PyValueError::new_err(
                "only complete-layout ensembles read column groups",
            ));
        };
        if sources.shape()[1] != 2 {
            return Err(PyValueError::new_err(
                "sources holds a (group, column) pair per row",
            ));
        }
        let height = groups.first().map_or(0, |g| g.shape()[0]);
        let slices = groups
            .iter()
            .map(|g| Ok((g.as_slice()?, g.shape()[1])))
            .collect::<PyResult<Vec<(&[f32], usize)>>>()?;
        let index =
            |v: i64| usize::try_from(v).map_err(|_| PyValueError::new_err("negative index"));
        let sources = sources
            .as_array()
            .rows()
            .into_iter()
            .map(|pair| Ok((index(pair[0])?, index(pair[1])?)))
            .collect::<PyResult<Vec<(usize, usize)>>>()?;
        let rows = match rows {
            Some(rows) => rows
                .as_array()
                .iter()
                .map(|&r| index(r))
                .collect::<PyResult<Vec<usize>>>()?,
            None => (0..height).collect(),
        };
        let out =
            crate::budget::detach(py, || complete.margins_gathered(&slices, &sources, &rows))?
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// Whether the complete-tree layout is used (the ensemble is shallow enough).
    #[getter]
    fn complete(&self) -> bool {
        matches!(self.layout, Layout::Complete(_))
    }
}

/// The block-sequence network, built once per model from its float32 weights.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct SequenceNet {
    net: SeqNet,
}

#[pymethods]
impl SequenceNet {
    /// ``weights``: name -> float32 array, named and shaped as the model file holds them.
    #[new]
    #[pyo3(signature = (weights, *, numeric, tokens, width, embedding, layers, heads, chunk))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        weights: HashMap<String, PyReadonlyArrayDyn<'_, f32>>,
        numeric: usize,
        tokens: usize,
        width: usize,
        embedding: usize,
        layers: usize,
        heads: usize,
        chunk: usize,
    ) -> PyResult<Self> {
        let arrays: HashMap<String, Vec<f32>> = weights
            .into_iter()
            .map(|(name, array)| (name, array.as_array().iter().copied().collect()))
            .collect();
        let sizes = Sizes {
            numeric,
            tokens,
            width,
            embedding,
            layers,
            heads,
            chunk,
        };
        let net = SeqNet::new(&arrays, &sizes).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(SequenceNet { net })
    }

    /// One logit per block: ``values`` (float32, blocks x numeric inputs, C-contiguous) and the
    /// blocks' tokens, block i's being ``indices[offsets[i]:offsets[i + 1]]``. The GIL is released.
    fn margins<'py>(
        &self,
        py: Python<'py>,
        values: PyReadonlyArray2<'py, f32>,
        indices: PyReadonlyArray1<'py, i64>,
        offsets: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        if values.shape()[1] != self.net.numeric() {
            return Err(PyValueError::new_err(format!(
                "rows have {} numeric inputs, the network reads {}",
                values.shape()[1],
                self.net.numeric()
            )));
        }
        let (values, indices, offsets) =
            (values.as_slice()?, indices.as_slice()?, offsets.as_slice()?);
        let out = crate::budget::detach(py, || self.net.margins(values, indices, offsets))?
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyArray1::from_vec(py, out))
    }
}
