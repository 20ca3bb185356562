//! `prune`'s CSS selectors, parsed once by the core (servo's `selectors` crate).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use thresher_core::select;

/// Parsed CSS selector lists (each string may hold several, comma-separated). Immutable.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct Selectors {
    pub(crate) selectors: select::Selectors,
    texts: Vec<String>,
}

#[pymethods]
impl Selectors {
    /// Raises ``ValueError`` naming the first selector that cannot be read, and why.
    #[new]
    fn new(selectors: Vec<String>) -> PyResult<Self> {
        let parsed = select::Selectors::parse(&selectors)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Selectors {
            selectors: parsed,
            texts: selectors,
        })
    }

    fn __repr__(&self) -> String {
        format!("Selectors({:?})", self.texts)
    }
}
