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
