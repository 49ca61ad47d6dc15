//! Thread churn: slots of finished threads are reused, so vector clocks stay as wide as the
//! number of threads alive, not the number ever spawned, and reuse never hides a race.
#![cfg(feature = "race-detect")]

use std::sync::mpsc;

use racer::sync::{Arc, Mutex};
use racer::thread;
use racer::{AccessKind, RaceKind, Shared};

/// The tests here read the global slot counts, so they run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

const THREADS: usize = 100_000;
const WAVE: usize = 4;

#[test]
fn clock_width_stays_at_the_live_thread_count_over_100_000_threads() {
    let _serial = serial();
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (mut widest, mut most_alive, mut after_first_wave) = (0, 0, 0);
        for wave in 0..THREADS / WAVE {
            let threads: Vec<_> = (0..WAVE)
                .map(|_| {
                    let cell = Arc::clone(&cell);
                    // Each thread checks one access; spawn and join order it after the last
                    // wave's write and before the next one.
                    thread::spawn(move || cell.with(|p| unsafe { *p }))
                })
                .collect();
            most_alive = most_alive.max(racer_rt::stats().live_threads);
            threads.into_iter().for_each(|t| assert_eq!(t.join().unwrap(), wave as u64));
            cell.with_mut(|p| unsafe { *p += 1 });
            widest = widest.max(racer_rt::stats().slots);
            if wave == 0 {
                after_first_wave = widest;
            }
        }
        // The first wave made the slots every later wave reused: none was added since, however
        // many threads came and went.
        assert_eq!(widest, after_first_wave, "slots grew with the number of threads spawned");
        // This thread and one wave are alive at once; the other tests of this file leave at most
        // 6 slots this thread cannot reuse (their threads were joined by others).
        assert!(most_alive <= WAVE + 1 + 6, "{most_alive} threads alive at once");
        assert!(widest <= WAVE + 1 + 6, "{widest} slots for {} threads alive at once", WAVE + 1);
        assert_eq!(cell.with(|p| unsafe { *p }), (THREADS / WAVE) as u64);
    });
    assert!(report.is_empty(), "every access was ordered by spawn and join:\n{report}");
}

/// A thread whose slot is a finished thread's still races with a thread that knows only an
/// older segment of that slot: epochs keep growing across reuse.
#[test]
fn race_by_a_thread_in_a_reused_slot_is_found() {
    let _serial = serial();
    let cell = Arc::new(Shared::new(0u64));
    let lock = Arc::new(Mutex::new(()));
    let (to_main, from_writer) = mpsc::channel();
    let (to_writer, from_main) = mpsc::channel();
    let mut slots_before = 0;
    let mut slots_after = 0;
    let report = racer::check(|| {
        // A finished, joined thread leaves a slot this thread may hand on.
        thread::spawn(|| {}).join().unwrap();
        slots_before = racer_rt::stats().slots;
        let (c, l) = (Arc::clone(&cell), Arc::clone(&lock));
        let writer = thread::Builder::new()
            .name("reused-slot-writer".into())
            .spawn(move || {
                drop(l.lock().unwrap());
                to_main.send(()).unwrap();
                from_main.recv().unwrap();
                c.with_mut(|p| unsafe { *p = 1 }); // WRITE
                to_main.send(()).unwrap();
            })
            .unwrap();
        slots_after = racer_rt::stats().slots;
        // std channels are invisible to racer: this thread learns, through the lock, only the
        // writer's segment before its write.
        from_writer.recv().unwrap();
        drop(lock.lock().unwrap());
        to_writer.send(()).unwrap();
        from_writer.recv().unwrap();
        cell.with(|p| unsafe { *p }); // READ
        writer.join().unwrap();
    });
    assert_eq!(slots_after, slots_before, "the writer took the finished thread's slot");
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), RaceKind::Flow);
    assert_eq!(race.previous().kind(), AccessKind::Write);
    assert_eq!(race.previous().thread_name(), Some("reused-slot-writer"));
    assert_eq!(race.previous().location().line(), line_of("// WRITE"));
    assert_eq!(race.current().location().line(), line_of("// READ"));
}

/// The previous owner of a reused slot still races with a thread that never synchronised with
/// it: the slot's new owner does not make the old owner's segments look ordered.
#[test]
fn race_by_the_previous_owner_of_a_reused_slot_is_found() {
    let _serial = serial();
    let cell = Arc::new(Shared::new(0u64));
    let (done_tx, done_rx) = mpsc::channel();
    let mut reused = None;
    let report = racer::check(|| {
        let c = Arc::clone(&cell);
        let old_owner = thread::Builder::new()
            .name("old-owner".into())
            .spawn(move || c.with_mut(|p| unsafe { *p = 7 })) // OLD WRITE
            .unwrap();
        let c = Arc::clone(&cell);
        // `heir` joins the old owner, so its clock covers the old owner's exit and the thread
        // it spawns may take the old owner's slot; this thread never joins either of them
        // before its read.
        let heir = thread::Builder::new()
            .name("heir".into())
            .spawn(move || {
                old_owner.join().unwrap();
                let before = racer_rt::stats().slots;
                let c2 = Arc::clone(&c);
                thread::spawn(move || c2.with(|p| unsafe { *p })).join().unwrap(); // ORDERED READ
                let after = racer_rt::stats().slots;
                done_tx.send(before == after).unwrap();
            })
            .unwrap();
        reused = Some(done_rx.recv().unwrap());
        cell.with(|p| unsafe { *p }); // UNORDERED READ
        heir.join().unwrap();
    });
    assert_eq!(reused, Some(true), "the heir's child took a finished thread's slot");
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), RaceKind::Flow);
    assert_eq!(race.previous().thread_name(), Some("old-owner"));
    assert_eq!(race.previous().location().line(), line_of("// OLD WRITE"));
    assert_eq!(race.current().location().line(), line_of("// UNORDERED READ"));
}

/// The line of this file that ends with `marker`.
fn line_of(marker: &str) -> u32 {
    let source = include_str!("churn.rs");
    let index = source.lines().position(|l| l.trim_end().ends_with(marker)).expect("marker in churn.rs");
    index as u32 + 1
}
