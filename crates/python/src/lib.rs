//! `thresher._core`: the native core's Python face.
//!
//! Parsing and the document walk run with the GIL released; only the
//! conversion of their columns into Python objects holds it. Integer columns
//! come back as tuples, strings as one list per column.

// Every allocation of the core (the parser's nodes and strings above all) goes through
// mimalloc: the parse allocates many small, short-lived objects, which it serves faster than
// the system allocator (measured in docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use thresher_core::hash::{HashMap, HashMapExt};

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use thresher_core::document::{self, held_node_attributes, Document};
use thresher_core::dom::{Dom, NodeId};
use thresher_core::features::cetr::{self, Edges};
use thresher_core::features::{candidates, context, cues, neighbours, shallow, stage2, structure};
use thresher_core::{automaton, build, parse, Limits};

mod budget;
mod learned;
mod models;
mod page;
mod select;

use models::{SequenceNet, Trees};
use page::{
    CommentSignals, CommentWords, Page, SelectionRules, StopWords, TreeFactsParams, Vocabulary,
};

/// One Python string per distinct value, so equal tags and attribute names share an object.
struct Strings<'py> {
    py: Python<'py>,
    seen: HashMap<String, Bound<'py, PyString>>,
}

impl<'py> Strings<'py> {
    fn new(py: Python<'py>) -> Self {
        Strings {
            py,
            seen: HashMap::new(),
        }
    }

    fn get(&mut self, value: &str) -> Bound<'py, PyString> {
        if let Some(string) = self.seen.get(value) {
            return string.clone();
        }
        let string = PyString::intern(self.py, value);
        self.seen.insert(value.to_owned(), string.clone());
        string
    }
}

/// Each element's attributes as the Python document holds them (see `build_document`),
/// made into Python dicts only when asked for: most extractions read none of them.
#[pyclass(frozen, module = "thresher._core")]
struct ElementAttributes {
    dom: Arc<Dom>,
    /// The DOM node of each element.
    nodes: Vec<NodeId>,
    all: bool,
    /// The mapping given for an element without attributes.
    empty: Py<PyAny>,
}

#[pymethods]
impl ElementAttributes {
    /// One dict per element, in element order (the shared empty mapping where it has none).
    fn dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut strings = Strings::new(py);
        let empty = self.empty.bind(py);
        let list = PyList::empty(py);
        for &node in &self.nodes {
            let attrs = held_node_attributes(&self.dom, node, self.all);
            if attrs.is_empty() {
                list.append(empty)?;
                continue;
            }
            let dict = PyDict::new(py);
            for attr in attrs {
                dict.set_item(strings.get(&attr.name), attr.value.as_str())?;
            }
            list.append(dict)?;
        }
        Ok(list)
    }

    fn __len__(&self) -> usize {
        self.nodes.len()
    }
}

/// Texts of up to this many bytes may share one string between blocks ([`blocks`]).
const SHARED_TEXT_BYTES: usize = 32;
/// How many distinct short texts [`blocks`] keeps to share.
const SHARED_TEXTS: usize = 4096;

/// Takes `object` out of the cyclic garbage collector's care: it is a tuple (or an instance
/// of a tuple subclass without a `__dict__`) that holds only strings, ints, bools and tuples
/// already untracked, so it can never be part of a reference cycle, the only thing the
/// collector looks for. A page's blocks then cost the collector nothing: neither while they
/// are made (a collection every few hundred allocations would otherwise walk every block made
/// so far) nor while the document lives. CPython does the same to plain tuples of such
/// values at their first collection.
fn untrack(object: &Bound<'_, PyAny>) {
    let pointer = object.as_ptr();
    // SAFETY: `pointer` is a live object we hold a strong reference to, and we hold the GIL
    // (`object` is bound to it). `PyType_IS_GC` of its type (the stable ABI's type-flags
    // read) checks that the type supports the collector, so `PyObject_GC_IsTracked` and `PyObject_GC_UnTrack` apply to it; untracking
    // a tracked object is allowed at any time, and its deallocator's own untracking is a
    // no-op on an untracked object. Leaving an object that cannot be part of a cycle
    // untracked never frees anything early: the collector only ever frees what it tracks.
    unsafe {
        if pyo3::ffi::PyType_IS_GC(pyo3::ffi::Py_TYPE(pointer)) != 0
            && pyo3::ffi::PyObject_GC_IsTracked(pointer) == 1
        {
            pyo3::ffi::PyObject_GC_UnTrack(pointer.cast());
        }
    }
}

