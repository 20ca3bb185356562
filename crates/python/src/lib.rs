//! `thresher._core`: the native core's Python face.
//!
//! Parsing and the document walk run with the GIL released; only the
//! conversion of their columns into Python objects holds it. Integer columns
//! come back as read-only-able numpy arrays, strings as one list per column.

// Every allocation of the core (the parser's nodes and strings above all) goes through
// mimalloc: the parse allocates many small, short-lived objects, which it serves faster than
// the system allocator (measured in docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use thresher_core::hash::{HashMap, HashMapExt, HashSet};

use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArrayDyn,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use thresher_core::document::{self, held_attributes, Document};
use thresher_core::dom::Dom;
use thresher_core::features::base::base_columns;
use thresher_core::features::cetr::{self, Edges};
use thresher_core::features::page::Head;
use thresher_core::features::tree::{self, TreeFacts, TreeParams};
use thresher_core::features::{
    candidates, context, neighbours, overlap, shallow, stage2, structure, tokens,
};
use thresher_core::filters;
use thresher_core::seqnet::{SeqNet, Sizes};
use thresher_core::trees::{CompleteEnsemble, Ensemble, SplitValue, TreeError};
use thresher_core::{build, parse, Limits};

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

fn attribute_dicts<'py>(
    py: Python<'py>,
    dom: &Dom,
    doc: &Document,
    all: bool,
    empty: &Bound<'py, PyAny>,
    strings: &mut Strings<'py>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for index in 0..doc.len() {
        let attrs = held_attributes(dom, doc, index, all);
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

fn blocks<'py>(
    py: Python<'py>,
    dom: &Dom,
    doc: &Document,
    strings: &mut Strings<'py>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (index, block) in doc.blocks.iter().enumerate() {
        let spans = PyTuple::new(
            py,
            doc.spans[block.span_start as usize..block.span_end as usize]
                .iter()
                .map(|span| (doc.span_text(dom, *span), span.element)),
        )?;
        let tag = strings.get(dom.tag(doc.nodes[block.element as usize]));
        let row = (
            index,
            block.text.as_str(),
            tag,
            block.element,
            spans,
            block.chars,
            block.words,
            block.link_chars,
            block.link_words,
            block.tags,
            block.is_heading,
            block.offset,
        );
        list.append(row.into_pyobject(py)?)?;
    }
    Ok(list)
}

/// A parsed page kept native, for the feature columns the core computes. Immutable.
#[pyclass(frozen, module = "thresher._core")]
struct Page {
    dom: Arc<Dom>,
    doc: Document,
    /// Whether the Python document holds every element's attributes (see `build_document`).
    attributes: bool,
    /// The tree facts, computed once (with the parameters whose id is kept beside them).
    facts: OnceLock<(u64, Arc<TreeFacts>)>,
}

impl Page {
    fn new(dom: Arc<Dom>, doc: Document, attributes: bool) -> Self {
        Page {
            dom,
            doc,
            attributes,
            facts: OnceLock::new(),
        }
    }

    /// The tree facts under `params`: computed on first use and kept (facts under other
    /// parameters are computed each time).
    fn facts(&self, params: &TreeFactsParams) -> Arc<TreeFacts> {
        let compute = || {
            Arc::new(tree::tree_facts(
                &self.dom,
                &self.doc,
                self.attributes,
                &params.params,
            ))
        };
        let (id, facts) = self.facts.get_or_init(|| (params.id, compute()));
        if *id == params.id {
            Arc::clone(facts)
        } else {
            compute()
        }
    }
}

/// Numbers each `TreeFactsParams` built, so a page knows which its kept facts came from.
static PARAMS_BUILT: AtomicU64 = AtomicU64::new(0);

/// The constants the tree facts are computed with, built once.
#[pyclass(frozen, module = "thresher._core")]
struct TreeFactsParams {
    params: TreeParams,
    id: u64,
}

