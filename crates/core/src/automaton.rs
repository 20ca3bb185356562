//! A byte automaton that counts the features it passes: the walk of langid.py's tokenizer
//! (py3langid's `visit_counts`), which finds the byte n-grams its language model reads.
//!
//! A state's row holds 256 next states, one per byte; a state may output one feature. Walking
//! a text's bytes from state 0, every state reached that outputs a feature counts it once.

use crate::hash::HashMap;

/// The tables of a byte automaton, checked: every next state and every row in range.
/// Immutable; shared by threads.
#[derive(Clone, Debug)]
pub struct ByteAutomaton {
    /// 256 next states per row.
    next: Vec<u32>,
    /// Each state's row, times 256: where its next states begin in `next`.
    row_start: Vec<usize>,
    /// Each state's feature, negative for none.
    output: Vec<i64>,
}

impl ByteAutomaton {
    /// The automaton of `next` (256 next states per row), `row` (each state's row) and `output`
    /// (each state's feature, negative for none); an error saying what does not fit.
    pub fn new(next: Vec<u32>, row: &[u64], output: Vec<i64>) -> Result<Self, String> {
        let states = row.len();
        if states == 0 || output.len() != states {
            return Err(format!(
                "{states} states have {} outputs: the tables must give one per state",
                output.len()
            ));
        }
        if !next.len().is_multiple_of(256) {
            return Err(format!(
                "{} next states do not make rows of 256",
                next.len()
            ));
        }
        let rows = next.len() / 256;
        if let Some(bad) = row.iter().find(|&&r| r >= rows as u64) {
            return Err(format!("a state's row {bad} is past the {rows} rows"));
        }
        if let Some(bad) = next.iter().find(|&&s| s as usize >= states) {
            return Err(format!("a next state {bad} is past the {states} states"));
        }
        let row_start = row.iter().map(|&r| r as usize * 256).collect();
        Ok(ByteAutomaton {
            next,
            row_start,
            output,
        })
    }

    /// The features `bytes` passes, in the order each is first passed, and how many times.
    pub fn visits(&self, bytes: &[u8]) -> (Vec<u64>, Vec<u64>) {
        let mut features = Vec::new();
        let mut counts: Vec<u64> = Vec::new();
        let mut slot: HashMap<i64, usize> = HashMap::default();
        let mut state = 0usize;
        for &byte in bytes {
            // `new` checked every row start (below next.len() - 255) and every next state.
            state = self.next[self.row_start[state] + usize::from(byte)] as usize;
            let feature = self.output[state];
            if feature >= 0 {
                let at = *slot.entry(feature).or_insert_with(|| {
                    features.push(feature as u64);
                    counts.push(0);
                    counts.len() - 1
                });
                counts[at] += 1;
            }
        }
        (features, counts)
    }
}

#[cfg(test)]
mod tests {
    use super::ByteAutomaton;

    /// Two states: 0 on any byte but `a` stays, on `a` goes to 1, which outputs feature 7 and
    /// goes back to 0 on any byte but `a`.
    fn two_states() -> ByteAutomaton {
        let mut next = vec![0u32; 512];
        next[usize::from(b'a')] = 1;
        next[256 + usize::from(b'a')] = 1;
        ByteAutomaton::new(next, &[0, 1], vec![-1, 7]).unwrap()
    }

    #[test]
    fn counts_each_feature_passed_in_first_seen_order() {
        assert_eq!(two_states().visits(b"xaxaab"), (vec![7], vec![3]));
        assert_eq!(two_states().visits(b"xyz"), (vec![], vec![]));
    }

    #[test]
    fn tables_that_do_not_fit_are_refused() {
        assert!(ByteAutomaton::new(vec![0; 256], &[0, 1], vec![-1, -1]).is_err()); // row 1 missing
        assert!(ByteAutomaton::new(vec![5; 256], &[0], vec![-1]).is_err()); // state 5 missing
        assert!(ByteAutomaton::new(vec![0; 100], &[0], vec![-1]).is_err());
        assert!(ByteAutomaton::new(vec![0; 256], &[0], vec![]).is_err());
    }
}