/// Whether instances of `block_type` hold nothing but their tuple items: a tuple subclass
/// whose instances have no `__dict__` (a ``NamedTuple``), which [`untrack`] may then take.
fn items_only(block_type: &Bound<'_, PyAny>) -> PyResult<bool> {
    let Ok(class) = block_type.cast::<PyType>() else {
        return Ok(false);
    };
    Ok(class.is_subclass_of::<PyTuple>()?
        && class.getattr("__dictoffset__")?.extract::<isize>()? == 0)
}

/// One row per block of `range`, in the field order of ``thresher.document.blocks.Block``,
/// each made into `block_type` (a tuple subclass) as it is built, so no second copy of the
/// rows lives beside the blocks. A block whose one span is its whole text shares that text's
/// string. The rows are [`untrack`]ed: the page's blocks add no work to the garbage collector.
pub(crate) fn blocks<'py>(
    py: Python<'py>,
    dom: &Dom,
    doc: &Document,
    range: std::ops::Range<usize>,
    block_type: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let mut strings = Strings::new(py);
    let tuple_new = py.get_type::<PyTuple>().getattr("__new__")?;
    let untrack_blocks = items_only(block_type)?;
    let list = PyList::empty(py);
    // Short texts met again share their first string (lists of "Reply", "item" ...), up to
    // a bounded number of distinct ones.
    let mut short: HashMap<&str, Bound<'py, PyString>> = HashMap::new();
    let start = range.start;
    for (offset, block) in doc.blocks[range].iter().enumerate() {
        let index = start + offset;
        thresher_core::budget::check();
        let spans = &doc.spans[block.span_start as usize..block.span_end as usize];
        let text = match short.get(block.text.as_str()) {
            Some(held) => held.clone(),
            None => {
                let text = PyString::new(py, &block.text);
                if block.text.len() <= SHARED_TEXT_BYTES && short.len() < SHARED_TEXTS {
                    short.insert(&block.text, text.clone());
                }
                text
            }
        };
        // The block's element number, one int object for the block and its one span.
        let element = block.element.into_pyobject(py)?;
        let spans = match spans {
            [span] if doc.span_text(dom, *span) == block.text && span.element == block.element => {
                PyTuple::new(py, [(text.clone(), element.clone())])?
            }
            [span] if doc.span_text(dom, *span) == block.text => {
                PyTuple::new(py, [(text.clone(), span.element)])?
            }
            _ => PyTuple::new(
                py,
                spans
                    .iter()
                    .map(|span| (doc.span_text(dom, *span), span.element)),
            )?,
        };
        for pair in spans.iter() {
            untrack(&pair);
        }
        untrack(spans.as_any());
        let tag = strings.get(dom.tag(doc.nodes[block.element as usize]));
        let row = (
            index,
            text,
            tag,
            element,
            spans,
            block.chars,
            block.words,
            block.link_chars,
            block.link_words,
            block.tags,
            block.is_heading,
            block.offset,
        )
            .into_pyobject(py)?;
        let made = tuple_new.call1((block_type, row))?;
        if untrack_blocks {
            untrack(&made);
        }
        list.append(made)?;
    }
    Ok(list)
}

