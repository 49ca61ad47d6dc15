//! `racer::sync::{Arc, Weak}`: std's API and behaviour (both builds); every drop happens before
//! the drop that frees the value, so the value's drop (a write of the `Shared` inside) is
//! ordered after every thread's last use (detector build).

use std::collections::HashSet;

use racer::sync::{Arc, Mutex, Weak};
use racer::thread;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
struct Counted(u32);

// Clippy sees the clock inside the allocation as interior mutability; hashing uses the value only.
#[allow(clippy::mutable_key_type)]
#[test]
fn counts_and_identity_as_std() {
    let a = Arc::new(Counted(1));
    let b = Arc::clone(&a);
    let w: Weak<Counted> = Arc::downgrade(&a);
    assert_eq!((Arc::strong_count(&a), Arc::weak_count(&a)), (2, 1));
    assert_eq!((w.strong_count(), w.weak_count()), (2, 1));
    assert!(Arc::ptr_eq(&a, &b));
    assert!(!Arc::ptr_eq(&a, &Arc::new(Counted(1))));
    assert_eq!(a, Arc::new(Counted(1)));
    assert!(a < Arc::new(Counted(2)));
    assert_eq!(*w.upgrade().unwrap(), Counted(1));
    assert_eq!(w.as_ptr(), Arc::as_ptr(&a));
    assert!(w.ptr_eq(&Arc::downgrade(&b)));
    let set: HashSet<Arc<Counted>> = [a.clone(), b.clone()].into_iter().collect();
    assert_eq!(set.len(), 1);
    assert_eq!(format!("{a:?}"), "Counted(1)");
    assert_eq!(format!("{w:?}"), "(Weak)");
    assert_eq!(format!("{:p}", a), format!("{:p}", Arc::as_ptr(&a)));
    drop((a, b, set));
    assert!(w.upgrade().is_none());
    assert_eq!(w.strong_count(), 0);
    assert!(Weak::<u8>::new().upgrade().is_none());
    assert!(Weak::<u8>::default().upgrade().is_none());
}

#[test]
fn taking_the_value_out_as_std() {
    let a = Arc::new(String::from("x"));
    let b = a.clone();
    let a = Arc::try_unwrap(a).unwrap_err();
    drop(b);
    assert_eq!(Arc::try_unwrap(a), Ok("x".to_string()));

    let a = Arc::new(3u8);
    let b = a.clone();
    assert_eq!(Arc::into_inner(a), None);
    assert_eq!(Arc::into_inner(b), Some(3));

    let a = Arc::new(vec![1]);
    let b = a.clone();
    assert_eq!(Arc::unwrap_or_clone(a), vec![1]);
    assert_eq!(Arc::unwrap_or_clone(b), vec![1]);
}

#[test]
fn mutation_as_std() {
    let mut a = Arc::new(5);
    *Arc::get_mut(&mut a).unwrap() += 1;
    let b = a.clone();
    assert!(Arc::get_mut(&mut a).is_none());
    *Arc::make_mut(&mut a) += 1; // clones: b keeps the old value
    assert_eq!((*a, *b), (7, 6));
    let w = Arc::downgrade(&a);
    *Arc::make_mut(&mut a) += 1; // only weak others: moved, the weak is cut off
    assert_eq!(*a, 8);
    assert!(w.upgrade().is_none());
}

#[test]
fn raw_pointers_round_trip() {
    let a = Arc::new(Counted(9));
    let p = Arc::into_raw(a.clone());
    assert_eq!(p, Arc::as_ptr(&a));
    unsafe {
        Arc::increment_strong_count(p);
        assert_eq!(Arc::strong_count(&a), 3);
        Arc::decrement_strong_count(p);
        assert_eq!(Arc::from_raw(p).0, 9);
    }
    assert_eq!(Arc::strong_count(&a), 1);
    let w = Arc::downgrade(&a);
    let wp = w.into_raw();
    assert_eq!(wp, Arc::as_ptr(&a));
    let w = unsafe { Weak::from_raw(wp) };
    assert_eq!(w.upgrade().unwrap().0, 9);
    let dangling = Weak::<Counted>::new();
    let back = unsafe { Weak::from_raw(dangling.into_raw()) };
    assert!(back.upgrade().is_none());
}

#[test]
fn cyclic_and_pinned() {
    struct Node {
        me: Weak<Node>,
        v: u8,
    }
    let n = Arc::new_cyclic(|me| {
        assert!(me.upgrade().is_none());
        Node { me: me.clone(), v: 4 }
    });
    assert_eq!(n.me.upgrade().unwrap().v, 4);
    let p = Arc::pin(5u8);
    assert_eq!(*p, 5);
}

