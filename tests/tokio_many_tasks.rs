//! A hundred thousand short tasks, in a test binary of their own: the slot count asserted is
//! the process's, which tests running beside it in one binary would change.
#![cfg(all(feature = "race-detect", feature = "tokio"))]

use std::sync::Arc;

use racer::tokio::runtime::Builder;
use racer::tokio::task::JoinSet;
use racer::Shared;

/// A hundred thousand short tasks, each joined: no report, and the clocks stay as wide as the
/// tasks alive at once (the slots of joined tasks are reused).
#[test]
fn a_hundred_thousand_short_tasks_stay_clean_and_reuse_slots() {
    let rt = Builder::new_multi_thread().worker_threads(4).build().unwrap();
    let report = racer::check(|| {
        rt.block_on(async {
            let cell = Arc::new(Shared::new(0u64));
            for round in 0..1000u64 {
                let mut set = JoinSet::new();
                for _ in 0..100 {
                    let c = cell.clone();
                    set.spawn(async move { unsafe { c.get() } });
                }
                while set.join_next().await.is_some() {}
                unsafe { cell.set(round) };
            }
        })
    });
    assert!(report.is_empty(), "{report}");
    let slots = racer::stats().slots;
    assert!(slots < 1000, "{slots} slots made for 100 000 tasks of at most 100 alive at once");
}
