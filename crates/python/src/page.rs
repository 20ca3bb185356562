//! The native page and the parameter objects its feature methods take.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use thresher_core::document::Document;
use thresher_core::dom::Dom;
use thresher_core::features::base::{base_names, base_rows};
use thresher_core::features::page::Head;
use thresher_core::features::tree::{self, TreeFacts, TreeParams};
use thresher_core::features::{candidates, overlap, shallow, stage2, tokens};
use thresher_core::selection::{self, PageView, SelectionParams};
use thresher_core::{comments, filters};

use crate::budget::detach;
use thresher_core::hash::HashSet;
use thresher_core::learned::{Decoding, PageInput, ScoreParams};

use crate::learned::{LearnedModel, Scores};
use crate::select::Selectors;

/// A sparse token matrix: the token columns, and each block's offset into them.
type Bags<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// A parsed page kept native, for the feature columns the core computes. Immutable.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct Page {
    dom: Arc<Dom>,
    doc: Document,
    /// Whether the Python document holds every element's attributes (see `build_document`).
    attributes: bool,
    /// The tree facts, computed once (with the parameters whose id is kept beside them).
    facts: OnceLock<(u64, Arc<TreeFacts>)>,
}

impl Page {
    /// Per element: it or an ancestor names a comment section. The tree facts, when the
    /// features have computed them, number the id and class values already: each is then
    /// judged once.
    fn named_elements(&self, params: &filters::CommentParams) -> Vec<bool> {
        match self.facts.get() {
            Some((_, facts)) => filters::comment_elements_by_slots(
                &self.dom,
                &self.doc,
                &facts.values,
                &facts.class_slot,
                &facts.id_slot,
                params,
            ),
            None => filters::comment_elements(&self.dom, &self.doc, self.attributes, params),
        }
    }

    pub(crate) fn new(dom: Arc<Dom>, doc: Document, attributes: bool) -> Self {
        Page {
            dom,
            doc,
            attributes,
            facts: OnceLock::new(),
        }
    }

    /// The tree facts under `params` when an earlier call computed and kept them.
    fn kept_facts(&self, params: &TreeFactsParams) -> Option<Arc<TreeFacts>> {
        self.facts
            .get()
            .filter(|(id, _)| *id == params.id)
            .map(|(_, facts)| Arc::clone(facts))
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

/// Ranges of up to this many blocks are made without entering the time budget's watch.
const HELD_BLOCKS: usize = 256;

impl Page {
    /// What the selection reads of this page.
    fn view(&self) -> PageView<'_> {
        PageView {
            dom: &self.dom,
            doc: &self.doc,
            attributes: self.attributes,
        }
    }
}

/// One label per block, or the caller's error.
fn per_block(labels: &[bool], blocks: usize) -> PyResult<()> {
    if labels.len() == blocks {
        Ok(())
    } else {
        Err(PyValueError::new_err("the labels need one value per block"))
    }
}

/// Numbers each `TreeFactsParams` built, so a page knows which its kept facts came from.
static PARAMS_BUILT: AtomicU64 = AtomicU64::new(0);

/// The constants the tree facts are computed with, built once.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct TreeFactsParams {
    pub(crate) params: TreeParams,
    id: u64,
    /// The base matrix's column names under these parameters, built on first use (one tuple
    /// handed to every page).
    base_names: OnceLock<Py<PyTuple>>,
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
            base_names: OnceLock::new(),
        }
    }
}

/// The selection's thresholds (``thresher.render.selection.SelectionParams``, in its field
/// order), built once.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct SelectionRules {
    params: SelectionParams,
}

#[pymethods]
impl SelectionRules {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        navigation_max_words: u64,
        navigation_min_link_density: f64,
        table_max_cell_chars: u32,
        table_max_link_density: f64,
        table_min_kept_share: f64,
        short_list_max_blocks: i64,
        list_max_link_density: f64,
        heading_min_link_density: f64,
    ) -> Self {
        SelectionRules {
            params: SelectionParams {
                navigation_max_words,
                navigation_min_link_density,
                table_max_cell_chars,
                table_max_link_density,
                table_min_kept_share,
                short_list_max_blocks,
                list_max_link_density,
                heading_min_link_density,
            },
        }
    }
}

