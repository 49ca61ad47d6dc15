//! `racer::sync::{Once, OnceLock, LazyLock}`: std's behaviour (both builds); the completed
//! initialisation happens before every observer of it, and nothing done after it is published
//! (detector build).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use racer::sync::{Arc, LazyLock, Once, OnceLock};
use racer::thread;

static ONCE: Once = Once::new();
static CELL: OnceLock<String> = OnceLock::new();
static LAZY: LazyLock<Vec<u32>> = LazyLock::new(|| vec![1, 2, 3]);
static RUNS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn once_runs_its_closure_once() {
    let handles: Vec<_> = (0..4)
        .map(|_| {
            thread::spawn(|| {
                ONCE.call_once(|| {
                    RUNS.fetch_add(1, Ordering::SeqCst);
                })
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
    assert!(ONCE.is_completed());

    let poisoned = Once::new();
    assert!(catch_unwind(AssertUnwindSafe(|| poisoned.call_once(|| panic!("first try fails")))).is_err());
    assert!(!poisoned.is_completed());
    let mut saw_poison = false;
    poisoned.call_once_force(|state| saw_poison = state.is_poisoned());
    assert!(saw_poison && poisoned.is_completed());
}

#[test]
fn once_lock_behaves_as_std() {
    assert_eq!(CELL.get_or_init(|| "first".into()), "first");
    assert_eq!(CELL.set("second".into()), Err("second".to_string()));
    assert_eq!(CELL.get().map(String::as_str), Some("first"));

    let mut cell: OnceLock<u8> = OnceLock::default();
    assert_eq!(cell.get(), None);
    assert_eq!(cell.set(4), Ok(()));
    *cell.get_mut().unwrap() += 1;
    assert_eq!(cell.clone().into_inner(), Some(5));
    assert_eq!(cell, OnceLock::from(5));
    assert_eq!(format!("{cell:?}"), format!("{:?}", std::sync::OnceLock::from(5u8)));
    assert_eq!(cell.take(), Some(5));
    assert_eq!(cell.get(), None);
}

#[test]
fn lazy_lock_behaves_as_std() {
    assert_eq!(LAZY.len(), 3);
    assert_eq!(LazyLock::force(&LAZY)[2], 3);
    let calls = AtomicUsize::new(0);
    let lazy = LazyLock::new(|| calls.fetch_add(1, Ordering::SeqCst) + 10);
    assert_eq!(format!("{lazy:?}"), "LazyLock(<uninit>)");
    assert_eq!((*lazy, *lazy), (10, 10));
    assert_eq!(format!("{lazy:?}"), "LazyLock(10)");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(*LazyLock::<u32>::default(), 0);

    let failing: LazyLock<u32> = LazyLock::new(|| panic!("init fails"));
    assert!(catch_unwind(AssertUnwindSafe(|| *failing)).is_err());
    let again = catch_unwind(AssertUnwindSafe(|| *failing)).unwrap_err();
    assert_eq!(again.downcast_ref::<&str>(), Some(&"LazyLock instance has previously been poisoned"));
}

#[test]
fn once_lock_get_or_init_races_to_one_value() {
    let cell = Arc::new(OnceLock::new());
    let handles: Vec<_> = (0..4u32)
        .map(|i| {
            let cell = cell.clone();
            thread::spawn(move || *cell.get_or_init(|| i))
        })
        .collect();
    let seen: Vec<u32> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(seen.iter().all(|v| *v == seen[0]));
}

#[cfg(feature = "race-detect")]
mod races {
    use std::sync::mpsc as std_mpsc;

    use racer::sync::{Arc, LazyLock, Once, OnceLock};
    use racer::{RaceKind, Shared};

    use crate::sync_support::*;

    /// Thread "init" runs `init`; then (in time only) thread "observer" runs `observe`.
    fn init_then_observe(
        init: impl FnOnce() -> Site + Send + 'static,
        observe: impl FnOnce() -> Site + Send + 'static,
    ) -> (Site, Site) {
        let (done, wait) = std_mpsc::channel::<()>();
        let a = named("init", move || {
            let site = init();
            done.send(()).unwrap();
            site
        });
        let b = named("observer", move || {
            wait.recv().unwrap();
            observe()
        });
        (a.join().unwrap(), b.join().unwrap())
    }

    #[test]
    fn once_completion_happens_before_every_observer() {
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let once = Arc::new(Once::new());
            let (d, o) = (data.clone(), once.clone());
            let (d2, o2) = (data.clone(), once.clone());
            init_then_observe(
                move || {
                    let mut site = None;
                    o.call_once(|| site = Some(write(&d, 1)));
                    site.unwrap()
                },
                move || {
                    o2.call_once(|| unreachable!());
                    read(&d2).1
                },
            );
            // Observing through is_completed waits too.
            assert!(once.is_completed());
            read(&data);
        });
        assert_no_race(&report);
    }

    #[test]
    fn a_write_after_call_once_is_not_published() {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let once = Arc::new(Once::new());
            let (d, o) = (data.clone(), once.clone());
            sites = Some(init_then_observe(
                move || {
                    o.call_once(|| {});
                    write(&d, 1)
                },
                move || {
                    once.call_once(|| unreachable!());
                    read(&data).1
                },
            ));
        });
        let (w, r) = sites.unwrap();
        assert_one_race(&report, RaceKind::Flow, ("init", w), ("observer", r));
    }

    #[test]
    fn once_lock_initialisation_happens_before_get() {
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let cell = Arc::new(OnceLock::new());
            let (d, c) = (data.clone(), cell.clone());
            init_then_observe(
                move || {
                    let site = write(&d, 1);
                    c.set(7u8).unwrap();
                    site
                },
                move || {
                    assert_eq!(cell.get(), Some(&7));
                    read(&data).1
                },
            );
        });
        assert_no_race(&report);
    }

    #[test]
    fn a_write_after_once_lock_initialisation_is_not_published() {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let cell = Arc::new(OnceLock::new());
            let (d, c) = (data.clone(), cell.clone());
            sites = Some(init_then_observe(
                move || {
                    c.get_or_init(|| 7u8);
                    write(&d, 1)
                },
                move || {
                    assert_eq!(*cell.get_or_init(|| unreachable!()), 7);
                    read(&data).1
                },
            ));
        });
        let (w, r) = sites.unwrap();
        assert_one_race(&report, RaceKind::Flow, ("init", w), ("observer", r));
    }

    #[test]
    fn lazy_lock_initialisation_happens_before_every_deref() {
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let d = data.clone();
            let lazy: Arc<LazyLock<u64, Box<dyn FnOnce() -> u64 + Send>>> =
                Arc::new(LazyLock::new(Box::new(move || {
                    write(&d, 5);
                    5
                })));
            let (l, d2) = (lazy.clone(), data.clone());
            init_then_observe(
                move || {
                    assert_eq!(**l, 5);
                    read(&d2).1
                },
                move || {
                    assert_eq!(*LazyLock::force(&lazy), 5);
                    read(&data).1
                },
            );
        });
        assert_no_race(&report);
    }

    #[test]
    fn a_write_after_forcing_a_lazy_lock_is_not_published() {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let lazy: Arc<LazyLock<u64>> = Arc::new(LazyLock::new(|| 1));
            let (d, l) = (data.clone(), lazy.clone());
            sites = Some(init_then_observe(
                move || {
                    assert_eq!(**l, 1);
                    write(&d, 1)
                },
                move || {
                    assert_eq!(**lazy, 1);
                    read(&data).1
                },
            ));
        });
        let (w, r) = sites.unwrap();
        assert_one_race(&report, RaceKind::Flow, ("init", w), ("observer", r));
    }
}