#[pymethods]
impl TreeFactsParams {
    #[new]
    #[pyo3(signature = (*, context_tags, negative_cues, positive_cues, max_cue_distance))]
    fn new(
        context_tags: Vec<String>,
        negative_cues: Vec<String>,
        positive_cues: Vec<String>,
        max_cue_distance: i64,
    ) -> Self {
        TreeFactsParams {
            params: TreeParams {
                context_tags,
                negative_cues: negative_cues.into_iter().collect(),
                positive_cues: positive_cues.into_iter().collect(),
                max_cue_distance,
            },
            id: PARAMS_BUILT.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// The comment-section detector's word lists, built once (see ``thresher.filters.CommentParams``).
#[pyclass(frozen, module = "thresher._core")]
struct CommentWords {
    params: filters::CommentParams,
}

#[pymethods]
impl CommentWords {
    #[new]
    #[pyo3(signature = (*, words, state_tokens, wrapper_tags))]
    fn new(words: Vec<String>, state_tokens: Vec<String>, wrapper_tags: Vec<String>) -> Self {
        CommentWords {
            params: filters::CommentParams {
                words: words.into_iter().collect(),
                state_tokens: state_tokens.into_iter().collect(),
                wrapper_tags: wrapper_tags.into_iter().collect(),
            },
        }
    }
}

/// A model's id/class token vocabulary (each token's column), built once per model.
#[pyclass(frozen, module = "thresher._core")]
struct Vocabulary {
    vocabulary: tokens::Vocabulary,
}

#[pymethods]
impl Vocabulary {
    #[new]
    fn new(tokens: Vec<String>) -> Self {
        Vocabulary {
            vocabulary: tokens::Vocabulary::new(&tokens),
        }
    }

    fn __len__(&self) -> usize {
        self.vocabulary.len()
    }
}

/// The Readability pattern groups an id or class value matches, as bits (unlikely 1,
/// maybe-candidate 2, positive 4, negative 8).
#[pyfunction]
fn readability_pattern_bits(value: &str) -> u8 {
    candidates::pattern_bits(value)
}

/// A stop list, lower-cased words, built once per language.
#[pyclass(frozen, module = "thresher._core")]
struct StopWords {
    words: HashSet<String>,
}

#[pymethods]
impl StopWords {
    #[new]
    fn new(words: Vec<String>) -> Self {
        StopWords {
            words: words.into_iter().collect(),
        }
    }

    fn __len__(&self) -> usize {
        self.words.len()
    }
}

#[pymethods]
impl Page {
    /// The shallow text columns (``SHALLOW_COLUMNS``), float32, one row per block.
    fn shallow_text<'py>(
        &self,
        py: Python<'py>,
        stop_words: &StopWords,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let width = shallow::COLUMNS.len();
        let values = py.detach(|| shallow::shallow_text(&self.doc, &stop_words.words));
        let array = PyArray1::from_vec(py, values).reshape([self.doc.blocks.len(), width])?;
        Ok(array)
    }

    /// This page without the blocks where ``keep`` (one bool per block) is false.
    fn keep_blocks(&self, keep: PyReadonlyArray1<'_, bool>) -> PyResult<Page> {
        let keep = keep.as_slice()?;
        if keep.len() != self.doc.blocks.len() {
            return Err(PyValueError::new_err("keep needs one value per block"));
        }
        Ok(Page::new(
            Arc::clone(&self.dom),
            self.doc.keep_blocks(keep),
            self.attributes,
        ))
    }

    /// Per element: it or an ancestor names a comment section (a bool array).
    fn comment_elements<'py>(
        &self,
        py: Python<'py>,
        words: &CommentWords,
    ) -> Bound<'py, PyArray1<bool>> {
        let inside = py.detach(|| {
            filters::comment_elements(&self.dom, &self.doc, self.attributes, &words.params)
        });
        PyArray1::from_vec(py, inside)
    }

