//! `racer::once_cell`: with `race-detect`, `sync::{OnceCell, Lazy}` order their initialiser
//! before every reader (a cell written inside the initialiser and read after `get`/a deref is
//! no race, 10 runs of 10), and a cell written after the initialisation is (10 of 10, at both
//! lines, with both threads' names). Without the feature, `racer::once_cell` is once_cell's own
//! items. Both builds: every method of the two types, and statics built in constant contexts.
//!
//! As in the `sync` tests, where the reader must come after the initialiser in time, the
//! threads hand over with `std::sync::mpsc` (invisible to racer).
#![cfg(feature = "once_cell")]

mod sync_support;

use racer::once_cell::sync::{Lazy, OnceCell};

/// Statics, as users write them: `new` and `with_value` are `const fn`.
static GLOBAL_CELL: OnceCell<u64> = OnceCell::new();
static GLOBAL_VALUE: OnceCell<u64> = OnceCell::with_value(5);
static GLOBAL_LAZY: Lazy<Vec<u64>> = Lazy::new(|| vec![1, 2, 3]);

#[test]
fn statics_and_every_method_behave_as_once_cells() {
    assert_eq!(GLOBAL_CELL.get_or_init(|| 7), &7);
    assert_eq!(GLOBAL_CELL.get(), Some(&7));
    assert_eq!(GLOBAL_VALUE.get(), Some(&5));
    assert_eq!(GLOBAL_LAZY.len(), 3);
    assert_eq!(Lazy::get(&GLOBAL_LAZY), Some(&vec![1, 2, 3]));

    let mut cell: OnceCell<String> = OnceCell::default();
    assert!(cell.get().is_none());
    assert_eq!(format!("{cell:?}"), "OnceCell(Uninit)");
    assert_eq!(cell.set("a".to_string()), Ok(()));
    assert_eq!(cell.set("b".to_string()), Err("b".to_string()));
    assert_eq!(cell.try_insert("c".to_string()), Err((&"a".to_string(), "c".to_string())));
    assert_eq!(cell.wait(), "a");
    // SAFETY: the cell was set above.
    assert_eq!(unsafe { cell.get_unchecked() }, "a");
    assert_eq!(format!("{cell:?}"), "OnceCell(\"a\")");
    cell.get_mut().unwrap().push('!');
    let copy = cell.clone();
    assert_eq!(copy, cell);
    let mut other = OnceCell::from("x".to_string());
    other.clone_from(&cell);
    assert_eq!(other.get().map(String::as_str), Some("a!"));
    assert_eq!(cell.take(), Some("a!".to_string()));
    assert_eq!(cell.take(), None);
    assert_eq!(cell.get_or_try_init(|| Err::<String, u8>(3)), Err(3));
    assert_eq!(cell.get_or_try_init(|| Ok::<String, u8>("ok".into())).map(String::as_str), Ok("ok"));
    assert_eq!(cell.into_inner(), Some("ok".to_string()));
    assert_eq!(OnceCell::<u8>::new().into_inner(), None);
    let inserted = OnceCell::new();
    assert_eq!(inserted.try_insert(4u8), Ok(&4));

    let mut lazy: Lazy<u64> = Lazy::new(|| 41);
    assert_eq!(Lazy::get(&lazy), None);
    assert_eq!(Lazy::get_mut(&mut lazy), None);
    *Lazy::force_mut(&mut lazy) += 1;
    assert_eq!(*lazy, 42);
    *lazy += 1;
    assert_eq!(Lazy::force(&lazy), &43);
    assert_eq!(format!("{lazy:?}"), "Lazy { cell: OnceCell(43), init: \"..\" }");
    assert_eq!(Lazy::into_value(lazy).ok(), Some(43));
    let unforced = Lazy::<u64, _>::new(|| 1);
    assert!(Lazy::into_value(unforced).is_err());
    let default: Lazy<Vec<u8>> = Lazy::default();
    assert!(default.is_empty());

    // once_cell's other modules, re-exported.
    let local = racer::once_cell::unsync::OnceCell::new();
    assert_eq!(local.get_or_init(|| 1u8), &1);
    let racy = racer::once_cell::race::OnceBox::<u8>::new();
    assert_eq!(racy.get_or_init(|| Box::new(2)), &2);
}

fn assert_send_sync<T: Send + Sync>() {}
fn assert_unwind_safe<T: std::panic::RefUnwindSafe + std::panic::UnwindSafe>() {}

#[test]
fn the_cells_keep_the_crates_auto_traits() {
    assert_send_sync::<OnceCell<u64>>();
    assert_send_sync::<Lazy<u64>>();
    assert_unwind_safe::<OnceCell<u64>>();
    assert_unwind_safe::<Lazy<u64>>();
}

#[cfg(not(feature = "race-detect"))]
#[test]
fn without_race_detect_the_module_is_once_cells_own() {
    let _: once_cell::sync::OnceCell<u8> = racer::once_cell::sync::OnceCell::new();
    let _: once_cell::sync::Lazy<u8> = racer::once_cell::sync::Lazy::new(|| 1);
    let _: once_cell::unsync::OnceCell<u8> = racer::once_cell::unsync::OnceCell::new();
}