/// The comment-section detector's word lists, built once (see ``thresher.filters.CommentParams``).
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct CommentWords {
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

/// The structural comment detector's vocabularies and thresholds, built once (see
/// ``thresher.filters.CommentParams``).
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct CommentSignals {
    params: comments::SectionParams,
}

#[pymethods]
impl CommentSignals {
    #[new]
    #[pyo3(signature = (*, author_words, time_words, marker_words, marker_texts, avatar_parts,
                        form_words, entry_tags, min_entries, parent_share, headline_link_words,
                        teaser_link_words, other_words, max_entry_chars, max_link_share))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        author_words: Vec<String>,
        time_words: Vec<String>,
        marker_words: Vec<String>,
        marker_texts: Vec<String>,
        avatar_parts: Vec<String>,
        form_words: Vec<String>,
        entry_tags: Vec<String>,
        min_entries: usize,
        parent_share: f64,
        headline_link_words: u32,
        teaser_link_words: u32,
        other_words: Vec<String>,
        max_entry_chars: u64,
        max_link_share: f64,
    ) -> Self {
        CommentSignals {
            params: comments::SectionParams {
                author_words: author_words.into_iter().collect(),
                time_words: time_words.into_iter().collect(),
                marker_words: marker_words.into_iter().collect(),
                marker_texts: marker_texts.into_iter().collect(),
                avatar_parts,
                form_words: form_words.into_iter().collect(),
                entry_tags: entry_tags.into_iter().collect(),
                min_entries,
                parent_share,
                headline_link_words,
                teaser_link_words,
                other_words: other_words.into_iter().collect(),
                max_entry_chars,
                max_link_share,
            },
        }
    }
}

/// A model's id/class token vocabulary (each token's column), built once per model.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct Vocabulary {
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