    /// The facts of every element, as a dict of columns (see ``thresher.features.TreeFacts``).
    fn tree_facts<'py>(
        &self,
        py: Python<'py>,
        params: &TreeFactsParams,
    ) -> PyResult<Bound<'py, PyDict>> {
        let facts = py.detach(|| self.facts(params));
        let n = self.doc.len();
        let out = PyDict::new(py);
        for (name, column) in [
            ("context_bits", &facts.context_bits),
            ("neg_distance", &facts.neg_distance),
            ("pos_distance", &facts.pos_distance),
            ("same_sibling_count", &facts.same_sibling_count),
            ("parents", &facts.parents),
            ("id_slot", &facts.id_slot),
            ("class_slot", &facts.class_slot),
        ] {
            out.set_item(name, PyArray1::from_slice(py, column))?;
        }
        out.set_item(
            "subtree_chars",
            PyArray1::from_slice(py, &facts.subtree_chars),
        )?;
        out.set_item(
            "subtree_link_chars",
            PyArray1::from_slice(py, &facts.subtree_link_chars),
        )?;
        out.set_item("hidden", PyArray1::from_slice(py, &facts.hidden))?;
        out.set_item(
            "paths",
            PyArray1::from_slice(py, &facts.paths).reshape([n, 2])?,
        )?;
        let roles = PyDict::new(py);
        for (element, role) in &facts.roles {
            roles.set_item(element, role)?;
        }
        out.set_item("roles", roles)?;
        // One Python object per distinct value, the key of `tokens_of` and shared by the
        // elements that hold it.
        let objects: Vec<Bound<'py, PyAny>> = facts
            .values
            .iter()
            .map(|v| match v {
                Some(text) => PyString::new(py, text).into_any(),
                None => py.None().into_bound(py),
            })
            .collect();
        let tokens_of = PyDict::new(py);
        for (value, tokens) in objects.iter().zip(&facts.tokens) {
            tokens_of.set_item(value, tokens)?;
        }
        out.set_item("tokens_of", tokens_of)?;
        let per_element =
            |slots: &[i64]| PyList::new(py, slots.iter().map(|&s| objects[s as usize].clone()));
        out.set_item("ids", per_element(&facts.id_slot)?)?;
        out.set_item("classes", per_element(&facts.class_slot)?)?;
        Ok(out)
    }

    /// Per block and per text of ``texts``: the share of the block's distinct lower-cased
    /// words (runs of ``\w``) that the text's words hold; float64, one row per block.
    fn word_overlaps<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<String>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let width = texts.len();
        let values = py.detach(|| {
            let sets: Vec<_> = texts.iter().map(|t| overlap::word_set(t)).collect();
            overlap::overlaps(&self.doc, &sets)
        });
        PyArray1::from_vec(py, values).reshape([self.doc.blocks.len(), width])
    }

    /// Per element, the nearest ancestor-or-self whose tag is in ``tags`` (-1: none).
    fn nearest<'py>(&self, py: Python<'py>, tags: Vec<String>) -> Bound<'py, PyArray1<i64>> {
        let out = py.detach(|| self.doc.nearest(&self.dom, &tags));
        PyArray1::from_vec(py, out)
    }

    /// The blocks' counts as read-only arrays, in ``thresher.blocks.BlockNumbers``' order:
    /// chars, words, link_chars, link_words, tags, is_heading (float64) and element (int64).
    fn block_numbers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let blocks = &self.doc.blocks;
        let counts: [fn(&thresher_core::Block) -> f64; 6] = [
            |b| f64::from(b.chars),
            |b| f64::from(b.words),
            |b| f64::from(b.link_chars),
            |b| f64::from(b.link_words),
            |b| f64::from(b.tags),
            |b| f64::from(u8::from(b.is_heading)),
        ];
        let mut columns = Vec::with_capacity(counts.len() + 1);
        for count in counts {
            let array = PyArray1::from_iter(py, blocks.iter().map(count));
            array.readwrite().make_nonwriteable();
            columns.push(array.into_any());
        }
        let element = PyArray1::from_iter(py, blocks.iter().map(|b| i64::from(b.element)));
        element.readwrite().make_nonwriteable();
        columns.push(element.into_any());
        PyTuple::new(py, columns)
    }

    // ---- Readability's candidates, id/class tokens, stage 2's context (features/candidates.rs,
    // features/tokens.rs, features/stage2.rs)

    /// Readability's candidate columns (``CANDIDATE_COLUMNS``), float32, one row per block.
    fn candidate_columns<'py>(
        &self,
        py: Python<'py>,
        params: &TreeFactsParams,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let values =
            py.detach(|| candidates::candidate_columns(&self.dom, &self.doc, &self.facts(params)));
        PyArray1::from_vec(py, values).reshape([self.doc.blocks.len(), candidates::NAMES.len()])
    }

    /// One 0/1 float32 column per token of ``vocabulary``: does the block's element or one of
    /// its two first ancestors hold the token in its id or class.
    fn token_columns<'py>(
        &self,
        py: Python<'py>,
        vocabulary: &Vocabulary,
        params: &TreeFactsParams,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let values = py.detach(|| {
            tokens::token_columns(&self.doc, &self.facts(params), &vocabulary.vocabulary)
        });
        PyArray1::from_vec(py, values).reshape([self.doc.blocks.len(), vocabulary.vocabulary.len()])
    }

    /// ``token_columns`` stored sparsely: ``(indices, offsets)`` (int64), block i holding the
    /// columns ``indices[offsets[i]:offsets[i + 1]]``, ascending.
    fn token_bags<'py>(
        &self,
        py: Python<'py>,
        vocabulary: &Vocabulary,
        params: &TreeFactsParams,
    ) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>) {
        let (indices, offsets) = py
            .detach(|| tokens::token_bags(&self.doc, &self.facts(params), &vocabulary.vocabulary));
        (
            PyArray1::from_vec(py, indices),
            PyArray1::from_vec(py, offsets),
        )
    }

    /// Per block, the distinct id/class tokens of its element and its two first ancestors.
    fn block_tokens(&self, py: Python<'_>, params: &TreeFactsParams) -> Vec<Vec<String>> {
        py.detach(|| {
            let facts = self.facts(params);
            tokens::block_tokens(&self.doc, &facts)
                .into_iter()
                .map(|held| held.into_iter().map(str::to_owned).collect())
                .collect()
        })
    }

    /// Stage 2's context columns (``CONTEXT_COLUMNS``), float32, one row per block, of the
    /// stage-1 scores ``p`` (one per block).
    fn context_features<'py>(
        &self,
        py: Python<'py>,
        p: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let p: Vec<f64> = p.as_array().iter().copied().collect();
        let values = py
            .detach(|| stage2::context_features(&self.doc, &p))
            .ok_or_else(|| PyValueError::new_err("p needs one score per block"))?;
        PyArray1::from_vec(py, values).reshape([p.len(), stage2::NAMES.len()])
    }

    // ---- end of candidates, tokens, stage 2

    /// The flagship's base feature matrix (float32, one row per block, C-contiguous) and its
    /// column names: shallow text, tree context, CETR, page level, page structure, template
    /// paths and the neighbours' columns (``thresher-core``'s ``features::base``). The tree
    /// facts are those of ``params`` (computed once per page). ``title``, ``structured_text``
    /// (the JSON-LD bodies and descriptions, the meta descriptions) and ``page_types`` (the
    /// lower-cased JSON-LD and OpenGraph types) are read from the head by the caller.
    #[pyo3(signature = (stop_words, params, *, title, structured_text, page_types))]
    fn base_columns<'py>(
        &self,
        py: Python<'py>,
        stop_words: &StopWords,
        params: &TreeFactsParams,
        title: &str,
        structured_text: &str,
        page_types: HashSet<String>,
    ) -> PyResult<(Vec<String>, Bound<'py, PyArray2<f32>>)> {
        let (names, values) = py.detach(|| {
            let facts = self.facts(params);
            let head = Head {
                title,
                structured_text,
                types: &page_types,
            };
            let cols = base_columns(
                &self.dom,
                &self.doc,
                &facts,
                &params.params,
                &stop_words.words,
                &head,
            );
            let values = cols.row_major(self.doc.blocks.len());
            (cols.names, values)
        });
        let array = PyArray1::from_vec(py, values).reshape([self.doc.blocks.len(), names.len()])?;
        Ok((names, array))
    }

    /// How many blocks the page has.
    fn __len__(&self) -> usize {
        self.doc.blocks.len()
    }
}

