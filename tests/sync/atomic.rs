//! `racer::sync::atomic`: values and orderings exactly std's (both builds), and the
//! happens-before edges of Release/Acquire, release sequences and fences (detector build).

use std::sync::atomic as std_atomic;

use racer::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16, AtomicU32, AtomicU64,
    AtomicU8, AtomicUsize, Ordering,
};
use racer::sync::Arc;
use racer::thread;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Calls the same method on both atomics and compares the results.
macro_rules! both {
    ($ours:ident, $theirs:ident, $($call:tt)*) => {
        assert_eq!($ours.$($call)*, $theirs.$($call)*, stringify!($($call)*))
    };
}

/// Runs the same operations on racer's atomic and std's and compares every result.
macro_rules! same_as_std {
    ($racer:ty, $std:ty, $a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        let ours = <$racer>::new(a);
        let theirs = <$std>::new(a);
        both!(ours, theirs, load(Ordering::SeqCst));
        both!(ours, theirs, swap(b, Ordering::AcqRel));
        both!(ours, theirs, fetch_add(b, Ordering::Relaxed));
        both!(ours, theirs, fetch_sub(a, Ordering::Release));
        both!(ours, theirs, fetch_and(b, Ordering::Acquire));
        both!(ours, theirs, fetch_nand(a, Ordering::SeqCst));
        both!(ours, theirs, fetch_or(b, Ordering::Relaxed));
        both!(ours, theirs, fetch_xor(a, Ordering::Relaxed));
        both!(ours, theirs, fetch_max(b, Ordering::Relaxed));
        both!(ours, theirs, fetch_min(a, Ordering::Relaxed));
        let now = theirs.load(Ordering::Relaxed);
        both!(ours, theirs, compare_exchange(now, a, Ordering::AcqRel, Ordering::Acquire));
        both!(ours, theirs, compare_exchange(now, b, Ordering::AcqRel, Ordering::Acquire));
        both!(ours, theirs, fetch_update(Ordering::SeqCst, Ordering::SeqCst, |x| Some(x.wrapping_add(b))));
        both!(ours, theirs, fetch_update(Ordering::SeqCst, Ordering::SeqCst, |_| None));
        let now = theirs.load(Ordering::Relaxed);
        let mut weak = ours.compare_exchange_weak(now, b, Ordering::SeqCst, Ordering::Relaxed);
        while weak.is_err() {
            weak = ours.compare_exchange_weak(now, b, Ordering::SeqCst, Ordering::Relaxed);
        }
        assert_eq!(weak, Ok(now));
        theirs.store(b, Ordering::SeqCst);
        both!(ours, theirs, load(Ordering::Relaxed));
        ours.store(a, Ordering::Release);
        theirs.store(a, Ordering::Release);
        let (mut ours, mut theirs) = (ours, theirs);
        *ours.get_mut() = b;
        *theirs.get_mut() = b;
        assert_eq!(unsafe { *ours.as_ptr() }, unsafe { *theirs.as_ptr() });
        assert_eq!(format!("{ours:?}"), format!("{theirs:?}"));
        assert_eq!(ours.into_inner(), theirs.into_inner());
    }};
}

#[test]
fn integer_atomics_compute_what_std_computes() {
    same_as_std!(AtomicU8, std_atomic::AtomicU8, 200u8, 99);
    same_as_std!(AtomicU16, std_atomic::AtomicU16, 65_000u16, 1234);
    same_as_std!(AtomicU32, std_atomic::AtomicU32, 7u32, u32::MAX - 3);
    same_as_std!(AtomicU64, std_atomic::AtomicU64, u64::MAX, 1 << 40);
    same_as_std!(AtomicUsize, std_atomic::AtomicUsize, 12usize, 5);
    same_as_std!(AtomicI8, std_atomic::AtomicI8, -100i8, 77);
    same_as_std!(AtomicI16, std_atomic::AtomicI16, i16::MIN, -1);
    same_as_std!(AtomicI32, std_atomic::AtomicI32, -5i32, 9);
    same_as_std!(AtomicI64, std_atomic::AtomicI64, i64::MAX, -42);
    same_as_std!(AtomicIsize, std_atomic::AtomicIsize, 0isize, -8);
}