#[cfg(feature = "race-detect")]
mod detect {
    use std::sync::mpsc as std_mpsc;

    use racer::once_cell::sync::{Lazy, OnceCell};
    use racer::sync::Arc;
    use racer::{RaceKind, Report, Shared};

    use super::sync_support::{assert_no_race, assert_one_race, named, read, write, Site};

    const RUNS: usize = 10;

    /// A value kept alive until the end of its thread.
    type Keep = Box<dyn std::any::Any + Send>;

    /// Thread "init" initialises a cell (`get_or_init`, or the first deref of a `Lazy`) and
    /// writes a `Shared` cell inside the initialiser (`inside`) or just after it; then, in time
    /// only, thread "reader" reads the value and the `Shared` cell. Returns the report and the
    /// sites of the write and of the read.
    fn hand_over(lazy: bool, inside: bool) -> (Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let written = Arc::new(std::sync::Mutex::new(None::<Site>));
            let (d, w) = (data.clone(), written.clone());
            let init = move || {
                if inside {
                    *w.lock().unwrap() = Some(write(&d, 42));
                }
                7u64
            };
            let (ready, wait) = std_mpsc::channel::<()>();
            // Each side gives back its clone of the cell's `Arc`, dropped at the end of its
            // thread: a drop of racer's `Arc` orders, and must not come between the write and
            // the read.
            let reader_side: Box<dyn FnOnce() -> (u64, Keep) + Send>;
            let init_side: Box<dyn FnOnce() -> (u64, Keep) + Send>;
            if lazy {
                let value: Arc<Lazy<u64, Box<dyn FnOnce() -> u64 + Send>>> = Arc::new(Lazy::new(Box::new(init)));
                let v = value.clone();
                init_side = Box::new(move || (**v, Box::new(v)));
                reader_side = Box::new(move || (*Lazy::get(&value).unwrap(), Box::new(value)));
            } else {
                let value = Arc::new(OnceCell::new());
                let v = value.clone();
                init_side = Box::new(move || (*v.get_or_init(init), Box::new(v)));
                reader_side = Box::new(move || (*value.get().unwrap(), Box::new(value)));
            }
            let (d, w) = (data.clone(), written.clone());
            let initialiser = named("init", move || {
                let (value, _keep) = init_side();
                assert_eq!(value, 7);
                if !inside {
                    *w.lock().unwrap() = Some(write(&d, 42));
                }
                ready.send(()).unwrap();
            });
            let d = data.clone();
            let reader = named("reader", move || {
                wait.recv().unwrap();
                let (value, _keep) = reader_side();
                assert_eq!(value, 7);
                let (v, site) = read(&d);
                assert_eq!(v, 42);
                site
            });
            initialiser.join().unwrap();
            let read_at = reader.join().unwrap();
            sites = Some((written.lock().unwrap().unwrap(), read_at));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    #[test]
    fn once_cell_orders_its_initialiser_before_every_reader() {
        for _ in 0..RUNS {
            let (report, _, _) = hand_over(false, true);
            assert_no_race(&report);
        }
    }

    #[test]
    fn once_cell_a_write_after_the_initialisation_is_a_race() {
        for _ in 0..RUNS {
            let (report, w, r) = hand_over(false, false);
            assert_one_race(&report, RaceKind::Flow, ("init", w), ("reader", r));
        }
    }

    #[test]
    fn lazy_orders_its_initialiser_before_every_reader() {
        for _ in 0..RUNS {
            let (report, _, _) = hand_over(true, true);
            assert_no_race(&report);
        }
    }

    #[test]
    fn lazy_a_write_after_the_initialisation_is_a_race() {
        for _ in 0..RUNS {
            let (report, w, r) = hand_over(true, false);
            assert_one_race(&report, RaceKind::Flow, ("init", w), ("reader", r));
        }
    }

    /// Several readers, each forcing a `Lazy` whose initialiser writes the cell: whichever runs
    /// it, the others read after it (the value's clock), with no ordering in time at all.
    #[test]
    fn lazy_forced_by_many_threads_is_no_race() {
        for _ in 0..RUNS {
            let report = racer::check(|| {
                let data = Arc::new(Shared::new(0u64));
                let d = data.clone();
                let f: Box<dyn FnOnce() -> u64 + Send> = Box::new(move || {
                    write(&d, 42);
                    1
                });
                let value = Arc::new(Lazy::new(f));
                let readers: Vec<_> = (0..3)
                    .map(|i| {
                        let (v, d) = (value.clone(), data.clone());
                        named(&format!("reader {i}"), move || {
                            assert_eq!(**v, 1);
                            assert_eq!(read(&d).0, 42);
                        })
                    })
                    .collect();
                for r in readers {
                    r.join().unwrap();
                }
            });
            assert_no_race(&report);
        }
    }
}