/// A stop list, lower-cased words, built once per language.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct StopWords {
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
        let values = detach(py, || shallow::shallow_text(&self.doc, &stop_words.words))?;
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

    /// Per block: it lies inside an element that matches one of ``selectors`` (a bool array).
    fn pruned_blocks<'py>(
        &self,
        py: Python<'py>,
        selectors: &Selectors,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        // As in `build_document`: a panic of the engine is a bug, never the caller's fault.
        let pruned = detach(py, || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                selectors.selectors.pruned_blocks(&self.dom, &self.doc)
            }))
            .map_err(thresher_core::budget::forward_stop)
        })?
        .map_err(|_| PyRuntimeError::new_err("the selector engine failed on this page"))?;
        Ok(PyArray1::from_vec(py, pruned))
    }

    /// Per block, a byte of comment-section bits (``NAMED`` 1, ``SECTION`` 2, ``ENTRY`` 4; see
    /// ``crates/core/src/comments.rs``).
    fn comment_sections<'py>(
        &self,
        py: Python<'py>,
        words: &CommentWords,
        signals: &CommentSignals,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let bits = detach(py, || {
            let named = self.named_elements(&words.params);
            comments::comment_blocks(
                &self.dom,
                &self.doc,
                self.attributes,
                &named,
                &signals.params,
            )
        })?;
        Ok(PyBytes::new(py, &bits))
    }

    /// The kept comment blocks to drop (``keep``, ``comments``: one bool per block): none when
    /// their words are more than ``max_share`` of the kept words (see
    /// ``thresher.filters.CommentParams``).
    fn comment_drop(
        &self,
        keep: Vec<bool>,
        comments: Vec<bool>,
        max_share: f64,
    ) -> PyResult<Vec<bool>> {
        per_block(&keep, self.doc.blocks.len())?;
        per_block(&comments, self.doc.blocks.len())?;
        Ok(filters::comment_drop(
            &self.doc, &keep, &comments, max_share,
        ))
    }

    /// The blocks' texts to identify the page's language from, longest first, up to ``limit``
    /// characters (see ``thresher.document.language.sample_text``).
    fn language_sample(&self, py: Python<'_>, limit: usize) -> PyResult<String> {
        detach(py, || self.doc.language_sample(limit))
    }

    /// Per block: it lies inside an element whose tag is one of ``tags``.
    fn blocks_inside(&self, py: Python<'_>, tags: Vec<String>) -> PyResult<Vec<bool>> {
        detach(py, || {
            let nearest = self.doc.nearest(&self.dom, &tags);
            let inside: Vec<bool> = nearest.iter().map(|&n| n >= 0).collect();
            filters::inside_blocks(&self.doc, &inside, &vec![true; self.doc.blocks.len()])
        })
    }

    /// The blocks of ``labels`` (one bool per block) to write, completed and tidied
    /// (``thresher.render.selection.select``): the block indices in order, the tidied
    /// headings' ``{index: (text, spans)}``, the tables written whole, and whether the last
    /// block is a heading written as a plain paragraph.
    fn select<'py>(
        &self,
        py: Python<'py>,
        labels: Vec<bool>,
        rules: &SelectionRules,
    ) -> PyResult<Bound<'py, PyTuple>> {
        per_block(&labels, self.doc.blocks.len())?;
        let chosen = detach(py, || {
            selection::select(&self.view(), &labels, &rules.params)
        })?;
        let tidied = PyDict::new(py);
        for (index, t) in &chosen.tidied {
            let spans = PyTuple::new(
                py,
                t.spans
                    .iter()
                    .map(|(text, element)| (text.as_str(), *element)),
            )?;
            tidied.set_item(index, (t.text.as_str(), spans))?;
        }
        (
            PyList::new(py, &chosen.blocks)?,
            tidied,
            PyList::new(py, &chosen.tables)?,
            chosen.last_heading_plain,
        )
            .into_pyobject(py)
    }

    /// The text output of ``labels`` (one bool per block) in one call: the selection
    /// (``select``) written as ``thresher.render.text`` writes it, before NFC normalisation.
    /// ``texts``: block texts the caller made (a formula's TeX in its place), by block index.
    fn plain_text(
        &self,
        py: Python<'_>,
        labels: Vec<bool>,
        rules: &SelectionRules,
        texts: thresher_core::hash::HashMap<u32, String>,
    ) -> PyResult<String> {
        per_block(&labels, self.doc.blocks.len())?;
        detach(py, || {
            let view = self.view();
            let chosen = selection::select(&view, &labels, &rules.params);
            selection::plain_text(&view, &chosen, &texts)
        })
    }

    /// The facts of every element, as a dict of columns (see ``thresher.features.TreeFacts``).
    fn tree_facts<'py>(
        &self,
        py: Python<'py>,
        params: &TreeFactsParams,
    ) -> PyResult<Bound<'py, PyDict>> {
        let facts = detach(py, || self.facts(params))?;
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
        let values = detach(py, || {
            let sets: Vec<_> = texts.iter().map(|t| overlap::word_set(t)).collect();
            overlap::overlaps(&self.doc, &sets)
        })?;
        PyArray1::from_vec(py, values).reshape([self.doc.blocks.len(), width])
    }

    /// The text of element ``element``'s subtree as the page holds it, walked or not: the
    /// TeX of a skipped ``<annotation>`` or ``<script type="math/tex">``, say ("" when out of range).
    fn element_text(&self, py: Python<'_>, element: usize) -> String {
        match self.doc.nodes.get(element) {
            Some(&node) => py.detach(|| self.dom.text_content(node)),
            None => String::new(),
        }
    }

    /// Per element, the nearest ancestor-or-self whose tag is in ``tags`` (-1: none), a list.
    fn nearest(&self, py: Python<'_>, tags: Vec<String>) -> PyResult<Vec<i64>> {
        detach(py, || self.doc.nearest(&self.dom, &tags))
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
        let values = detach(py, || {
            candidates::candidate_columns(&self.dom, &self.doc, &self.facts(params))
        })?;
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
        // numpy's zeros come from calloc: on a large page, pages of the matrix that hold no
        // token are never written, so they take no memory.
        let shape = [self.doc.blocks.len(), vocabulary.vocabulary.len()];
        let array = PyArray2::<f32>::zeros(py, shape, false);
        {
            let mut view = array.readwrite();
            let out = view.as_slice_mut()?;
            detach(py, || {
                tokens::set_token_columns(
                    &self.doc,
                    &self.facts(params),
                    &vocabulary.vocabulary,
                    out,
                )
            })?;
        }
        Ok(array)
    }

    /// ``token_columns`` stored sparsely: ``(indices, offsets)`` (int64), block i holding the
    /// columns ``indices[offsets[i]:offsets[i + 1]]``, ascending.
    fn token_bags<'py>(
        &self,
        py: Python<'py>,
        vocabulary: &Vocabulary,
        params: &TreeFactsParams,
    ) -> PyResult<Bags<'py>> {
        let (indices, offsets) = detach(py, || {
            tokens::token_bags(&self.doc, &self.facts(params), &vocabulary.vocabulary)
        })?;
        Ok((
            PyArray1::from_vec(py, indices),
            PyArray1::from_vec(py, offsets),
        ))
    }

    /// Per block, the distinct id/class tokens of its element and its two first ancestors.
    fn block_tokens(&self, py: Python<'_>, params: &TreeFactsParams) -> PyResult<Vec<Vec<String>>> {
        detach(py, || {
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
        let values = detach(py, || stage2::context_features(&self.doc, &p))?
            .ok_or_else(|| PyValueError::new_err("p needs one score per block"))?;
        PyArray1::from_vec(py, values).reshape([p.len(), stage2::NAMES.len()])
    }

    // ---- end of candidates, tokens, stage 2

    /// The flagship's base feature matrix (float32, one row per block, C-contiguous) and its
    /// column names (a tuple, the same on every page): shallow text, tree context, CETR, page level, page structure, template
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
    ) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyArray2<f32>>)> {
        let names = match params.base_names.get() {
            Some(names) => names.bind(py).clone(),
            None => {
                let names = PyTuple::new(py, base_names(&params.params))?;
                params.base_names.get_or_init(|| names.clone().unbind());
                names
            }
        };
        let width = names.len();
        let values = detach(py, || {
            let facts = self.facts(params);
            let head = Head {
                title,
                structured_text,
                types: &page_types,
            };
            base_rows(
                &self.dom,
                &self.doc,
                &facts,
                &params.params,
                &stop_words.words,
                &head,
                width,
            )
        })?;
        let array = PyArray1::from_vec(py, values).reshape([self.doc.blocks.len(), width])?;
        Ok((names, array))
    }

    /// The page scored by a learned ``model`` in one call, the GIL released throughout:
    /// features, stage 1, the context of its scores, stage 2 on the uncertain blocks, the
    /// network, the main-run guard, the blend and the decoding (``decoding``: "expected_f1"
    /// or "threshold"; see ``thresher.algorithms.flagship.Params`` for the others). The head's
    /// facts are read by the caller, as for ``base_columns``.
    #[pyo3(signature = (model, stop_words, *, title, structured_text, page_types, smoothing,
                        confident, certain, decoding, threshold, never_empty, fallback_ratio,
                        allow_empty, beta))]
    #[allow(clippy::too_many_arguments)]
    fn score(
        &self,
        py: Python<'_>,
        model: &LearnedModel,
        stop_words: &StopWords,
        title: &str,
        structured_text: &str,
        page_types: HashSet<String>,
        smoothing: bool,
        confident: f64,
        certain: f64,
        decoding: &str,
        threshold: f64,
        never_empty: bool,
        fallback_ratio: f64,
        allow_empty: bool,
        beta: f64,
    ) -> PyResult<Scores> {
        let decoding = Decoding::named(decoding)
            .ok_or_else(|| PyValueError::new_err(format!("unknown decoding {decoding:?}")))?;
        let params = ScoreParams {
            smoothing,
            confident,
            certain,
            decoding,
            threshold,
            never_empty,
            fallback_ratio,
            allow_empty,
            beta,
        };
        let tree_params = model.params.get();
        let scores = detach(py, || {
            // The facts are dropped as soon as the features are made (unless another call
            // already keeps them): on a page of a million elements they are a hundred MB that
            // the rest of the scoring never reads.
            let facts = self.kept_facts(tree_params).unwrap_or_else(|| {
                Arc::new(tree::tree_facts(
                    &self.dom,
                    &self.doc,
                    self.attributes,
                    &tree_params.params,
                ))
            });
            let head = Head {
                title,
                structured_text,
                types: &page_types,
            };
            let input = PageInput {
                dom: &self.dom,
                doc: &self.doc,
                facts: &facts,
                params: &tree_params.params,
                stop_words: &stop_words.words,
                head: &head,
            };
            let features = model.model.features(&input, &params);
            drop(facts);
            model.model.score_features(&self.doc, features, &params)
        })?;
        Ok(Scores::new(scores))
    }

    /// One numeric column of the elements, in pre-order: ``"parents"`` (-1 for a root),
    /// ``"depths"``, ``"first_blocks"`` or ``"end_blocks"`` (each element's range of blocks).
    fn element_column<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyTuple>> {
        let column = match name {
            "parents" => &self.doc.parents,
            "depths" => &self.doc.depths,
            "first_blocks" => &self.doc.first_blocks,
            "end_blocks" => &self.doc.end_blocks,
            _ => return Err(PyValueError::new_err(format!("no element column {name:?}"))),
        };
        PyTuple::new(py, column)
    }

    /// CETR's decision per block with the paper's settings (a bool array): true outside the
    /// k-means cluster at the origin (Dragnet's ``cetr_cluster`` column).
    fn cetr_content<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let content = detach(py, || {
            thresher_core::features::cetr::block_content(&self.doc)
        })?;
        Ok(PyArray1::from_vec(py, content))
    }

    /// Blocks ``start`` to ``end`` (clamped to the page) as ``block_type`` rows (see
    /// ``thresher.document.blocks.Block``): the Python document makes its blocks here, when a
    /// caller first reads them.
    fn blocks<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        end: usize,
        block_type: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let end = end.min(self.doc.blocks.len());
        let start = start.min(end);
        // Making a few blocks takes no time: only a long range is made under the time budget.
        if end - start <= HELD_BLOCKS {
            return crate::blocks(py, &self.dom, &self.doc, start..end, block_type);
        }
        crate::budget::held(py, || {
            crate::blocks(py, &self.dom, &self.doc, start..end, block_type)
        })
    }

    /// How many blocks the page has.
    fn __len__(&self) -> usize {
        self.doc.blocks.len()
    }
}