/// Parse `html` and walk it into a document.
///
/// Returns a dict of columns: ``tags``, ``parents``, ``depths``, ``first_blocks``,
/// ``end_blocks`` (int64 arrays), ``attrs`` (a dict per element, or ``empty`` for
/// elements without attributes, and for all but ``<html>`` and skipped elements
/// unless ``attributes``), ``blocks`` (one tuple per block, in the field order of
/// ``thresher.blocks.Block``), ``title``, ``meta``, ``json_ld`` and ``skipped``.
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
        Ok(bytes) => std::str::from_utf8(bytes.as_bytes())
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
    let (dom, doc) = py
        .detach(|| {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                let dom = parse(source, limits);
                let doc = build(&dom);
                (dom, doc)
            }))
        })
        .map_err(|_| PyRuntimeError::new_err("the native parser failed on this page"))?;
    let mut strings = Strings::new(py);
    let out = PyDict::new(py);
    let tags = PyList::empty(py);
    for &node in &doc.nodes {
        tags.append(strings.get(dom.tag(node)))?;
    }
    out.set_item("tags", tags)?;
    for (name, column) in [
        ("parents", &doc.parents),
        ("depths", &doc.depths),
        ("first_blocks", &doc.first_blocks),
        ("end_blocks", &doc.end_blocks),
    ] {
        let array = PyArray1::from_slice(py, column);
        array.readwrite().make_nonwriteable();
        out.set_item(name, array)?;
    }
    out.set_item(
        "attrs",
        attribute_dicts(py, &dom, &doc, attributes, empty, &mut strings)?,
    )?;
    out.set_item("blocks", blocks(py, &dom, &doc, &mut strings)?)?;
    out.set_item("title", doc.head.title.as_str())?;
    out.set_item("meta", doc.head.meta.clone())?;
    out.set_item("json_ld", doc.head.json_ld.clone())?;
    out.set_item("skipped", doc.skipped.clone())?;
    out.set_item("page", Page::new(Arc::new(dom), doc, attributes))?;
    Ok(out)
}

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
struct Trees {
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
        py.detach(|| match &self.layout {
            Layout::Complete(complete) => {
                complete.margins(x, &mut out);
                Ok(())
            }
            Layout::Nodes(nodes) => nodes.ensemble(self.base).margins(x, width, &mut out),
        })
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