/// Parse `html` and walk it into a document.
///
/// Returns a dict of columns: ``tags``, ``parents``, ``depths``, ``first_blocks``,
/// ``end_blocks`` (tuples of ints), ``attrs`` (an [`ElementAttributes`]: a dict per element,
/// or ``empty`` for elements without attributes, and for all but ``<html>`` and skipped
/// elements unless ``attributes``), ``lang`` (the ``<html>`` element's ``lang``, or None),
/// ``title``, ``meta``, ``json_ld``, ``skipped`` and ``page`` (the native [`Page`], which
/// makes the blocks on demand: see [`blocks`]).
///
/// ``html`` is the page's text, or the page's own bytes when they are that text in UTF-8
/// (read as they are: no copy of the text is encoded).
#[pyfunction]
#[pyo3(signature = (html, *, max_attributes, max_depth, attributes, empty))]
fn build_document<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    max_attributes: usize,
    max_depth: u32,
    attributes: bool,
    empty: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let source = match html.cast::<PyBytes>() {
        Ok(bytes) => thresher_core::text::utf8_str(bytes.as_bytes())
            .map_err(|e| PyValueError::new_err(format!("the bytes are not UTF-8: {e}")))?,
        Err(_) => html.cast::<PyString>()?.to_str()?,
    };
    let limits = Limits {
        max_attributes,
        max_depth,
    };
    // A panic in the parser is a bug, never the caller's fault; it becomes a Python error
    // instead of unwinding into the interpreter. Nothing is shared with the closure but
    // the input, so no state is left half-changed.
    // (A stop of the time budget is no failure: it goes on to `detach`, which reports it.)
    let (dom, doc) = budget::detach(py, || {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            let dom = parse(source, limits);
            let doc = build(&dom);
            (dom, doc)
        }))
        .map_err(thresher_core::budget::forward_stop)
    })?
    .map_err(|_| PyRuntimeError::new_err("the native parser failed on this page"))?;
    // Making the Python objects of a large page takes a while too.
    budget::held(py, || columns(py, dom, doc, attributes, empty))
}

/// [`build_document`]'s dict of columns, made of the parsed page.
fn columns<'py>(
    py: Python<'py>,
    dom: Dom,
    doc: Document,
    attributes: bool,
    empty: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut strings = Strings::new(py);
    let out = PyDict::new(py);
    // One string per distinct tag, looked up by its atom (no hashing of the text), and the
    // list made at its length.
    let mut by_atom = HashMap::new();
    let tags = PyList::new(
        py,
        doc.nodes.iter().map(|&node| {
            thresher_core::budget::check();
            match dom.local_name(node) {
                Some(name) => by_atom
                    .entry(name)
                    .or_insert_with(|| strings.get(name))
                    .clone(),
                None => strings.get(""),
            }
        }),
    )?;
    out.set_item("tags", tags)?;
    // The numeric element columns stay in the page (`Page.element_column`): the common
    // extraction reads none of them, and a page of a million elements would hold a Python
    // int for each value.
    let root = doc.nodes.first().copied();
    let lang = root
        .filter(|&node| dom.tag(node) == "html")
        .and_then(|node| dom.attr(node, "lang"));
    out.set_item("lang", lang)?;
    let dom = Arc::new(dom);
    let attrs = ElementAttributes {
        dom: Arc::clone(&dom),
        nodes: doc.nodes.clone(),
        all: attributes,
        empty: empty.clone().unbind(),
    };
    out.set_item("attrs", attrs)?;
    out.set_item("title", doc.head.title.as_str())?;
    out.set_item("meta", doc.head.meta.clone())?;
    out.set_item("json_ld", doc.head.json_ld.clone())?;
    out.set_item("skipped", doc.skipped.clone())?;
    out.set_item("page", Page::new(dom, doc, attributes))?;
    Ok(out)
}

/// The Readability pattern groups an id or class value matches, as bits (unlikely 1,
/// maybe-candidate 2, positive 4, negative 8).
#[pyfunction]
fn readability_pattern_bits(value: &str) -> u8 {
    candidates::pattern_bits(value)
}