#[test]
fn bool_and_ptr_atomics_compute_what_std_computes() {
    let b = AtomicBool::new(false);
    assert!(!b.fetch_or(true, Ordering::AcqRel));
    assert!(b.fetch_and(false, Ordering::SeqCst));
    assert!(!b.fetch_xor(true, Ordering::Relaxed));
    assert!(b.fetch_nand(true, Ordering::Relaxed));
    assert!(!b.fetch_not(Ordering::Release));
    assert!(b.load(Ordering::Acquire));
    assert_eq!(b.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst), Err(true));
    assert_eq!(b.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |x| Some(!x)), Ok(true));
    assert!(!b.swap(true, Ordering::SeqCst));
    assert_eq!(format!("{b:?}"), "true");
    assert!(!AtomicBool::default().into_inner());

    let mut xs = [1u32, 2, 3];
    let p = AtomicPtr::new(&mut xs[0] as *mut u32);
    let second = &mut xs[1] as *mut u32;
    let first = p.swap(second, Ordering::AcqRel);
    assert_eq!(p.load(Ordering::Acquire), second);
    assert_eq!(p.compare_exchange(first, first, Ordering::SeqCst, Ordering::Relaxed), Err(second));
    assert_eq!(p.compare_exchange(second, first, Ordering::SeqCst, Ordering::Relaxed), Ok(second));
    assert_eq!(unsafe { *p.load(Ordering::Relaxed) }, 1);
    assert!(AtomicPtr::<u8>::default().into_inner().is_null());
    assert_eq!(format!("{:p}", p), format!("{:p}", first));
}

