//! **Bounded depth-first search** of a model's choices, for models small enough to explore
//! whole: an iteration's schedule is the sequence of its choices, of two kinds in the order they
//! come: which thread runs at a point (`choose_thread`) and which store a load reads
//! (`choose_value`, 0 the newest). Each choice's options are ordered with its default first (the
//! thread that can go on; the newest store), so an iteration is named by its non-default
//! choices alone (`Path`, `dfs@12=1,30=2`: choice 12 took option 1, choice 30 option 2).
//!
//! The search runs iterations one after the other: each follows the choices of a prefix, takes
//! the default past it, and records every choice with its number of options (a `Walk`); the
//! next prefix is the last choice with an option left, moved on by one (`Walk::next`). When no
//! choice has one left, every schedule under the bound was run.
//!
//! A *preemption* is a switch away from a thread that could have gone on (it passed an `Op`
//! point and is a candidate); a blocked step, a spin or a thread's end forces a switch that is
//! not one, and which thread runs next is then free. A load that reads an older store than the
//! newest counts as a preemption too: at most `bound` of both per iteration (loom's
//! `LOOM_MAX_PREEMPTIONS`); past it the running thread and the newest store are the only
//! options. Unbounded, the stale loads multiply the tree past any budget (each load may read any
//! of up to eight stores; loom keeps its tree small by partial-order reduction, which racer does
//! not have), and a bug that needs more than two of them is rare.
//!
//! The search deepens the bound (`api::explore`): all schedules with 0 preemptions, then with
//! at most 1, up to `bound` (iterative context bounding, Musuvathi and Qadeer, PLDI 2007), so a
//! model too large for its share of the budget has had its schedules of fewest preemptions run.

use std::fmt;

/// An iteration's non-default choices, by position, and the preemption bound it ran under
/// (`None` when replayed: any option is allowed, and the options' order is the same, so the
/// positions name the same choices). Invariant: positions ascending, options above 0.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Path {
    pub bound: Option<u32>,
    pub choices: Vec<(usize, u32)>,
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dfs@")?;
        for (i, (at, option)) in self.choices.iter().enumerate() {
            write!(f, "{}{at}={option}", if i == 0 { "" } else { "," })?;
        }
        Ok(())
    }
}

impl Path {
    /// Parses what `Display` wrote (`dfs@`, `dfs@12=1,30=2`), as a path to replay (no bound).
    pub fn parse(s: &str) -> Option<Path> {
        let rest = s.strip_prefix("dfs@")?;
        let mut choices: Vec<(usize, u32)> = Vec::new();
        for part in rest.split(',').filter(|p| !p.is_empty()) {
            let (at, option) = part.split_once('=')?;
            let (at, option): (usize, u32) = (at.trim().parse().ok()?, option.trim().parse().ok()?);
            if option == 0 || choices.last().is_some_and(|&(last, _)| last >= at) {
                return None;
            }
            choices.push((at, option));
        }
        Some(Path { bound: None, choices })
    }
}

/// One choice of an iteration: the option taken among `options` (0 the default).
#[derive(Debug, Clone, Copy)]
struct Branch {
    taken: u32,
    options: u32,
}

/// One iteration's walk down the search tree. Invariant: the `i`-th choice takes the prefix's
/// option `i` (the default past the prefix), so the same prefix of the same model runs the same
/// iteration.
#[derive(Debug)]
pub struct Walk {
    path: Path,
    /// Where in `path.choices` the next non-default choice is.
    next_choice: usize,
    branches: Vec<Branch>,
    preemptions: u32,
    /// A choice of the prefix had fewer options this time than when it was recorded: the model
    /// does not run the same way twice (it reads a clock, a random number, the OS's threads).
    pub diverged: bool,
}

impl Walk {
    pub fn new(path: Path) -> Walk {
        Walk { path, next_choice: 0, branches: Vec::new(), preemptions: 0, diverged: false }
    }

    /// The option the prefix gives the next choice among `options` (at least 1), recorded.
    fn take(&mut self, options: u32) -> u32 {
        let at = self.branches.len();
        let mut taken = 0;
        if let Some(&(pos, option)) = self.path.choices.get(self.next_choice) {
            if pos == at {
                self.next_choice += 1;
                if option < options {
                    taken = option;
                } else {
                    self.diverged = true;
                }
            }
        }
        self.branches.push(Branch { taken, options });
        taken
    }

