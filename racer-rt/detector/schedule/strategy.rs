//! How the scheduler picks the next thread: PCT, uniform random, or one iteration of the
//! bounded depth-first search (`super::dfs`).
//!
//! **PCT** (Burckhardt et al., "A Randomized Scheduler with Probabilistic Guarantees of Finding
//! Bugs", ASPLOS 2010): every thread gets a random priority above `depth`; the highest-priority
//! thread that can run runs; at `depth - 1` change points drawn from the `k` steps an execution
//! is expected to take, the running thread's priority drops to `depth - i`. A bug of depth `d`
//! is found in one execution with probability at least `1/(n k^(d-1))`.
//! **Random** picks uniformly among the threads that can run at every step.
//!
//! A thread that spins (yields, hints a spin loop, or reloads an atomic that has not changed)
//! is passed over when another can run, and under PCT drops below every other priority, so a
//! spin loop cannot starve the thread it waits for.

use std::fmt;

use super::dfs::{Path, Walk};
use super::rng::Rng;

/// A strategy with its parameters: with the seed, all an iteration's choices depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Strategy {
    Random,
    /// PCT of the given depth (at least 1), with change points drawn from `1..=steps`.
    Pct {
        depth: u32,
        steps: u64,
    },
    /// One iteration of the depth-first search: the path it follows (the seed is not used).
    Dfs(Path),
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Random => write!(f, "random"),
            Strategy::Pct { depth, steps } => write!(f, "pct{depth}/{steps}"),
            Strategy::Dfs(path) => write!(f, "{path}"),
        }
    }
}

impl Strategy {
    /// Parses what `Display` wrote (`random`, `pct3/120`, `dfs@12=1,30=2`).
    pub fn parse(s: &str) -> Option<Strategy> {
        if s == "random" {
            return Some(Strategy::Random);
        }
        if s.starts_with("dfs@") {
            return Path::parse(s).map(Strategy::Dfs);
        }
        let (depth, steps) = s.strip_prefix("pct")?.split_once('/')?;
        let depth: u32 = depth.parse().ok().filter(|d| *d >= 1)?;
        Some(Strategy::Pct { depth, steps: steps.parse().ok().filter(|k| *k >= 1)? })
    }
}

/// The chooser of one iteration. Invariant: its choices are a function of the strategy, the
/// seed and the sequence of calls made to it.
pub struct Chooser {
    strategy: Strategy,
    rng: Rng,
    /// Per thread (by id): PCT's priority; higher runs first.
    priority: Vec<i64>,
    /// PCT's change points, ascending, with the priority each gives.
    change_points: Vec<(u64, i64)>,
    /// The lowest priority given so far (a spinning thread goes below it).
    lowest: i64,
    /// The depth-first search's walk, under `Strategy::Dfs`.
    walk: Option<Walk>,
    /// The thread that passed an `Op` point last and may go on (leaving it is a preemption).
    running: Option<usize>,
}

impl Chooser {
    pub fn new(strategy: Strategy, seed: u64) -> Chooser {
        let mut rng = Rng::new(seed);
        let mut change_points = Vec::new();
        if let Strategy::Pct { depth, steps } = strategy {
            for i in 1..depth {
                change_points.push((1 + rng.below(steps), i64::from(depth - i)));
            }
            change_points.sort_unstable();
        }
        let walk = match &strategy {
            Strategy::Dfs(path) => Some(Walk::new(path.clone())),
            _ => None,
        };
        Chooser { strategy, rng, priority: Vec::new(), change_points, lowest: 0, walk, running: None }
    }

    /// `current` passes a point; `op`: an operation after which it could go on (not a spin, a
    /// block or its end), so that running another thread next is a preemption.
    pub fn passing(&mut self, current: usize, op: bool) {
        self.running = op.then_some(current);
    }

    /// Under the search, which of `n` stores a load reads; `None` under the other strategies.
    pub fn choose_value(&mut self, n: u64) -> Option<u64> {
        self.walk.as_mut().map(|w| w.choose_value(n))
    }

    /// The search's walk of this iteration, taken out (`None` under the other strategies).
    pub fn take_walk(&mut self) -> Option<Walk> {
        self.walk.take()
    }

    /// A new thread: a random priority above every change point's.
    pub fn add_thread(&mut self) {
        let depth = match self.strategy {
            Strategy::Pct { depth, .. } => i64::from(depth),
            Strategy::Random | Strategy::Dfs(_) => 0,
        };
        let p = depth + 1 + (self.rng.next_u64() >> 34) as i64;
        self.priority.push(p);
    }

    /// Step `step` of `current` was taken: PCT lowers it at a change point, or below all
    /// others when it spun.
    pub fn stepped(&mut self, current: usize, step: u64, spun: bool) {
        if spun {
            self.lowest -= 1;
            self.priority[current] = self.lowest;
        }
        while let Some(&(at, p)) = self.change_points.first() {
            if at > step {
                break;
            }
            self.change_points.remove(0);
            if !spun {
                self.priority[current] = p;
            }
        }
    }

    /// The thread to run next among `candidates` (not empty, ascending ids).
    pub fn choose(&mut self, candidates: &[usize]) -> usize {
        if let Some(walk) = &mut self.walk {
            return walk.choose_thread(candidates, self.running);
        }
        match self.strategy {
            Strategy::Random => candidates[self.rng.below(candidates.len() as u64) as usize],
            Strategy::Pct { .. } | Strategy::Dfs(_) => {
                *candidates.iter().max_by_key(|&&t| (self.priority[t], std::cmp::Reverse(t))).expect("a candidate")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_parses_back() {
        let dfs = Strategy::Dfs(Path { bound: None, choices: vec![(12, 1), (30, 2)] });
        for s in [Strategy::Random, Strategy::Pct { depth: 3, steps: 120 }, dfs] {
            assert_eq!(Strategy::parse(&s.to_string()), Some(s));
        }
        assert_eq!(Strategy::parse("pct0/3"), None);
        assert_eq!(Strategy::parse("fifo"), None);
    }

    #[test]
    fn pct_runs_the_highest_and_a_spinner_last() {
        let mut c = Chooser::new(Strategy::Pct { depth: 1, steps: 10 }, 1);
        c.add_thread();
        c.add_thread();
        let first = c.choose(&[0, 1]);
        assert_eq!(c.choose(&[0, 1]), first, "PCT keeps running the same thread");
        c.stepped(first, 1, true);
        assert_ne!(c.choose(&[0, 1]), first, "a spinning thread drops below the other");
    }
}
