//! Thread ends that std orders and racer must order too: thread-local destructors before
//! `join` returns.
#![cfg(feature = "race-detect")]

use std::sync::Arc;

use racer::{thread, RaceKind, Shared};

/// Writes its cell when the thread's thread-locals are destroyed.
struct WritesOnDrop(Option<Arc<Shared<u64>>>);

impl Drop for WritesOnDrop {
    fn drop(&mut self) {
        if let Some(cell) = self.0.take() {
            unsafe { cell.set(7) };
        }
    }
}

thread_local! {
    static HOLDER: std::cell::RefCell<WritesOnDrop> = const { std::cell::RefCell::new(WritesOnDrop(None)) };
}

/// std's `join` returns after the thread's thread-local destructors ran: a write in one is
/// ordered before what follows the join (no report), as every other write of the thread is.
#[test]
fn a_thread_local_destructor_is_ordered_before_join() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let theirs = cell.clone();
        thread::spawn(move || HOLDER.with(|h| h.borrow_mut().0 = Some(theirs))).join().unwrap();
        assert_eq!(unsafe { cell.get() }, 7, "the destructor ran before join returned");
    });
    assert!(report.is_empty(), "no race: join orders the destructor\n{report}");
}

/// Without the join, the destructor's write still races with the parent's read.
#[test]
fn a_thread_local_destructor_not_joined_still_races() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let theirs = cell.clone();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let h = thread::Builder::new()
            .name("tls-writer".into())
            .spawn(move || {
                HOLDER.with(|h| h.borrow_mut().0 = Some(theirs));
                tx.send(()).unwrap()
            })
            .unwrap();
        rx.recv().unwrap();
        // The thread's end, destructors included, in time only (std's channel and a sleep-free
        // wait on the OS thread): racer sees no order.
        while Arc::strong_count(&cell) > 1 {
            std::thread::yield_now();
        }
        let _ = unsafe { cell.get() };
        h.join().unwrap();
    });
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), RaceKind::Flow);
    assert_eq!(race.previous().thread_name(), Some("tls-writer"));
    assert!(race.previous().backtrace().contains("WritesOnDrop"), "{}", race.previous().backtrace());
}

/// Threads that are never joined end without anyone ordered after them. A long run of them
/// must not use up the slots (at 65 536 every later thread went unchecked): past racer's slot
/// pressure mark their slots are reused, and a thread started after all of them is checked.
#[test]
fn detached_threads_do_not_use_up_the_slots() {
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    for _ in 0..6_000 {
        let done = done_tx.clone();
        let cell = Shared::new(0u64);
        drop(thread::spawn(move || {
            unsafe { cell.set(1) };
            done.send(()).unwrap();
        }));
        done_rx.recv().unwrap(); // in time only: at most one detached thread runs at once
    }
    let stats = racer::stats();
    assert!(stats.slots <= 4_100, "slots are reused past the pressure mark: {stats:?}");
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let theirs = cell.clone();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let h = thread::Builder::new()
            .name("late".into())
            .spawn(move || {
                unsafe { theirs.set(1) };
                tx.send(()).unwrap()
            })
            .unwrap();
        rx.recv().unwrap();
        unsafe { cell.set(2) };
        h.join().unwrap();
    });
    assert_eq!(report.len(), 1, "a thread started after 6 000 detached ones is checked\n{report}");
    assert_eq!(report.races()[0].previous().thread_name(), Some("late"));
}