/// The attributes that hide an element by the core's one rule, in ``attrs`` order:
/// "hidden", "aria-hidden" and "style" (``attrs``: the element's (name, value) pairs).
#[pyfunction]
fn hidden_signals(attrs: Vec<(String, String)>) -> Vec<&'static str> {
    attrs
        .iter()
        .filter_map(|(name, value)| {
            thresher_core::hidden::signal([(name.as_str(), value.as_str())])
        })
        .collect()
}

/// How deep arrays and objects nest in JSON text, brackets inside strings aside (a scan, no
/// parse).
#[pyfunction]
fn json_nesting_depth(raw: &str) -> usize {
    thresher_core::text::json_nesting_depth(raw)
}

/// Kohlschütter's text density of one text (the ``text_density`` feature column).
#[pyfunction]
fn text_density(text: &str) -> f64 {
    shallow::text_density(text)
}

/// Boilerpipe's counts behind the same text density at `width` characters a line: (words with
/// a letter or digit, those on the lines before the last, those lines).
#[pyfunction]
fn wrap_counts(text: &str, width: usize) -> (usize, usize, usize) {
    shallow::wrap_counts(text, width)
}

/// The smoothing kernel of ``sigma`` and ``radius_sigmas``, or the caller's error.
fn kernel_of(sigma: f64, radius_sigmas: f64) -> PyResult<Vec<f64>> {
    cetr::gaussian_kernel(sigma, radius_sigmas).ok_or_else(|| {
        PyValueError::new_err(format!(
            "the smoothing reach must be a finite number of units, at most {}",
            cetr::MAX_REACH
        ))
    })
}

/// The normalised Gaussian kernel (float64) of standard deviation ``sigma`` reaching
/// ``ceil(radius_sigmas * sigma)`` units each way (``[1.0]`` when that is 0 or ``sigma`` is
/// not positive): the kernel of :func:`gaussian_smooth`.
#[pyfunction]
fn gaussian_kernel(
    py: Python<'_>,
    sigma: f64,
    radius_sigmas: f64,
) -> PyResult<Bound<'_, PyArray1<f64>>> {
    let kernel = kernel_of(sigma, radius_sigmas)?;
    Ok(PyArray1::from_vec(py, kernel))
}

/// ``values`` (float64) smoothed with a Gaussian of ``sigma`` units reaching
/// ``ceil(radius_sigmas * sigma)`` units each way, each window summed left to right.
/// ``edges``: ``"extend"`` repeats the end values past the ends (the flagship's
/// ``cetr_ratio``), ``"renormalise"`` weighs only the units that exist (the CETR algorithm).
#[pyfunction]
#[pyo3(signature = (values, sigma, radius_sigmas, *, edges))]
fn gaussian_smooth<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    sigma: f64,
    radius_sigmas: f64,
    edges: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let edges = match edges {
        "extend" => Edges::Extend,
        "renormalise" => Edges::Renormalise,
        other => {
            return Err(PyValueError::new_err(format!(
                "edges must be \"extend\" or \"renormalise\", not {other:?}"
            )))
        }
    };
    let kernel = kernel_of(sigma, radius_sigmas)?;
    let values = values.as_array().to_vec();
    let out = budget::detach(py, || cetr::smooth(&values, &kernel, edges))?;
    Ok(PyArray1::from_vec(py, out))
}

/// ``|mean of the next alpha values - value|`` of each of ``smoothed`` (fewer near the end; 0
/// for the last): CETR's derivative (``features::cetr``).
#[pyfunction]
fn cetr_derivative<'py>(
    py: Python<'py>,
    smoothed: PyReadonlyArray1<'py, f64>,
    alpha: i64,
) -> Bound<'py, PyArray1<f64>> {
    let values = smoothed.as_array().to_vec();
    let alpha = usize::try_from(alpha).unwrap_or(0);
    PyArray1::from_vec(py, cetr::derivative(&values, alpha))
}