#[test]
fn atomics_are_atomic_across_threads() {
    COUNTER.store(0, Ordering::SeqCst);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            thread::spawn(|| {
                for _ in 0..2_000 {
                    COUNTER.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(COUNTER.load(Ordering::SeqCst), 8_000);
}

#[test]
fn compare_exchange_weak_loops_count_exactly() {
    let n = Arc::new(AtomicI64::new(0));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || {
                for _ in 0..1_000 {
                    let mut cur = n.load(Ordering::Relaxed);
                    while let Err(actual) = n.compare_exchange_weak(cur, cur + 2, Ordering::AcqRel, Ordering::Relaxed) {
                        cur = actual;
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(n.load(Ordering::SeqCst), 6_000);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire store")]
fn acquire_store_panics_as_in_std() {
    // Through `black_box`: std's lint rejects the constant ordering at compile time.
    AtomicU32::new(0).store(1, std::hint::black_box(Ordering::Acquire));
}

#[test]
#[should_panic(expected = "there is no such thing as a release load")]
fn release_load_panics_as_in_std() {
    AtomicU32::new(0).load(std::hint::black_box(Ordering::Release));
}

#[cfg(feature = "race-detect")]
mod races {
    use std::sync::mpsc as std_mpsc;

    use racer::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
    use racer::sync::Arc;
    use racer::{RaceKind, Shared};

    use crate::sync_support::*;

    fn spin_until(flag: &AtomicUsize, value: usize, order: Ordering) {
        while flag.load(order) != value {
            std::hint::spin_loop();
        }
    }

    /// The writer writes the cell then stores 1 with `store`; the reader waits until it loads
    /// 1 with `load`, then reads the cell.
    fn message_passing(store: Ordering, load: Ordering) -> (racer::Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let flag = Arc::new(AtomicUsize::new(0));
            let (d, f) = (data.clone(), flag.clone());
            let w = named("writer", move || {
                let site = write(&d, 42);
                f.store(1, store);
                site
            });
            let r = named("reader", move || {
                spin_until(&flag, 1, load);
                read(&data)
            });
            let (value, read_site) = r.join().unwrap();
            assert_eq!(value, 42);
            sites = Some((w.join().unwrap(), read_site));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    #[test]
    fn release_store_acquire_load_orders_the_data() {
        assert_no_race(&message_passing(Ordering::Release, Ordering::Acquire).0);
        assert_no_race(&message_passing(Ordering::SeqCst, Ordering::SeqCst).0);
    }

    #[test]
    fn relaxed_store_orders_nothing() {
        let (report, w, r) = message_passing(Ordering::Relaxed, Ordering::Acquire);
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }

    #[test]
    fn relaxed_load_orders_nothing() {
        let (report, w, r) = message_passing(Ordering::Release, Ordering::Relaxed);
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }

    /// Twelve threads, alive at once, each write their own cell and then add 1 to a counter
    /// (AcqRel: a release sequence), the last writing a second cell only after its add. The
    /// counter's release clock then has more components than a lock-free load reads, so the
    /// reader's acquire takes the lock path: it must still order every cell written before an
    /// add, and not the one written after (read only once written, so that the race is a flow
    /// whichever thread the machine runs first).
    #[test]
    fn a_release_clock_wider_than_a_lock_free_load_reads_orders_all_it_holds() {
        const WRITERS: usize = 12;
        let mut sites = None;
        let report = racer::check(|| {
            let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..=WRITERS).map(|_| Shared::new(0)).collect());
            let counter = Arc::new(AtomicUsize::new(0));
            // Invisible to racer: they only keep every writer alive (and its slot taken) at
            // once, and hold the reader back until the late write is done.
            let all_started = std::sync::Arc::new(std::sync::Barrier::new(WRITERS));
            let (late_written, wait_late) = std_mpsc::channel::<()>();
            let writers: Vec<_> = (0..WRITERS)
                .map(|i| {
                    let (cells, counter, all_started) = (cells.clone(), counter.clone(), all_started.clone());
                    let late_written = late_written.clone();
                    named(&format!("writer {i}"), move || {
                        all_started.wait();
                        write(&cells[i], 1);
                        counter.fetch_add(1, Ordering::AcqRel);
                        (i == WRITERS - 1).then(|| {
                            let site = write(&cells[WRITERS], 1);
                            late_written.send(()).unwrap();
                            site
                        })
                    })
                })
                .collect();
            spin_until(&counter, WRITERS, Ordering::Acquire);
            let mut late_read = None;
            for (i, cell) in cells.iter().enumerate() {
                if i == WRITERS {
                    wait_late.recv().unwrap();
                }
                let (_, site) = read(cell);
                if i == WRITERS {
                    late_read = Some(site);
                }
            }
            let late_write = writers.into_iter().filter_map(|w| w.join().unwrap()).next();
            sites = Some((late_write.unwrap(), late_read.unwrap()));
        });
        let (w, r) = sites.unwrap();
        let reader = std::thread::current().name().unwrap().to_string();
        assert_one_race(&report, RaceKind::Flow, (&format!("writer {}", WRITERS - 1), w), (&reader, r));
    }

    #[test]
    fn a_write_after_the_release_is_not_published() {
        let mut sites = None;
        let report = racer::check(|| {
            let (a, b) = (Arc::new(Shared::new(0u64)), Arc::new(Shared::new(0u64)));
            let flag = Arc::new(AtomicUsize::new(0));
            let (wrote_b, b_written) = std_mpsc::channel::<()>();
            let (a2, b2, f) = (a.clone(), b.clone(), flag.clone());
            let w = named("writer", move || {
                write(&a2, 1);
                f.store(1, Ordering::Release);
                let site = write(&b2, 2);
                wrote_b.send(()).unwrap();
                site
            });
            let r = named("reader", move || {
                spin_until(&flag, 1, Ordering::Acquire);
                assert_eq!(read(&a).0, 1);
                b_written.recv().unwrap();
                read(&b).1
            });
            sites = Some((w.join().unwrap(), r.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }

    /// The writer releases 1; a relay changes 1 to 2 (with a Relaxed RMW or a Relaxed store);
    /// then (in time only) the reader acquires 2 and reads. The reader loads only once, after
    /// the relay is done, so it never acquires the writer's 1 directly.
    fn relayed(rmw: bool) -> (racer::Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let flag = Arc::new(AtomicUsize::new(0));
            let (d, f1, f2) = (data.clone(), flag.clone(), flag.clone());
            let (relayed, wait_relay) = std_mpsc::channel::<()>();
            let w = named("writer", move || {
                let site = write(&d, 7);
                f1.store(1, Ordering::Release);
                site
            });
            let relay = named("relay", move || {
                if rmw {
                    while f2.compare_exchange(1, 2, Ordering::Relaxed, Ordering::Relaxed).is_err() {
                        std::hint::spin_loop();
                    }
                } else {
                    spin_until(&f2, 1, Ordering::Relaxed);
                    f2.store(2, Ordering::Relaxed);
                }
                relayed.send(()).unwrap();
            });
            let r = named("reader", move || {
                wait_relay.recv().unwrap();
                assert_eq!(flag.load(Ordering::Acquire), 2);
                read(&data).1
            });
            relay.join().unwrap();
            sites = Some((w.join().unwrap(), r.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    #[test]
    fn a_relaxed_rmw_continues_the_release_sequence() {
        assert_no_race(&relayed(true).0);
    }

    #[test]
    fn a_relaxed_store_ends_the_release_sequence() {
        let (report, w, r) = relayed(false);
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }

    /// Writer: write; Release store of 1, then a message through std (which racer does not
    /// see). Reader: once the message came, `take` on the flag, then a read.
    fn released_flag_taken(take: impl FnOnce(&AtomicUsize) + Send + 'static) -> (racer::Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let flag = Arc::new(AtomicUsize::new(0));
            let (d, f) = (data.clone(), flag.clone());
            let (stored, wait_store) = std_mpsc::channel::<()>();
            let w = named("writer", move || {
                let site = write(&d, 3);
                f.store(1, Ordering::Release);
                stored.send(()).unwrap();
                site
            });
            let r = named("reader", move || {
                wait_store.recv().unwrap();
                take(&flag);
                read(&data).1
            });
            sites = Some((w.join().unwrap(), r.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    /// A compare-exchange that fails reads the value with its failure ordering.
    fn failed_cas(failure: Ordering) -> (racer::Report, Site, Site) {
        released_flag_taken(move |flag| {
            assert_eq!(flag.compare_exchange(0, 9, Ordering::AcqRel, failure), Err(1));
        })
    }

    #[test]
    fn a_failed_compare_exchange_acquires_only_with_an_acquire_failure_ordering() {
        assert_no_race(&failed_cas(Ordering::Acquire).0);
        let (report, w, r) = failed_cas(Ordering::Relaxed);
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }

    /// The reader compare-exchanges 1 for 2 with `success` (and a SeqCst failure ordering)
    /// until one succeeds: only the success can acquire.
    fn cas_until_success(success: Ordering) -> (racer::Report, Site, Site) {
        released_flag_taken(move |flag| {
            while flag.compare_exchange(1, 2, success, Ordering::SeqCst).is_err() {
                std::hint::spin_loop();
            }
        })
    }

    /// concurrent-queue's `Single::pop` with its CAS made Relaxed on success: racer once looked
    /// at the value with a load of the failure ordering before every compare-exchange, and
    /// that look acquired the release even when the compare-exchange then succeeded Relaxed.
    #[test]
    fn a_relaxed_successful_compare_exchange_acquires_nothing_whatever_its_failure_ordering() {
        assert_no_race(&cas_until_success(Ordering::Acquire).0);
        let (report, w, r) = cas_until_success(Ordering::Relaxed);
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }

    /// Writer: write; [fence(Release)]; Relaxed store. Reader: Relaxed loads until it sees the
    /// store; [fence(Acquire)]; read.
    fn fenced(release_fence: bool, acquire_fence: bool) -> (racer::Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let flag = Arc::new(AtomicBool::new(false));
            let (d, f) = (data.clone(), flag.clone());
            let w = named("writer", move || {
                let site = write(&d, 5);
                if release_fence {
                    fence(Ordering::Release);
                }
                f.store(true, Ordering::Relaxed);
                site
            });
            let r = named("reader", move || {
                while !flag.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
                if acquire_fence {
                    fence(Ordering::Acquire);
                }
                read(&data).1
            });
            sites = Some((w.join().unwrap(), r.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    #[test]
    fn release_and_acquire_fences_order_relaxed_message_passing() {
        assert_no_race(&fenced(true, true).0);
    }

    #[test]
    fn without_the_acquire_fence_relaxed_message_passing_races() {
        let (report, w, r) = fenced(true, false);
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }

    #[test]
    fn without_the_release_fence_relaxed_message_passing_races() {
        let (report, w, r) = fenced(false, true);
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }

    #[test]
    fn a_seqcst_fence_acts_as_both_fences() {
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let flag = Arc::new(AtomicBool::new(false));
            let (d, f) = (data.clone(), flag.clone());
            let w = named("writer", move || {
                write(&d, 5);
                fence(Ordering::SeqCst);
                f.store(true, Ordering::Relaxed);
            });
            while !flag.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
            fence(Ordering::SeqCst);
            read(&data);
            w.join().unwrap();
        });
        assert_no_race(&report);
    }

    #[test]
    fn an_acq_rel_counter_orders_each_increment_after_the_previous_ones() {
        // Each thread writes its own cell, then bumps the counter with AcqRel; the thread that
        // bumps it last has acquired every earlier release, so it may read every cell.
        let report = racer::check(|| {
            let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..3).map(|_| Shared::new(0)).collect());
            let counter = Arc::new(AtomicUsize::new(0));
            let handles: Vec<_> = (0..3)
                .map(|i| {
                    let (cells, counter) = (cells.clone(), counter.clone());
                    named(&format!("worker{i}"), move || {
                        write(&cells[i], i as u64 + 1);
                        if counter.fetch_add(1, Ordering::AcqRel) == 2 {
                            let sum: u64 = cells.iter().map(|c| read(c).0).sum();
                            assert_eq!(sum, 6);
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
        });
        assert_no_race(&report);
    }
}

/// The pointer RMWs (std 1.91's `fetch_ptr_*`, `fetch_byte_*`, `fetch_or/and/xor`) give std's
/// results, in both builds.
#[test]
fn pointer_rmws_compute_what_std_computes() {
    let mut buf = [0u64; 8];
    let base = buf.as_mut_ptr();
    let ours = AtomicPtr::new(base);
    let theirs = std_atomic::AtomicPtr::new(base);
    both!(ours, theirs, fetch_ptr_add(3, Ordering::AcqRel));
    both!(ours, theirs, fetch_ptr_sub(1, Ordering::Relaxed));
    both!(ours, theirs, fetch_byte_add(8, Ordering::Release));
    both!(ours, theirs, fetch_byte_sub(16, Ordering::Acquire));
    both!(ours, theirs, fetch_or(1, Ordering::SeqCst));
    both!(ours, theirs, fetch_xor(3, Ordering::Relaxed));
    both!(ours, theirs, fetch_and(!7, Ordering::Relaxed));
    both!(ours, theirs, load(Ordering::Relaxed));
    assert_eq!(ours.load(Ordering::Relaxed), base.wrapping_add(1));
}

/// A Release pointer RMW is a post that an Acquire load of its value waits on.
#[cfg(feature = "race-detect")]
#[test]
fn a_release_pointer_rmw_orders_what_came_before() {
    let report = racer::check(|| {
        let cell = Arc::new(racer::Shared::new(0u64));
        let tagged = Arc::new(AtomicPtr::new(std::ptr::null_mut::<u64>()));
        let (c, t) = (cell.clone(), tagged.clone());
        let writer = thread::spawn(move || {
            unsafe { c.set(1) };
            t.fetch_or(1, Ordering::Release);
        });
        while tagged.load(Ordering::Acquire).is_null() {
            thread::yield_now();
        }
        assert_eq!(unsafe { cell.get() }, 1);
        writer.join().unwrap();
    });
    assert!(report.is_empty(), "{report}");
}

/// `update` and `try_update` (std 1.95) give std's results, in both builds.
#[test]
fn update_and_try_update_compute_what_std_computes() {
    let ours = AtomicU32::new(5);
    let theirs = std_atomic::AtomicU32::new(5);
    both!(ours, theirs, update(Ordering::AcqRel, Ordering::Acquire, |x| x * 3));
    both!(ours, theirs, try_update(Ordering::Release, Ordering::Relaxed, |x| x.checked_sub(20)));
    both!(ours, theirs, try_update(Ordering::SeqCst, Ordering::SeqCst, |x| Some(x + 1)));
    both!(ours, theirs, load(Ordering::Relaxed));
}
