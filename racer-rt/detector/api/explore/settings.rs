//! A model's settings: `Builder` and `Strategy`, std only, so that the feature-off build shares
//! them (there `check` runs the closure once).

use std::time::Duration;

/// Iterations of a model by default, at most.
pub const DEFAULT_ITERATIONS: usize = 1000;
/// A model's time budget by default: no iteration starts after it.
pub const DEFAULT_TIME: Duration = Duration::from_secs(1);
/// Steps (points passed) of one iteration, at most: past it the model is deemed not to end.
pub const DEFAULT_MAX_STEPS: u64 = 200_000;

/// How each iteration picks the next thread at a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Strategy {
    /// First a complete search under a preemption bound, within half the budget; a model it
    /// does not finish then gets random and PCT of depths 2 and 3, in turn by seed (the
    /// default).
    Portfolio,
    /// Probabilistic Concurrency Testing of [`Builder::depth`].
    Pct,
    /// A uniformly random runnable thread at every point.
    Random,
}

/// A model's settings, as loom's `model::Builder`: `racer::model::Builder::new().iterations(500).check(|| ..)`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Builder {
    /// Iterations at most (`RACER_ITERATIONS` overrides).
    pub iterations: usize,
    /// Time budget: no new iteration starts after it (`RACER_TIME`, in seconds, overrides).
    pub time: Option<Duration>,
    /// The strategy of every iteration.
    pub strategy: Strategy,
    /// PCT's depth when `strategy` is `Pct`: the number of ordering constraints a bug needs.
    pub depth: u32,
    /// The first iteration's seed; iteration `i` runs seed `seed + i` (`RACER_SEEDS` overrides).
    pub seed: u64,
    /// Steps of one iteration at most.
    pub max_steps: u64,
    /// One iteration to run again, as a report printed it (`RACER_REPLAY` overrides).
    pub replay: Option<String>,
    /// The preemption bound of the complete search that `Portfolio` runs first (see
    /// `schedule::dfs`); `None`: `LOOM_MAX_PREEMPTIONS` if set, else 2, as loom's.
    pub preemption_bound: Option<u32>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// The defaults: up to 1000 iterations within 1 s, PCT and random in turn, seeds from 0.
    pub fn new() -> Builder {
        Builder {
            iterations: DEFAULT_ITERATIONS,
            time: Some(DEFAULT_TIME),
            strategy: Strategy::Portfolio,
            depth: 3,
            seed: 0,
            max_steps: DEFAULT_MAX_STEPS,
            replay: None,
            preemption_bound: None,
        }
    }

    pub fn iterations(&mut self, n: usize) -> &mut Builder {
        self.iterations = n;
        self
    }

    /// The time budget; `None`: the iterations alone bound the model.
    pub fn time(&mut self, budget: Option<Duration>) -> &mut Builder {
        self.time = budget;
        self
    }

    pub fn strategy(&mut self, strategy: Strategy) -> &mut Builder {
        self.strategy = strategy;
        self
    }

    pub fn depth(&mut self, depth: u32) -> &mut Builder {
        self.depth = depth.max(1);
        self
    }

    pub fn seed(&mut self, seed: u64) -> &mut Builder {
        self.seed = seed;
        self
    }

    pub fn max_steps(&mut self, steps: u64) -> &mut Builder {
        self.max_steps = steps.max(1);
        self
    }

    /// The complete search's preemption bound: at most `bound` switches per iteration away
    /// from a thread that could go on (as loom's `preemption_bound`).
    pub fn preemption_bound(&mut self, bound: u32) -> &mut Builder {
        self.preemption_bound = Some(bound);
        self
    }

    /// Runs only the iteration a report named (its `RACER_REPLAY` token).
    pub fn replay(&mut self, token: &str) -> &mut Builder {
        self.replay = Some(token.to_owned());
        self
    }
}
