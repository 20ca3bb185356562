//! The time budget of an extraction, and Ctrl-C, for native calls.
//!
//! Python opens a budget with `enter_budget(seconds)` (``thresher.document.budget`` wraps it
//! in a context manager): its deadline lives in a thread-local of this crate, since an
//! extraction runs on one thread and its native calls are made from that thread. Every
//! native call that does a page's work runs through [`detach`] (or [`held`], for work that
//! needs the GIL), which installs the core's [`Budget`]: that deadline, and on the main
//! thread a poll that takes the GIL back for a moment and runs Python's pending signal
//! handlers (`check_signals`; only the main thread runs them). The core's checks unwind
//! past the deadline or when a handler raised; here that becomes
//! ``thresher.ExtractionTimeout`` or the handler's exception (``KeyboardInterrupt``).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};
use thresher_core::budget::{self, Budget, Stop};

/// A deadline and the budget it came from (seconds), for the error's message.
#[derive(Clone, Copy)]
struct Deadline {
    at: Instant,
    seconds: f64,
}

thread_local! {
    /// The deadline of the extraction running on this thread (`None`: no limit).
    static DEADLINE: Cell<Option<Deadline>> = const { Cell::new(None) };
}

/// ``thresher.errors.ExtractionTimeout``, looked up once.
static EXPIRED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
/// ``threading.get_ident`` and the main thread's ident, looked up once.
static GET_IDENT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static MAIN_IDENT: PyOnceLock<u64> = PyOnceLock::new();

fn expired(py: Python<'_>, seconds: f64) -> PyErr {
    let message = format!("no result within the time budget of {seconds} s");
    match EXPIRED.import(py, "thresher.errors", "ExtractionTimeout") {
        Ok(kind) => PyErr::from_type(kind.clone(), message),
        Err(error) => error,
    }
}

/// Whether this is Python's main thread, the one that runs signal handlers.
fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let main = MAIN_IDENT.get_or_try_init(py, || {
        py.import("threading")?
            .call_method0("main_thread")?
            .getattr("ident")?
            .extract::<u64>()
    })?;
    let get_ident = GET_IDENT.import(py, "threading", "get_ident")?;
    Ok(get_ident.call0()?.extract::<u64>()? == *main)
}

/// A scope's previous deadline, put back by `leave_budget`.
#[pyclass(frozen, module = "thresher._core")]
pub(crate) struct BudgetScope {
    previous: Option<Deadline>,
}

/// Start a time budget of ``seconds`` (None: none of its own) on this thread: native calls
/// and ``check_budget`` stop past it. A budget inside another ends by the earlier deadline.
/// Returns the scope to hand to ``leave_budget``.
#[pyfunction]
#[pyo3(signature = (seconds))]
pub(crate) fn enter_budget(seconds: Option<f64>) -> PyResult<BudgetScope> {
    let previous = DEADLINE.get();
    let own = match seconds {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 => Some(Deadline {
            at: Instant::now() + Duration::from_secs_f64(s),
            seconds: s,
        }),
        Some(_) => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "a time budget is a positive, finite number of seconds",
            ))
        }
    };
    let current = match (previous, own) {
        (Some(p), Some(o)) if p.at <= o.at => Some(p),
        (_, Some(o)) => Some(o),
        (p, None) => p,
    };
    DEADLINE.set(current);
    Ok(BudgetScope { previous })
}

/// End the budget `scope` started: the one before it is in force again.
#[pyfunction]
pub(crate) fn leave_budget(scope: &BudgetScope) {
    DEADLINE.set(scope.previous);
}

/// Raise ``thresher.ExtractionTimeout`` when this thread's budget has run out.
#[pyfunction]
pub(crate) fn check_budget(py: Python<'_>) -> PyResult<()> {
    match DEADLINE.get() {
        Some(d) if Instant::now() >= d.at => Err(expired(py, d.seconds)),
        _ => Ok(()),
    }
}

/// The Python error for a stop: the timeout, or the exception a signal handler raised.
fn stop_error(
    py: Python<'_>,
    stop: Stop,
    deadline: Option<Deadline>,
    raised: Option<PyErr>,
) -> PyErr {
    match (stop, deadline) {
        (Stop::Expired, Some(d)) => expired(py, d.seconds),
        _ => raised.unwrap_or_else(|| PyRuntimeError::new_err("the native work was interrupted")),
    }
}

/// The core's budget for a call on this thread, the poll keeping `raised` for the error.
fn budget_of(
    deadline: Option<Deadline>,
    poll: bool,
    raised: &Rc<RefCell<Option<PyErr>>>,
) -> Budget {
    let raised = Rc::clone(raised);
    Budget {
        deadline: deadline.map(|d| d.at),
        poll: poll.then(|| {
            Rc::new(move || {
                Python::attach(|py| match py.check_signals() {
                    Ok(()) => false,
                    Err(error) => {
                        *raised.borrow_mut() = Some(error);
                        true
                    }
                })
            }) as Rc<dyn Fn() -> bool>
        }),
    }
}

/// What a call needs to know before it starts: its deadline (an error if it has passed)
/// and whether it polls for signals.
fn prepare(py: Python<'_>) -> PyResult<(Option<Deadline>, bool)> {
    let deadline = DEADLINE.get();
    if let Some(d) = deadline.filter(|d| Instant::now() >= d.at) {
        return Err(expired(py, d.seconds));
    }
    Ok((deadline, on_main_thread(py)?))
}

/// `work` with the GIL released, under this thread's budget; stops become Python errors.
pub(crate) fn detach<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let (deadline, poll) = prepare(py)?;
    let (outcome, raised) = py.detach(move || {
        let raised = Rc::new(RefCell::new(None));
        let outcome = budget::run(budget_of(deadline, poll, &raised), work);
        let raised = raised.borrow_mut().take();
        (outcome, raised)
    });
    outcome.map_err(|stop| stop_error(py, stop, deadline, raised))
}

/// `work` holding the GIL (it makes Python objects), under this thread's budget.
pub(crate) fn held<'py, T>(py: Python<'py>, work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    let (deadline, poll) = prepare(py)?;
    let raised = Rc::new(RefCell::new(None));
    let outcome = budget::run(budget_of(deadline, poll, &raised), work);
    let raised = raised.borrow_mut().take();
    outcome.map_err(|stop| stop_error(py, stop, deadline, raised))?
}