/// k-means' centroids (k x 2) and each point's cluster.
type Clustering<'py> = (Bound<'py, numpy::PyArray2<f64>>, Bound<'py, PyArray1<i64>>);

/// Lloyd's k-means over the rows of ``points`` (float64, n x 2) with centroid 0 pinned at the
/// origin, seeded with the origin and the points at ``quantiles`` of distance from it: the
/// centroids (float64, k x 2) and each point's cluster (int64). CETR's clustering, shared by
/// the CETR algorithm and Dragnet's ``cetr_cluster`` column (``features::cetr``).
#[pyfunction]
fn kmeans_origin<'py>(
    py: Python<'py>,
    points: numpy::PyReadonlyArray2<'py, f64>,
    quantiles: Vec<f64>,
    max_iter: usize,
) -> PyResult<Clustering<'py>> {
    let view = points.as_array();
    if view.ncols() != 2 {
        return Err(PyValueError::new_err("points must have two columns"));
    }
    if quantiles.iter().any(|q| !(0.0..=1.0).contains(q)) {
        return Err(PyValueError::new_err("quantiles lie within [0, 1]"));
    }
    let rows: Vec<[f64; 2]> = view.rows().into_iter().map(|r| [r[0], r[1]]).collect();
    let (centroids, assignment) =
        budget::detach(py, || cetr::kmeans_origin(&rows, &quantiles, max_iter))?;
    let k = centroids.len();
    let flat: Vec<f64> = centroids.into_iter().flatten().collect();
    let centroids = PyArray1::from_vec(py, flat).reshape([k, 2])?;
    let assignment = PyArray1::from_iter(py, assignment.into_iter().map(|c| c as i64));
    Ok((centroids, assignment))
}

/// Two count arrays: one per text before, one after.
type Counts<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u64>>);

/// Per text of ``texts``: how many texts before it, and how many after it, are the same
/// (case ignored as ``str.lower`` ignores it) under another parent of ``parents`` (one per
/// text); two uint64 arrays (the ``copies_before`` / ``copies_after`` counts).
#[pyfunction]
fn text_copies<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    parents: Vec<i64>,
) -> PyResult<Counts<'py>> {
    if texts.len() != parents.len() {
        return Err(PyValueError::new_err("parents needs one value per text"));
    }
    let (before, after) = budget::detach(py, || {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        structure::text_copies(&texts, &parents)
    })?;
    Ok((
        PyArray1::from_vec(py, before),
        PyArray1::from_vec(py, after),
    ))
}

/// ``data`` read as strict UTF-8 (``bytes.decode("utf-8")``): its character count and whether
/// it is all white space (``str.isspace()``); None when it is not valid UTF-8.
#[pyfunction]
fn utf8_facts(py: Python<'_>, data: &[u8]) -> PyResult<Option<(usize, bool)>> {
    budget::detach(py, || thresher_core::text::utf8_facts(data))
}

/// langid.py's byte automaton (py3langid's tokenizer tables): ``visits(text)`` gives what its
/// ``visit_counts`` counts (``thresher_core::automaton``).
#[pyclass(frozen, module = "thresher._core")]
struct ByteAutomaton {
    automaton: automaton::ByteAutomaton,
}

#[pymethods]
impl ByteAutomaton {
    #[new]
    fn new(
        next: PyReadonlyArray1<'_, u32>,
        row: PyReadonlyArray1<'_, u64>,
        output: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<Self> {
        let automaton =
            automaton::ByteAutomaton::new(next.to_vec()?, row.as_slice()?, output.to_vec()?)
                .map_err(PyValueError::new_err)?;
        Ok(ByteAutomaton { automaton })
    }

    /// The features ``text`` passes, in the order first passed, and their counts.
    fn visits(&self, py: Python<'_>, text: &[u8]) -> PyResult<(Vec<u64>, Vec<u64>)> {
        budget::detach(py, || self.automaton.visits(text))
    }
}

/// Compiled page-type text cues (`thresher.features.pagetype.TEXT_CUES`): one pattern each,
/// counted natively (`thresher_core::features::cues`).
#[pyclass(frozen, module = "thresher._core")]
struct TextCues {
    cues: cues::TextCues,
}

#[pymethods]
impl TextCues {
    #[new]
    fn new(patterns: Vec<String>) -> PyResult<Self> {
        let cues = cues::TextCues::new(&patterns)
            .map_err(|e| PyValueError::new_err(format!("a text cue the core cannot read: {e}")))?;
        Ok(TextCues { cues })
    }