#[test]
fn slices_and_strings() {
    let s: Arc<[u32]> = Arc::from(vec![1, 2, 3]);
    assert_eq!(&*s, &[1, 2, 3]);
    let t: Arc<[String]> = Arc::from(&["a".to_string(), "bc".to_string()][..]);
    assert_eq!(t[1], "bc");
    let c: Arc<[u64]> = (0..5u64).collect();
    assert_eq!(c.iter().sum::<u64>(), 10);
    let e: Arc<[u8]> = Arc::default();
    assert!(e.is_empty());
    let h: Arc<str> = Arc::from("hello");
    let g: Arc<str> = Arc::from(String::from("hello"));
    assert_eq!(h, g);
    assert_eq!(format!("{h}"), "hello");
    assert_eq!(&*Arc::<str>::default(), "");
    let b: Arc<Counted> = Arc::from(Box::new(Counted(2)));
    assert_eq!(b.0, 2);
    // Elements are dropped exactly once, with the last reference.
    let tracked = Arc::new(());
    let many: Arc<[Arc<()>]> = Arc::from(vec![tracked.clone(), tracked.clone()]);
    assert_eq!(Arc::strong_count(&tracked), 3);
    let again = many.clone();
    drop(many);
    assert_eq!(Arc::strong_count(&tracked), 3);
    drop(again);
    assert_eq!(Arc::strong_count(&tracked), 1);
}

#[test]
fn shared_across_threads() {
    let total = Arc::new(Mutex::new(0));
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let total = Arc::clone(&total);
            thread::spawn(move || *total.lock().unwrap() += i)
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*total.lock().unwrap(), 6);
    assert_eq!(Arc::strong_count(&total), 1);
}

#[cfg(feature = "race-detect")]
mod races {
    use std::sync::mpsc as std_mpsc;

    use racer::sync::Arc;
    use racer::Shared;

    use crate::sync_support::*;

    #[test]
    fn the_last_drop_on_another_thread_is_ordered_after_every_use() {
        // main writes the cell and drops its reference; then (in time only) the other thread
        // reads and drops the last reference, which drops the cell (a write).
        let report = racer::check(|| {
            let cell = Arc::new(Shared::new(0u64));
            let (dropped, wait_drop) = std_mpsc::channel::<()>();
            let c = cell.clone();
            let last = named("last-owner", move || {
                wait_drop.recv().unwrap();
                assert_eq!(Arc::strong_count(&c), 1);
                drop(c);
            });
            write(&cell, 1);
            drop(cell);
            dropped.send(()).unwrap();
            last.join().unwrap();
        });
        assert_no_race(&report);
    }

    #[test]
    fn the_last_drop_waits_for_readers_on_other_threads() {
        let report = racer::check(|| {
            let cell = Arc::new(Shared::new(0u64));
            let (done, wait_done) = std_mpsc::channel::<()>();
            let handles: Vec<_> = (0..3)
                .map(|i| {
                    let (c, done) = (cell.clone(), done.clone());
                    named(&format!("reader{i}"), move || {
                        read(&c);
                        drop(c);
                        done.send(()).unwrap();
                    })
                })
                .collect();
            for _ in 0..3 {
                wait_done.recv().unwrap();
            }
            // The readers' threads are not joined yet: only their Arc drops order them.
            drop(cell);
            for h in handles {
                h.join().unwrap();
            }
        });
        assert_no_race(&report);
    }

    #[test]
    fn into_inner_and_get_mut_wait_on_the_other_drops() {
        let report = racer::check(|| {
            let mut cell = Arc::new(Shared::new(0u64));
            let (done, wait_done) = std_mpsc::channel::<()>();
            let c = cell.clone();
            let h = named("writer", move || {
                write(&c, 1);
                drop(c);
                done.send(()).unwrap();
            });
            wait_done.recv().unwrap();
            assert_eq!(*Arc::get_mut(&mut cell).unwrap().get_mut(), 1);
            let c = cell.clone();
            let (done, wait_done) = std_mpsc::channel::<()>();
            let h2 = named("writer2", move || {
                write(&c, 2);
                assert!(Arc::into_inner(c).is_none());
                done.send(()).unwrap();
            });
            wait_done.recv().unwrap();
            assert_eq!(Arc::into_inner(cell).unwrap().into_inner(), 2);
            h.join().unwrap();
            h2.join().unwrap();
        });
        assert_no_race(&report);
    }

    #[test]
    fn with_std_arc_the_last_drop_is_ordered_too() {
        // The same program with std's Arc: racer sees no edge in std's Arc, but a cell dropped
        // inside its last drop (`drop_slow`) is ordered after every clone's use, as std orders it.
        let report = racer::check(|| {
            let cell = std::sync::Arc::new(Shared::new(0u64));
            let (dropped, wait_drop) = std_mpsc::channel::<()>();
            let c = cell.clone();
            let last = named("last-owner", move || {
                wait_drop.recv().unwrap();
                drop(c);
            });
            write(&cell, 1);
            drop(cell);
            dropped.send(()).unwrap();
            last.join().unwrap();
        });
        assert_no_race(&report);
    }
}
