//! Event traces: a small language for the tests that hold racer's algorithms against the
//! paper's claims. A trace is one interleaving of logical threads' events (spawn, join, lock,
//! unlock, send, recv, read, write), replayed deterministically against the vector clocks and a
//! per-cell policy, without real threads, so that millions of interleavings can be checked in
//! seconds. [`crate::paper::oracle`] judges the same traces by brute force.
//!
//! Text form, one event per line or `;`-separated, `#` starts a comment:
//!
//! ```text
//! t0 spawn t1      t0 join t1
//! t1 lock m0       t1 unlock m0
//! t1 send c0       t2 recv c0      (FIFO per channel)
//! t1 read x0       t1 write x0
//! ```
//!
//! Thread `t0` runs from the start; every other thread runs from its spawn to its join.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use crate::model::algorithm::{AnyPolicy, Recorded, ALGORITHMS};
use crate::model::clock::{Segment, Slot, VectorClock};
use crate::report::{AccessKind, RaceKind};
use crate::shadow::seen::{self, SeenAccesses};

/// One event of a trace. Threads, locks, channels and cells are small numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    Spawn { parent: usize, child: usize },
    Join { parent: usize, child: usize },
    Acquire { thread: usize, lock: usize },
    Release { thread: usize, lock: usize },
    Send { thread: usize, chan: usize },
    Recv { thread: usize, chan: usize },
    Read { thread: usize, cell: usize },
    Write { thread: usize, cell: usize },
}

impl Event {
    /// The thread whose program order the event belongs to (the parent for spawn and join).
    pub fn thread(&self) -> usize {
        match *self {
            Event::Spawn { parent, .. } | Event::Join { parent, .. } => parent,
            Event::Acquire { thread, .. }
            | Event::Release { thread, .. }
            | Event::Send { thread, .. }
            | Event::Recv { thread, .. }
            | Event::Read { thread, .. }
            | Event::Write { thread, .. } => thread,
        }
    }

    /// `(cell, is_write)` for a read or a write.
    pub fn access(&self) -> Option<(usize, bool)> {
        match *self {
            Event::Read { cell, .. } => Some((cell, false)),
            Event::Write { cell, .. } => Some((cell, true)),
            _ => None,
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Event::Spawn { parent, child } => write!(f, "t{parent} spawn t{child}"),
            Event::Join { parent, child } => write!(f, "t{parent} join t{child}"),
            Event::Acquire { thread, lock } => write!(f, "t{thread} lock m{lock}"),
            Event::Release { thread, lock } => write!(f, "t{thread} unlock m{lock}"),
            Event::Send { thread, chan } => write!(f, "t{thread} send c{chan}"),
            Event::Recv { thread, chan } => write!(f, "t{thread} recv c{chan}"),
            Event::Read { thread, cell } => write!(f, "t{thread} read x{cell}"),
            Event::Write { thread, cell } => write!(f, "t{thread} write x{cell}"),
        }
    }
}

/// Writes a trace in the text form [`parse`] reads, `; `-separated.
pub fn to_text(trace: &[Event]) -> String {
    trace.iter().map(Event::to_string).collect::<Vec<_>>().join("; ")
}

/// A trace that could not be read or could not have happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// Index of the offending event (or of the offending line's event, when parsing).
    pub event: usize,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace event {}: {}", self.event, self.message)
    }
}

impl std::error::Error for TraceError {}

fn number(word: &str, prefix: char, what: &str, event: usize, text: &str) -> Result<usize, TraceError> {
    word.strip_prefix(prefix).and_then(|n| n.parse().ok()).ok_or_else(|| TraceError {
        event,
        message: format!("`{text}`: expected a {what} like `{prefix}0`, found `{word}`"),
    })
}