    /// Per pattern, its non-overlapping matches in ``text`` (Python's ``re.finditer`` count).
    fn counts(&self, py: Python<'_>, text: &str) -> PyResult<Vec<u64>> {
        budget::detach(py, || self.cues.counts(text))
    }

    fn __len__(&self) -> usize {
        self.cues.len()
    }
}

#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    // The workspace version (Cargo.toml), which maturin also gives the wheel: read from here,
    // it costs no importlib.metadata lookup at import.
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_function(wrap_pyfunction!(build_document, module)?)?;
    module.add_class::<budget::BudgetScope>()?;
    module.add_function(wrap_pyfunction!(budget::enter_budget, module)?)?;
    module.add_function(wrap_pyfunction!(budget::leave_budget, module)?)?;
    module.add_function(wrap_pyfunction!(budget::check_budget, module)?)?;
    module.add_class::<Trees>()?;
    module.add_class::<Page>()?;
    module.add_class::<learned::LearnedModel>()?;
    module.add_class::<learned::Scores>()?;
    module.add_function(wrap_pyfunction!(learned::decide, module)?)?;
    module.add_function(wrap_pyfunction!(learned::read_npz, module)?)?;
    module.add_class::<ElementAttributes>()?;
    module.add_function(wrap_pyfunction!(text_density, module)?)?;
    module.add_function(wrap_pyfunction!(json_nesting_depth, module)?)?;
    module.add_function(wrap_pyfunction!(wrap_counts, module)?)?;
    module.add_function(wrap_pyfunction!(hidden_signals, module)?)?;
    module.add_class::<StopWords>()?;
    module.add_class::<TreeFactsParams>()?;
    module.add_class::<CommentWords>()?;
    module.add_class::<select::Selectors>()?;
    module.add_class::<SelectionRules>()?;
    module.add_class::<CommentSignals>()?;
    module.add("SHALLOW_COLUMNS", shallow::COLUMNS.to_vec())?;
    module.add("BLOCK_TAG_ONE_HOT", context::BLOCK_TAG_ONE_HOT.to_vec())?;
    module.add("NEIGHBOUR_COLUMNS", neighbours::NEIGHBOUR_COLUMNS.to_vec())?;
    module.add_function(wrap_pyfunction!(gaussian_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(gaussian_smooth, module)?)?;
    module.add_function(wrap_pyfunction!(kmeans_origin, module)?)?;
    module.add_function(wrap_pyfunction!(cetr_derivative, module)?)?;
    module.add_function(wrap_pyfunction!(text_copies, module)?)?;
    module.add_class::<TextCues>()?;
    module.add_class::<ByteAutomaton>()?;
    module.add_function(wrap_pyfunction!(utf8_facts, module)?)?;
    module.add("BLOCK_TAGS", document::BLOCK_TAGS.to_vec())?;
    module.add("HEADING_TAGS", document::HEADING_TAGS.to_vec())?;
    module.add("SKIPPED_TAGS", document::SKIPPED_TAGS.to_vec())?;
    module.add_class::<SequenceNet>()?;
    module.add_class::<Vocabulary>()?;
    module.add_function(wrap_pyfunction!(readability_pattern_bits, module)?)?;
    module.add("CANDIDATE_COLUMNS", candidates::NAMES.to_vec())?;
    module.add("CONTEXT_COLUMNS", stage2::NAMES.to_vec())?;
    Ok(())
}
