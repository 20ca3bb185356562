//! A time budget for the native work, and a way out of it.
//!
//! The binding starts each native call in [`run`], which installs a [`Budget`] for the
//! calling thread: an optional deadline and an optional poll (the binding's check for
//! pending signals). The long loops of the core (the tokenizer and tree builder feed,
//! the document walk, the feature passes, tree and network inference) call [`check`],
//! which costs a thread-local counter decrement; every [`CHECK_EVERY`] calls it reads the
//! clock, and past the deadline, or when the poll says stop, it unwinds the stack with a
//! [`Stop`] payload (`resume_unwind`: no panic hook, no message). [`run`] catches that
//! unwind and hands back the [`Stop`], so the functions in between keep their signatures
//! and nothing of the abandoned work survives: everything it built is dropped on the way
//! out. Outside [`run`], [`check`] does nothing.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Calls of [`check`] between two readings of the clock. A loop step of the core costs
/// from tens of nanoseconds (a token) to tens of microseconds (a row through the trees),
/// so the clock is read every few milliseconds at most; a reading costs about as much as
/// one cheap step.
pub const CHECK_EVERY: u32 = 256;

/// How often the poll is called, at most.
pub const POLL_EVERY: Duration = Duration::from_millis(50);

/// Why the native work stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The deadline passed.
    Expired,
    /// The poll asked to stop (a signal is pending).
    Interrupted,
}

/// The deadline and the poll of one native call.
#[derive(Default)]
pub struct Budget {
    /// When the work must stop; `None`: no limit.
    pub deadline: Option<Instant>,
    /// Called about every [`POLL_EVERY`]; `true` stops the work ([`Stop::Interrupted`]).
    pub poll: Option<Rc<dyn Fn() -> bool>>,
}

struct Installed {
    deadline: Option<Instant>,
    poll: Option<Rc<dyn Fn() -> bool>>,
    next_poll: Instant,
}

thread_local! {
    static LEFT: Cell<u32> = const { Cell::new(CHECK_EVERY) };
    static CURRENT: RefCell<Option<Installed>> = const { RefCell::new(None) };
}

/// Counts one step of a long loop; every [`CHECK_EVERY`] steps, [`checkpoint`].
#[inline]
pub fn check() {
    let left = LEFT.with(|left| {
        let value = left.get().wrapping_sub(1);
        left.set(value);
        value
    });
    if left == 0 {
        checkpoint();
    }
}

/// Reads the clock now (for the end of a pass, or a step costing as much as many others):
/// unwinds with a [`Stop`] past the deadline or when the due poll says stop.
#[cold]
pub fn checkpoint() {
    LEFT.with(|left| left.set(CHECK_EVERY));
    let due = CURRENT.with(|current| {
        let mut current = current.borrow_mut();
        let installed = current.as_mut()?;
        let now = Instant::now();
        if installed.deadline.is_some_and(|deadline| now >= deadline) {
            return Some(Err(Stop::Expired));
        }
        match &installed.poll {
            Some(poll) if now >= installed.next_poll => {
                installed.next_poll = now + POLL_EVERY;
                Some(Ok(Rc::clone(poll)))
            }
            _ => None,
        }
    });
    // The poll runs with nothing borrowed: it may run code that starts a native call of
    // its own (a Python signal handler).
    let stop = match due {
        None => return,
        Some(Err(stop)) => stop,
        Some(Ok(poll)) if poll() => Stop::Interrupted,
        Some(Ok(_)) => return,
    };
    panic::resume_unwind(Box::new(stop));
}

/// `payload` of a caught panic, unless it is a [`Stop`], which goes on unwinding to [`run`]
/// (for code that catches panics of its own inside a budgeted call).
pub fn forward_stop(payload: Box<dyn Any + Send>) -> Box<dyn Any + Send> {
    if payload.is::<Stop>() {
        panic::resume_unwind(payload);
    }
    payload
}

/// Puts back the budget that was installed before [`run`] installed its own.
struct Restore(Option<Installed>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
        LEFT.with(|left| left.set(CHECK_EVERY));
    }
}

/// Runs `work` under `budget`: its value, or the [`Stop`] that ended it early. A panic
/// of another kind goes on unwinding. The budget in force before is put back after.
pub fn run<T>(budget: Budget, work: impl FnOnce() -> T) -> Result<T, Stop> {
    let installed = Installed {
        deadline: budget.deadline,
        poll: budget.poll,
        next_poll: Instant::now() + POLL_EVERY,
    };
    let restore = Restore(CURRENT.with(|current| current.borrow_mut().replace(installed)));
    LEFT.with(|left| left.set(CHECK_EVERY));
    // Whatever `work` leaves half-built is dropped by the unwind; nothing is shared with it.
    let outcome = panic::catch_unwind(AssertUnwindSafe(work));
    drop(restore);
    match outcome {
        Ok(value) => Ok(value),
        Err(payload) => match payload.downcast::<Stop>() {
            Ok(stop) => Err(*stop),
            Err(other) => panic::resume_unwind(other),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(steps: u64) -> u64 {
        let mut sum = 0u64;
        for i in 0..steps {
            check();
            sum = sum.wrapping_add(std::hint::black_box(i));
        }
        sum
    }

    #[test]
    fn without_a_budget_checks_do_nothing() {
        assert_eq!(spin(10_000), (0..10_000u64).sum::<u64>());
        checkpoint();
    }

    #[test]
    fn a_passed_deadline_stops_the_work_and_the_next_run_works() {
        let budget = Budget {
            deadline: Some(Instant::now()),
            poll: None,
        };
        assert_eq!(run(budget, || spin(u64::MAX)), Err(Stop::Expired));
        assert_eq!(run(Budget::default(), || spin(1_000)), Ok(499_500));
    }

    #[test]
    fn the_deadline_is_kept_to_within_milliseconds() {
        let start = Instant::now();
        let budget = Budget {
            deadline: Some(start + Duration::from_millis(30)),
            poll: None,
        };
        assert_eq!(run(budget, || spin(u64::MAX)), Err(Stop::Expired));
        assert!(start.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn a_poll_that_says_stop_interrupts() {
        let calls = Rc::new(Cell::new(0));
        let seen = Rc::clone(&calls);
        let budget = Budget {
            deadline: None,
            poll: Some(Rc::new(move || {
                seen.set(seen.get() + 1);
                true
            })),
        };
        assert_eq!(run(budget, || spin(u64::MAX)), Err(Stop::Interrupted));
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn an_inner_run_keeps_the_outer_budget_in_force_after_it() {
        let outer = Budget {
            deadline: Some(Instant::now()),
            poll: None,
        };
        let outcome = run(outer, || {
            assert_eq!(run(Budget::default(), || spin(1_000)), Ok(499_500));
            spin(u64::MAX)
        });
        assert_eq!(outcome, Err(Stop::Expired));
    }

    #[test]
    fn other_panics_go_on_unwinding() {
        let caught = panic::catch_unwind(|| run(Budget::default(), || panic!("a bug")));
        assert!(caught.is_err());
    }
}
