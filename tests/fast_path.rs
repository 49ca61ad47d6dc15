//! The fast path's rule (see `racer-rt/detector/shadow/seen.rs`): within one segment, every access after the
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
    for round in 0..3 {
        let lock = Mutex::new(());
        let _held = lock.lock().unwrap(); // a new segment: the last ended at the last unlock
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

/// A thread that takes a lock back with nobody having taken it in between is still in the
/// segment it posted at the unlock: nobody heard of that post, so its accesses are hits.
#[test]
fn retaking_a_lock_nobody_else_took_keeps_the_segment() {
    let cell = Shared::new(0u64);
    let lock = Mutex::new(());
    let before = slow();
    for _ in 0..1000 {
        let _held = lock.lock().unwrap();
        unsafe { cell.set(cell.get() + 1) };
    }
    assert_eq!(slow() - before, 2, "the first round's read and write only");
}

/// The same for a write lock, racer's own and a foreign one through `racer::lock_api` (a
/// parking_lot mutex is the exclusive half of one): nobody took it in between, in any mode.
#[test]
fn retaking_a_write_lock_nobody_else_took_keeps_the_segment() {
    let cell = Shared::new(0u64);
    let rwlock = racer::sync::RwLock::new(());
    let before = slow();
    for _ in 0..1000 {
        let _held = rwlock.write().unwrap();
        unsafe { cell.set(cell.get() + 1) };
    }
    assert_eq!(slow() - before, 2, "racer::sync::RwLock: the first round's read and write only");
    let mutex = racer::parking_lot::Mutex::new(());
    let rwlock = racer::parking_lot::RwLock::new(());
    let before = slow();
    for _ in 0..1000 {
        let _held = mutex.lock();
        unsafe { cell.set(cell.get() + 1) };
    }
    for _ in 0..1000 {
        let _held = rwlock.write();
        unsafe { cell.set(cell.get() + 1) };
    }
    assert_eq!(slow() - before, 4, "parking_lot: each lock's first round's read and write only");
}

/// A reader that re-takes a read lock with no writer in between goes on in its segment too.
#[test]
fn retaking_a_read_lock_no_writer_took_keeps_the_segment() {
    let cell = Shared::new(0u64);
    let rwlock = racer::sync::RwLock::new(());
    let before = slow();
    for _ in 0..1000 {
        let _held = rwlock.read().unwrap();
        std::hint::black_box(unsafe { cell.get() });
    }
    assert_eq!(slow() - before, 1, "the first round's read only");
}

/// A read lock in between (here the thread's own) ends the writer's segment: a reader hears
/// of the post without posting to what writers wait on first.
#[test]
fn a_read_lock_in_between_ends_the_writers_segment() {
    let cell = Shared::new(0u64);
    let rwlock = racer::sync::RwLock::new(());
    drop(rwlock.write().unwrap());
    drop(rwlock.read().unwrap());
    let before = slow();
    let _held = rwlock.write().unwrap();
    unsafe { cell.set(cell.get() + 1) };
    assert_eq!(slow() - before, 2, "a new segment: its first read and first write miss");
}

/// The segment after an unlock starts when the thread next uses its clock: an access before
/// the lock is taken back is in a new segment, and so is everything after it.
#[test]
fn an_access_between_unlock_and_relock_starts_the_new_segment() {
    let (cell, other) = (Shared::new(0u64), Shared::new(0u64));
    let lock = Mutex::new(());
    drop(lock.lock().unwrap());
    unsafe { cell.set(1) };
    let before = slow();
    drop(lock.lock().unwrap());
    unsafe { other.set(1) }; // the unlock's segment is due: a miss, and a new segment
    let _held = lock.lock().unwrap(); // not the segment posted: that one ended
    unsafe { cell.set(2) };
    assert_eq!(slow() - before, 2);
}

/// Another thread took the lock in between: its post is the lock's last, and the thread
/// that takes the lock back starts a new segment.
#[test]
fn a_lock_another_thread_took_in_between_starts_a_new_segment() {
    let cell = std::sync::Arc::new(Shared::new(0u64));
    let lock = std::sync::Arc::new(Mutex::new(()));
    let (took, taken) = std::sync::mpsc::channel();
    {
        let _held = lock.lock().unwrap();
        unsafe { cell.set(cell.get() + 1) };
    }
    let (l, c) = (lock.clone(), cell.clone());
    // Ordered by the lock only; the std channel (invisible to racer) just waits for it.
    let other = racer::thread::spawn(move || {
        let _held = l.lock().unwrap();
        unsafe { c.set(c.get() + 1) };
        drop(_held);
        took.send(()).unwrap();
    });
    taken.recv().unwrap();
    let before = slow();
    {
        let _held = lock.lock().unwrap();
        unsafe { cell.set(cell.get() + 1) };
    }
    assert_eq!(slow() - before, 2, "a new segment: its first read and first write miss");
    other.join().unwrap();
}
