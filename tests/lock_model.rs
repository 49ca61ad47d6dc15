//! Racer's locks against a plain model of their happens-before order, on random schedules.
//!
//! Two or three threads run lock sections (an `RwLock`'s read or write lock, a `Mutex`'s, a
//! parking_lot `RwLock`'s through racer's adapter, or none) that read and write one cell, one
//! section at a time in a random global order (handed over with std atomics, invisible to
//! racer). The model gives every thread a vector clock, every
//! unlock a post and a new epoch, every lock a join of the lock's clocks (a read lock joins the
//! write-unlocks', a write lock those and the read-unlocks'), with none of racer's shortcuts
//! (resumed segments, skipped joins and posts). Algorithm 4 reports a race on the cell if and
//! only if the model has two accesses, one a write, by different threads and unordered.
#![cfg(feature = "race-detect")]

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use racer::sync::{Mutex, RwLock};
use racer::Shared;

const THREADS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Lock {
    Unlocked,
    Read,
    Write,
    Mutex,
    /// `racer::parking_lot::RwLock`'s, through racer's `lock_api` adapter.
    ForeignRead,
    ForeignWrite,
}

/// One thread's turn: take `lock`, access the cell (`true`: a write), let go.
#[derive(Clone, Debug)]
struct Section {
    thread: usize,
    lock: Lock,
    writes: Vec<bool>,
}

fn section() -> impl Strategy<Value = Section> {
    let lock = prop_oneof![
        Just(Lock::Unlocked),
        Just(Lock::Read),
        Just(Lock::Write),
        Just(Lock::Mutex),
        Just(Lock::ForeignRead),
        Just(Lock::ForeignWrite)
    ];
    // Mostly two threads, whose interleavings matter most; now and then a third.
    let thread = prop_oneof![3 => Just(0), 3 => Just(1), 1 => Just(2)];
    (thread, lock, prop::collection::vec(any::<bool>(), 0..3)).prop_map(|(thread, lock, writes)| Section {
        thread,
        lock,
        writes,
    })
}

type Clock = [u64; THREADS];

fn join(into: &mut Clock, from: &Clock) {
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

/// Whether the model has a race on the cell: an access ordered after none of the earlier
/// conflicting accesses of other threads.
fn model_races(schedule: &[Section]) -> bool {
    let mut clocks: [Clock; THREADS] = std::array::from_fn(|t| {
        let mut c = [0; THREADS];
        c[t] = 1;
        c
    });
    // Per reader-writer lock (racer's, the foreign one): the join of its write-unlocks', its
    // read-unlocks'.
    let mut rw = [([0; THREADS], [0; THREADS]); 2];
    let mut mutex = [0; THREADS];
    // (thread, its epoch then, write)
    let mut accesses: Vec<(usize, u64, bool)> = Vec::new();
    let mut race = false;
    for s in schedule {
        let t = s.thread;
        let foreign = matches!(s.lock, Lock::ForeignRead | Lock::ForeignWrite) as usize;
        match s.lock {
            Lock::Unlocked => {}
            Lock::Read | Lock::ForeignRead => join(&mut clocks[t], &rw[foreign].0),
            Lock::Write | Lock::ForeignWrite => {
                join(&mut clocks[t], &rw[foreign].0);
                join(&mut clocks[t], &rw[foreign].1);
            }
            Lock::Mutex => join(&mut clocks[t], &mutex),
        }
        for &write in &s.writes {
            let c = clocks[t];
            race |= accesses.iter().any(|&(u, epoch, w)| u != t && (w || write) && epoch > c[u]);
            accesses.push((t, c[t], write));
        }
        let posted = match s.lock {
            Lock::Unlocked => None,
            Lock::Read | Lock::ForeignRead => Some(&mut rw[foreign].1),
            Lock::Write | Lock::ForeignWrite => Some(&mut rw[foreign].0),
            Lock::Mutex => Some(&mut mutex),
        };
        if let Some(clock) = posted {
            join(clock, &clocks[t]);
            clocks[t][t] += 1;
        }
    }
    race
}

/// Runs `schedule` on racer's locks; whether racer reported a race.
fn racer_races(schedule: &[Section]) -> bool {
    let report = racer::check(|| {
        let shared = std::sync::Arc::new((
            RwLock::new(()),
            Mutex::new(()),
            racer::parking_lot::RwLock::new(()),
            Shared::new(0u64),
            AtomicUsize::new(0),
        ));
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let (shared, schedule) = (shared.clone(), schedule.to_vec());
                racer::thread::spawn(move || {
                    let (rwlock, mutex, foreign, cell, turn) = &*shared;
                    for (i, s) in schedule.iter().enumerate().filter(|(_, s)| s.thread == t) {
                        while turn.load(Ordering::Acquire) != i {
                            std::thread::yield_now();
                        }
                        let access = || {
                            for &write in &s.writes {
                                if write {
                                    unsafe { cell.set(1) };
                                } else {
                                    std::hint::black_box(unsafe { cell.get() });
                                }
                            }
                        };
                        match s.lock {
                            Lock::Unlocked => access(),
                            Lock::Read => drop((rwlock.read().unwrap(), access())),
                            Lock::Write => drop((rwlock.write().unwrap(), access())),
                            Lock::Mutex => drop((mutex.lock().unwrap(), access())),
                            Lock::ForeignRead => drop((foreign.read(), access())),
                            Lock::ForeignWrite => drop((foreign.write(), access())),
                        }
                        turn.store(i + 1, Ordering::Release);
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
    });
    !report.races().is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn racer_reports_a_race_exactly_when_the_model_has_one(schedule in prop::collection::vec(section(), 1..14)) {
        prop_assert_eq!(racer_races(&schedule), model_races(&schedule), "schedule: {:?}", schedule);
    }
}