/// Reads a trace in text form (see the module doc).
pub fn parse(text: &str) -> Result<Vec<Event>, TraceError> {
    let mut trace = Vec::new();
    for item in text.lines().flat_map(|l| l.split('#').next().unwrap_or("").split(';')) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let i = trace.len();
        let words: Vec<&str> = item.split_whitespace().collect();
        let [who, op, what] = words[..] else {
            return Err(TraceError {
                event: i,
                message: format!("`{item}`: expected `<thread> <operation> <operand>`"),
            });
        };
        let thread = number(who, 't', "thread", i, item)?;
        let event = match op {
            "spawn" => Event::Spawn { parent: thread, child: number(what, 't', "thread", i, item)? },
            "join" => Event::Join { parent: thread, child: number(what, 't', "thread", i, item)? },
            "lock" => Event::Acquire { thread, lock: number(what, 'm', "lock", i, item)? },
            "unlock" => Event::Release { thread, lock: number(what, 'm', "lock", i, item)? },
            "send" => Event::Send { thread, chan: number(what, 'c', "channel", i, item)? },
            "recv" => Event::Recv { thread, chan: number(what, 'c', "channel", i, item)? },
            "read" => Event::Read { thread, cell: number(what, 'x', "cell", i, item)? },
            "write" => Event::Write { thread, cell: number(what, 'x', "cell", i, item)? },
            other => {
                return Err(TraceError {
                    event: i,
                    message: format!(
                        "`{item}`: unknown operation `{other}` (expected spawn, join, lock, unlock, send, recv, read or write)"
                    ),
                })
            }
        };
        trace.push(event);
    }
    Ok(trace)
}

/// Tracks which threads run and which locks are held, to reject traces that could not happen.
///
/// Invariant: after `step(i)` returned `Ok`, events `0..=i` form a possible execution: every
/// event's thread was running, locks were released only by their holder, every receive took a
/// message that was sent and not yet received.
#[derive(Debug, Default)]
pub struct Validator {
    /// `Some(true)` running, `Some(false)` joined, `None` never spawned (t0 runs from the start).
    threads: HashMap<usize, bool>,
    holders: HashMap<usize, usize>,
    pending: HashMap<usize, usize>,
}

impl Validator {
    pub fn new() -> Validator {
        let mut v = Validator::default();
        v.threads.insert(0, true);
        v
    }

    fn running(&self, i: usize, e: &Event, thread: usize) -> Result<(), TraceError> {
        match self.threads.get(&thread) {
            Some(true) => Ok(()),
            Some(false) => Err(TraceError { event: i, message: format!("`{e}`: thread t{thread} was already joined") }),
            None => Err(TraceError { event: i, message: format!("`{e}`: thread t{thread} was never spawned") }),
        }
    }

    /// Checks event `i` and records its effect.
    pub fn step(&mut self, i: usize, e: &Event) -> Result<(), TraceError> {
        let fail = |message: String| Err(TraceError { event: i, message: format!("`{e}`: {message}") });
        self.running(i, e, e.thread())?;
        match *e {
            Event::Spawn { child, .. } => {
                if self.threads.contains_key(&child) {
                    return fail(format!("thread t{child} exists already"));
                }
                self.threads.insert(child, true);
            }
            Event::Join { parent, child } => {
                self.running(i, e, child)?;
                if parent == child {
                    return fail("a thread cannot join itself".into());
                }
                if let Some((lock, _)) = self.holders.iter().find(|(_, &h)| h == child) {
                    return fail(format!("thread t{child} still holds m{lock}"));
                }
                self.threads.insert(child, false);
            }
            Event::Acquire { thread, lock } => {
                if let Some(holder) = self.holders.get(&lock) {
                    return fail(format!("m{lock} is held by t{holder}"));
                }
                self.holders.insert(lock, thread);
            }
            Event::Release { thread, lock } => {
                if self.holders.get(&lock) != Some(&thread) {
                    return fail(format!("t{thread} does not hold m{lock}"));
                }
                self.holders.remove(&lock);
            }
            Event::Send { chan, .. } => *self.pending.entry(chan).or_default() += 1,
            Event::Recv { chan, .. } => match self.pending.get_mut(&chan) {
                Some(n) if *n > 0 => *n -= 1,
                _ => return fail(format!("no message is waiting on c{chan}")),
            },
            Event::Read { .. } | Event::Write { .. } => {}
        }
        Ok(())
    }
}