    /// The thread to run among `candidates` (not empty, ascending); `running`: the thread that
    /// passed an `Op` point and could go on (switching away from it is a preemption).
    pub fn choose_thread(&mut self, candidates: &[usize], running: Option<usize>) -> usize {
        let Some(me) = running.filter(|r| candidates.contains(r)) else {
            return candidates[self.take(candidates.len() as u32) as usize];
        };
        let may_preempt = self.path.bound.is_none_or(|b| self.preemptions < b);
        let options = if may_preempt { candidates.len() as u32 } else { 1 };
        match self.take(options) {
            0 => me,
            k => {
                self.preemptions += 1;
                // The options after the default: the other candidates, ascending.
                *candidates.iter().filter(|&&t| t != me).nth(k as usize - 1).expect("an option")
            }
        }
    }

    /// Which of `n` stores a load reads (0 the newest; an older one counts as a preemption).
    pub fn choose_value(&mut self, n: u64) -> u64 {
        let may_preempt = self.path.bound.is_none_or(|b| self.preemptions < b);
        let options = if may_preempt { n.clamp(1, u64::from(u32::MAX)) as u32 } else { 1 };
        let taken = self.take(options);
        if taken > 0 {
            self.preemptions += 1;
        }
        u64::from(taken)
    }

    /// This iteration's path: its non-default choices.
    pub fn path(&self) -> Path {
        let choices =
            self.branches.iter().enumerate().filter(|(_, b)| b.taken > 0).map(|(i, b)| (i, b.taken)).collect();
        Path { bound: self.path.bound, choices }
    }

    /// The prefix of the next iteration of the search: the last choice with an option left,
    /// moved on by one; `None`: every choice's options were taken, the search is over.
    pub fn next(&self) -> Option<Path> {
        let last = self.branches.iter().rposition(|b| b.taken + 1 < b.options)?;
        let mut choices: Vec<(usize, u32)> =
            self.branches[..last].iter().enumerate().filter(|(_, b)| b.taken > 0).map(|(i, b)| (i, b.taken)).collect();
        choices.push((last, self.branches[last].taken + 1));
        Some(Path { bound: self.path.bound, choices })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a toy model: two threads of `ops` points each, thread 0 first, plus one load with
    /// `values` options at thread 1's first point; every schedule's trace, under `bound`.
    fn explore(ops: usize, values: u64, bound: u32) -> Vec<Vec<usize>> {
        let mut seen = Vec::new();
        let mut path = Some(Path { bound: Some(bound), choices: Vec::new() });
        while let Some(p) = path {
            let mut walk = Walk::new(p);
            let (mut left, mut trace, mut running) = ([ops, ops], Vec::new(), Some(0));
            loop {
                let candidates: Vec<usize> = (0..2).filter(|&t| left[t] > 0).collect();
                if candidates.is_empty() {
                    break;
                }
                let t = walk.choose_thread(&candidates, running);
                if t == 1 && left[1] == ops {
                    trace.push(10 + walk.choose_value(values) as usize);
                }
                trace.push(t);
                left[t] -= 1;
                running = Some(t);
            }
            assert!(!walk.diverged);
            seen.push(trace);
            path = walk.next();
        }
        seen
    }

    #[test]
    fn every_interleaving_once_when_the_bound_allows_them() {
        let seen = explore(2, 1, 8);
        // C(4, 2) = 6 interleavings of two threads of two points.
        assert_eq!(seen.len(), 6, "{seen:?}");
        let mut distinct = seen.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 6);
    }

    #[test]
    fn the_bound_cuts_preemptions_and_stale_loads() {
        assert_eq!(explore(2, 1, 0).len(), 1, "no preemption: thread 0 runs to its end first");
        assert!(explore(3, 1, 1).len() < explore(3, 1, 2).len());
        assert_eq!(explore(2, 2, 8).len(), 12, "each interleaving with both stores");
        assert_eq!(explore(2, 2, 0).len(), 1, "a stale load is a preemption");
        // Bound 1: the 3 interleavings of at most one preemption, each with the newest store,
        // and the one without a preemption with the older store.
        assert_eq!(explore(2, 2, 1).len(), 4);
    }

    #[test]
    fn a_path_replays_the_same_choices_and_parses_back() {
        let mut walk = Walk::new(Path { bound: Some(2), choices: vec![(1, 1)] });
        let a = walk.choose_thread(&[0, 1], Some(0));
        let b = walk.choose_thread(&[0, 1], Some(a));
        assert_eq!((a, b), (0, 1));
        let path = walk.path();
        assert_eq!(path.to_string(), "dfs@1=1");
        let back = Path::parse(&path.to_string()).expect("parses");
        assert_eq!(back.choices, path.choices);
        assert_eq!(Path::parse("dfs@"), Some(Path::default()));
        assert_eq!(Path::parse("dfs@3=0"), None);
        assert_eq!(Path::parse("dfs@3=1,2=1"), None);
        assert_eq!(Path::parse("dfs3=1"), None);
    }
}