    /// Whether the complete-tree layout is used (the ensemble is shallow enough).
    #[getter]
    fn complete(&self) -> bool {
        matches!(self.layout, Layout::Complete(_))
    }
}

/// The block-sequence network, built once per model from its float32 weights.
#[pyclass(frozen, module = "thresher._core")]
struct SequenceNet {
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
        let out = py
            .detach(|| self.net.margins(values, indices, offsets))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyArray1::from_vec(py, out))
    }
}

/// Kohlschütter's text density of one text (the ``text_density`` feature column).
#[pyfunction]
fn text_density(text: &str) -> f64 {
    shallow::text_density(text)
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
    let out = py.detach(|| cetr::smooth(&values, &kernel, edges));
    Ok(PyArray1::from_vec(py, out))
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
    let (before, after) = py.detach(|| {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        structure::text_copies(&texts, &parents)
    });
    Ok((
        PyArray1::from_vec(py, before),
        PyArray1::from_vec(py, after),
    ))
}

#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(build_document, module)?)?;
    module.add_class::<Trees>()?;
    module.add_class::<Page>()?;
    module.add_function(wrap_pyfunction!(text_density, module)?)?;
    module.add_class::<StopWords>()?;
    module.add_class::<TreeFactsParams>()?;
    module.add_class::<CommentWords>()?;
    module.add("SHALLOW_COLUMNS", shallow::COLUMNS.to_vec())?;
    module.add("BLOCK_TAG_ONE_HOT", context::BLOCK_TAG_ONE_HOT.to_vec())?;
    module.add("NEIGHBOUR_COLUMNS", neighbours::NEIGHBOUR_COLUMNS.to_vec())?;
    module.add_function(wrap_pyfunction!(gaussian_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(gaussian_smooth, module)?)?;
    module.add_function(wrap_pyfunction!(text_copies, module)?)?;
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