/// Checks that a trace could have happened.
pub fn validate(trace: &[Event]) -> Result<(), TraceError> {
    let mut v = Validator::new();
    trace.iter().enumerate().try_for_each(|(i, e)| v.step(i, e))
}

/// A race reported by a policy during replay: event indices of the remembered access and of
/// the access that found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReportedRace {
    pub cell: usize,
    pub previous: usize,
    pub current: usize,
    pub kind: RaceKind,
}

/// What a replay produced.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    /// Every race reported, in the order found.
    pub races: Vec<ReportedRace>,
    /// Per cell, the most segments its state held at once.
    pub max_segments: HashMap<usize, usize>,
    /// Per cell, the segments its state holds at the end.
    pub final_segments: HashMap<usize, usize>,
}

/// One cell during replay: its policy and the cache the runtime's fast path looks in.
struct ReplayCell {
    policy: AnyPolicy<usize>,
    seen: SeenAccesses,
}

/// Replays `trace` against the vector clocks and `algorithm`'s per-cell policy (3, 4 or 5), as
/// the runtime does: thread `tN` has slot `N`, a post joins the thread's clock into the object's
/// and starts a new segment, a wait joins the object's clock into the thread's. With
/// `same_segment_filter`, an access the cell's cache of seen accesses holds is skipped, as the
/// runtime's fast path skips it (same cache, same updates).
pub fn replay(trace: &[Event], algorithm: u8, same_segment_filter: bool) -> Result<Replay, TraceError> {
    if !ALGORITHMS.contains(&algorithm) {
        return Err(TraceError { event: 0, message: format!("there is no algorithm {algorithm}; use 3, 4 or 5") });
    }
    validate(trace)?;
    let mut clocks: HashMap<usize, VectorClock> = HashMap::new();
    let mut start = VectorClock::new();
    start.set(0, 1);
    clocks.insert(0, start);
    let mut exits: HashMap<usize, VectorClock> = HashMap::new();
    let mut locks: HashMap<usize, VectorClock> = HashMap::new();
    let mut channels: HashMap<usize, VecDeque<VectorClock>> = HashMap::new();
    let mut cells: HashMap<usize, ReplayCell> = HashMap::new();
    let mut out = Replay::default();

    // The post of a thread into an object's clock: join, then start a new segment.
    fn post(clock: &mut VectorClock, thread: usize, into: &mut VectorClock) {
        into.join(clock);
        clock.tick(thread as Slot);
    }

    for (i, e) in trace.iter().enumerate() {
        match *e {
            Event::Spawn { parent, child } => {
                let p = clocks.get_mut(&parent).expect("validated: parent runs");
                let mut c = p.clone();
                c.set(child as Slot, 1);
                p.tick(parent as Slot);
                clocks.insert(child, c);
            }
            Event::Join { parent, child } => {
                let mut c = clocks.remove(&child).expect("validated: child runs");
                let exit = exits.entry(child).or_default();
                post(&mut c, child, exit);
                let exit = exit.clone();
                clocks.get_mut(&parent).expect("validated: parent runs").join(&exit);
            }
            Event::Acquire { thread, lock } => {
                let l = locks.entry(lock).or_default();
                clocks.get_mut(&thread).expect("validated").join(l);
            }
            Event::Release { thread, lock } => {
                post(clocks.get_mut(&thread).expect("validated"), thread, locks.entry(lock).or_default());
            }
            Event::Send { thread, chan } => {
                let mut message = VectorClock::new();
                post(clocks.get_mut(&thread).expect("validated"), thread, &mut message);
                channels.entry(chan).or_default().push_back(message);
            }
            Event::Recv { thread, chan } => {
                let message =
                    channels.get_mut(&chan).and_then(VecDeque::pop_front).expect("validated: a message waits");
                clocks.get_mut(&thread).expect("validated").join(&message);
            }
            Event::Read { thread, cell } | Event::Write { thread, cell } => {
                let write = matches!(e, Event::Write { .. });
                let now = &clocks[&thread];
                let segment = Segment::new(thread as Slot, now.get(thread as Slot));
                let state = cells
                    .entry(cell)
                    .or_insert_with(|| ReplayCell { policy: AnyPolicy::new(algorithm), seen: SeenAccesses::new() });
                let kind = if write { AccessKind::Write } else { AccessKind::Read };
                let key = seen::key(segment);
                if same_segment_filter && state.seen.contains(kind, key) {
                    continue;
                }
                let cur = Recorded { segment, info: i };
                let mut report = |kind: RaceKind, prev: &Recorded<usize>| {
                    out.races.push(ReportedRace { cell, previous: prev.info, current: i, kind })
                };
                if write {
                    state.policy.policy_mut().write(&cur, now, &mut report);
                } else {
                    state.policy.policy_mut().read(&cur, now, &mut report);
                }
                state.seen.remember(kind, key, algorithm);
                let held = state.policy.policy().segments();
                let max = out.max_segments.entry(cell).or_default();
                *max = (*max).max(held);
            }
        }
    }
    out.final_segments = cells.iter().map(|(&cell, s)| (cell, s.policy.policy().segments())).collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let text = "t0 spawn t1; t1 lock m0; t1 write x2; t1 unlock m0; t1 send c1; t0 recv c1; t0 read x2; t0 join t1";
        let trace = parse(text).unwrap();
        assert_eq!(trace.len(), 8);
        assert_eq!(to_text(&trace), text);
        validate(&trace).unwrap();
    }

    #[test]
    fn parse_names_what_is_wrong() {
        let err = parse("t0 read x0\nt0 raed x0").unwrap_err();
        assert_eq!(err.event, 1);
        assert!(err.message.contains("unknown operation `raed`"), "{err}");
        let err = parse("t0 lock x0").unwrap_err();
        assert!(err.message.contains("expected a lock like `m0`, found `x0`"), "{err}");
        let err = parse("t0 read").unwrap_err();
        assert!(err.message.contains("expected `<thread> <operation> <operand>`"), "{err}");
    }

    #[test]
    fn impossible_traces_are_rejected() {
        let cases = [
            ("t1 read x0", "thread t1 was never spawned"),
            ("t0 spawn t1; t0 join t1; t1 read x0", "thread t1 was already joined"),
            ("t0 spawn t1; t0 spawn t1", "thread t1 exists already"),
            ("t0 spawn t1; t1 lock m0; t0 lock m0", "m0 is held by t1"),
            ("t0 unlock m0", "t0 does not hold m0"),
            ("t0 recv c0", "no message is waiting on c0"),
            ("t0 spawn t1; t1 lock m0; t0 join t1", "thread t1 still holds m0"),
            ("t0 join t0", "a thread cannot join itself"),
        ];
        for (text, expected) in cases {
            let err = validate(&parse(text).unwrap()).unwrap_err();
            assert!(err.message.contains(expected), "{text}: {err}");
        }
        let err = replay(&[], 6, true).unwrap_err();
        assert!(err.message.contains("no algorithm 6"), "{err}");
    }

    #[test]
    fn replay_orders_through_locks_and_messages_but_not_across_them() {
        let trace = parse(
            "t0 spawn t1; t0 spawn t2
             t1 lock m0; t1 write x0; t1 unlock m0; t2 lock m0; t2 write x0; t2 unlock m0
             t1 send c0; t1 write x1; t2 recv c0; t2 read x1",
        )
        .unwrap();
        for algorithm in [3, 4, 5] {
            let r = replay(&trace, algorithm, true).unwrap();
            assert_eq!(
                r.races,
                vec![ReportedRace { cell: 1, previous: 9, current: 11, kind: RaceKind::Flow }],
                "algorithm {algorithm}: the write after the send is not ordered before the receive"
            );
        }
    }
}
