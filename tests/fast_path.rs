//! The fast path's rule (see racer-rt's `seen`): within one segment, every access after the
//! segment's first read and first write is a hit, whatever their order. Counted, not timed:
//! each test counts the accesses that went through the slow path on its own thread.
#![cfg(feature = "race-detect")]

use racer::sync::Mutex;
use racer::Shared;

fn slow() -> u64 {
    racer::__slow_accesses_on_this_thread()
}

/// `x.set(x.get() + 1)` in one segment: the first read and the first write miss, nothing else.
#[test]
fn read_modify_write_in_a_segment_misses_twice() {
    let cell = Shared::new(0u64);
    let lock = Mutex::new(());
    for round in 0..3 {
        let _held = lock.lock().unwrap(); // a new segment
        let before = slow();
        for _ in 0..1000 {
            unsafe { cell.set(cell.get() + 1) };
        }
        assert_eq!(slow() - before, 2, "round {round}: the first read and the first write only");
    }
    assert_eq!(cell.into_inner(), 3000);
}

/// Write first, then read: the write covers the segment's reads.
#[test]
fn a_write_covers_the_reads_after_it() {
    let cell = Shared::new(0u64);
    let lock = Mutex::new(());
    let _held = lock.lock().unwrap();
    let before = slow();
    for i in 0..1000 {
        cell.with_mut(|p| unsafe { *p = i });
        assert_eq!(cell.with(|p| unsafe { *p }), i);
    }
    assert_eq!(slow() - before, 1, "one write, every later access a hit");
}

/// A read does not displace the entry of its own segment's write, even among other readers.
#[test]
fn reads_after_other_readers_do_not_evict_the_write() {
    let cell = std::sync::Arc::new(Shared::new(0u64));
    unsafe { cell.set(1) };
    for _ in 0..3 {
        let c = cell.clone();
        racer::thread::spawn(move || unsafe { c.get() }).join().unwrap();
    }
    let lock = Mutex::new(()); // joins ordered every reader before this segment
    let _held = lock.lock().unwrap();
    let before = slow();
    for _ in 0..100 {
        unsafe { cell.set(cell.get() + 1) };
    }
    assert_eq!(slow() - before, 2);
}
