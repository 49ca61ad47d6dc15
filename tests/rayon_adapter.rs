//! `racer::rayon`: every closure handed to rayon runs as a task forked from its caller and
//! joined when the call that runs it returns. For each call: a correct program (the caller
//! writes a cell, the closures read it, the caller writes it again after the call) with no
//! report in 10 runs, and its racy twin (two closures of one call write the same cell)
//! reported in each of 10 runs, inside the `racer::check` that started the work although it
//! ran on rayon's workers, with both sites and both tasks' names.
//!
//! Without `race-detect`, `racer::rayon` is rayon itself (the last test).
#![cfg(feature = "rayon")]

#[cfg(feature = "race-detect")]
mod sync_support;

#[cfg(feature = "race-detect")]
mod detect {
    use racer::rayon::prelude::*;
    use racer::sync::mpsc;
    use racer::{AccessKind, RaceKind, Report, Shared};

    use super::sync_support::{assert_no_race, read, write, Site};

    const RUNS: usize = 10;

    /// The report holds one race, write against write, between the accesses at `a` and `b` (in
    /// either order: the closures run in parallel) by the tasks of those names.
    fn assert_write_race(report: &Report, a: (&str, Site), b: (&str, Site)) {
        assert_eq!(report.len(), 1, "expected exactly one race, got:\n{report}");
        let race = &report.races()[0];
        assert_eq!(race.kind(), RaceKind::Output, "{report}");
        let mut seen = Vec::new();
        for access in [race.previous(), race.current()] {
            assert_eq!(access.kind(), AccessKind::Write, "{report}");
            seen.push((access.thread_name().map(str::to_owned), access.location()));
        }
        let want = |(name, site): (&str, Site)| (Some(name.to_owned()), site);
        assert!(
            seen == [want(a), want(b)] || seen == [want(b), want(a)],
            "expected {a:?} and {b:?}, got {seen:?}:\n{report}"
        );
    }

    /// The caller writes, `run` hands the cell to closures that read it, the caller writes again.
    fn handed_over(run: impl Fn(&Shared<u64>)) {
        for _ in 0..RUNS {
            let report = racer::check(|| {
                let cell = Shared::new(0u64);
                write(&cell, 1);
                run(&cell);
                write(&cell, 2);
            });
            assert_no_race(&report);
        }
    }

    /// `race` runs two closures of one call, each writing the cell; returns the two sites.
    fn raced(names: (&str, &str), race: impl Fn(&Shared<u64>) -> (Site, Site)) {
        for _ in 0..RUNS {
            let mut sites = None;
            let report = racer::check(|| {
                let cell = Shared::new(0u64);
                sites = Some(race(&cell));
            });
            let (a, b) = sites.unwrap();
            assert_write_race(&report, (names.0, a), (names.1, b));
        }
    }

    #[test]
    fn join_orders_both_closures_between_the_callers_accesses() {
        handed_over(|cell| {
            let (a, b) = racer::rayon::join(|| read(cell).0, || read(cell).0);
            assert_eq!((a, b), (1, 1));
        });
    }

    #[test]
    fn join_reports_its_two_closures_writing_one_cell() {
        raced(("rayon::join oper_a", "rayon::join oper_b"), |cell| {
            racer::rayon::join(|| write(cell, 1), || write(cell, 2))
        });
    }

    #[test]
    fn join_context_orders_and_reports_as_join() {
        handed_over(|cell| {
            racer::rayon::join_context(|_| read(cell), |_| read(cell));
        });
        raced(("rayon::join oper_a", "rayon::join oper_b"), |cell| {
            racer::rayon::join_context(|_| write(cell, 1), |_| write(cell, 2))
        });
    }

    #[test]
    fn nested_joins_are_ordered_by_their_own_joins() {
        handed_over(|cell| {
            racer::rayon::join(
                || {
                    write(cell, 3);
                    racer::rayon::join(|| read(cell), || read(cell));
                    write(cell, 4);
                },
                || (),
            );
        });
    }

    #[test]
    fn scope_orders_its_op_and_spawned_bodies_between_the_callers_accesses() {
        handed_over(|cell| {
            racer::rayon::scope(|s| {
                read(cell);
                s.spawn(|_| {
                    read(cell);
                });
                s.spawn(|s| {
                    read(cell);
                    s.spawn(|_| {
                        read(cell);
                    });
                });
            });
        });
    }

    #[test]
    fn scope_reports_two_spawned_bodies_writing_one_cell() {
        raced(("rayon::Scope::spawn", "rayon::Scope::spawn"), |cell| {
            let (mut a, mut b) = (None, None);
            racer::rayon::scope(|s| {
                s.spawn(|_| a = Some(write(cell, 1)));
                s.spawn(|_| b = Some(write(cell, 2)));
            });
            (a.unwrap(), b.unwrap())
        });
    }

    #[test]
    fn a_body_spawned_by_a_body_is_ordered_after_what_its_spawner_did_before() {
        handed_over(|cell| {
            racer::rayon::scope(|s| {
                s.spawn(|s| {
                    write(cell, 5);
                    s.spawn(|_| {
                        read(cell);
                    });
                });
            });
        });
    }

    #[test]
    fn in_place_and_fifo_scopes_order_and_report_as_scope() {
        handed_over(|cell| {
            racer::rayon::in_place_scope(|s| {
                s.spawn(|_| {
                    read(cell);
                });
                read(cell);
            });
            racer::rayon::scope_fifo(|s| {
                s.spawn_fifo(|_| {
                    read(cell);
                });
            });
            racer::rayon::in_place_scope_fifo(|s| {
                s.spawn_fifo(|_| {
                    read(cell);
                });
            });
        });
        raced(("rayon::ScopeFifo::spawn_fifo", "rayon::ScopeFifo::spawn_fifo"), |cell| {
            let (mut a, mut b) = (None, None);
            racer::rayon::in_place_scope_fifo(|s| {
                s.spawn_fifo(|_| a = Some(write(cell, 1)));
                s.spawn_fifo(|_| b = Some(write(cell, 2)));
            });
            (a.unwrap(), b.unwrap())
        });
    }

    #[test]
    fn spawn_is_ordered_after_the_spawner_and_before_what_it_sends() {
        for _ in 0..RUNS {
            let report = racer::check(|| {
                let cell = racer::sync::Arc::new(Shared::new(0u64));
                write(&cell, 1);
                let (tx, rx) = mpsc::channel();
                let c = cell.clone();
                racer::rayon::spawn(move || {
                    read(&c);
                    write(&c, 2);
                    drop(c);
                    tx.send(()).unwrap();
                });
                rx.recv().unwrap();
                write(&cell, 3);
            });
            assert_no_race(&report);
        }
    }

    const ITER: &str = "rayon parallel iterator";

    /// Two items: rayon always splits them into two pieces (two tasks), whatever its pool.
    const TWO: [u64; 2] = [1, 2];

    /// `race` runs a parallel iterator over `TWO` whose closures each write the cell and give
    /// their site to `site`.
    fn iter_raced(race: impl Fn(&Shared<u64>, &(dyn Fn(Site) + Sync))) {
        for _ in 0..RUNS {
            let sites = std::sync::Mutex::new(Vec::new());
            let report = racer::check(|| {
                let cell = Shared::new(0u64);
                race(&cell, &|site| sites.lock().unwrap().push(site));
            });
            let sites = sites.into_inner().unwrap();
            assert_eq!(sites.len(), 2);
            assert_write_race(&report, (ITER, sites[0]), (ITER, sites[1]));
        }
    }

    #[test]
    fn par_iter_for_each_orders_its_closures_between_the_callers_accesses() {
        handed_over(|cell| {
            TWO.par_iter().for_each(|_| {
                read(cell);
            });
            (0..100u64).into_par_iter().for_each(|_| {
                read(cell);
            });
        });
    }

    /// `chain` drives its halves inside rayon's own `join`, where nobody racer sees waits: their
    /// closures are not checked (a report against the caller would be false), and the caller's
    /// accesses around the call race with nothing.
    #[test]
    fn chain_is_no_false_report() {
        handed_over(|cell| {
            (0..50u64).into_par_iter().chain(50..100u64).for_each(|_| {
                read(cell);
            });
            let seen: Vec<u64> = TWO.par_iter().chain(TWO.par_iter()).map(|v| read(cell).0 + v).collect();
            assert_eq!(seen, vec![2, 3, 2, 3]);
        });
    }

    #[test]
    fn par_iter_for_each_reports_two_items_writing_one_cell() {
        iter_raced(|cell, site| TWO.par_iter().for_each(|v| site(write(cell, *v))));
    }

    #[test]
    fn map_collect_orders_its_closures_between_the_callers_accesses() {
        handed_over(|cell| {
            let seen: Vec<u64> = TWO.par_iter().map(|v| read(cell).0 + v).collect();
            assert_eq!(seen, vec![2, 3]);
            let seen: Vec<u64> = (0..100u64).into_par_iter().map(|v| read(cell).0 + v).filter(|v| v % 2 == 0).collect();
            assert_eq!(seen.len(), 50);
        });
    }

    #[test]
    fn map_collect_reports_two_items_writing_one_cell() {
        iter_raced(|cell, site| {
            let sites: Vec<Site> = TWO.par_iter().map(|v| write(cell, *v)).collect();
            sites.into_iter().for_each(site);
        });
    }

    #[test]
    fn sum_and_reduce_order_their_closures_between_the_callers_accesses() {
        handed_over(|cell| {
            let sum: u64 = TWO.par_iter().map(|v| read(cell).0 * v).sum();
            assert_eq!(sum, 3);
            let max = (0..100u64).into_par_iter().map(|v| v + read(cell).0).reduce(
                || 0,
                |a, b| {
                    read(cell);
                    a.max(b)
                },
            );
            assert_eq!(max, 100);
        });
    }

    #[test]
    fn sum_and_reduce_report_two_items_writing_one_cell() {
        iter_raced(|cell, site| {
            let sum: u64 = TWO
                .par_iter()
                .map(|v| {
                    site(write(cell, *v));
                    *v
                })
                .sum();
            assert_eq!(sum, 3);
        });
        iter_raced(|cell, site| {
            let sum = TWO.par_iter().copied().reduce(
                || 0,
                |a, b| {
                    // A piece's fold (`a` its identity); not the reduction of the two.
                    if a == 0 {
                        site(write(cell, b));
                    }
                    a + b
                },
            );
            assert_eq!(sum, 3);
        });
    }

    #[test]
    fn a_reduction_is_ordered_after_the_pieces_it_reduces() {
        for _ in 0..RUNS {
            let report = racer::check(|| {
                let cells: Vec<Shared<u64>> = (0..64).map(|_| Shared::new(0)).collect();
                let total = cells
                    .par_iter()
                    .map(|c| {
                        write(c, 1);
                        c
                    })
                    .map(|c| read(c).0)
                    .reduce_with(|a, b| a + b);
                assert_eq!(total, Some(64));
                let last = cells.par_iter().map(|c| {
                    write(c, 2);
                    c
                });
                let joined = last.reduce_with(|a, b| {
                    read(a);
                    read(b);
                    a
                });
                assert!(joined.is_some());
            });
            assert_no_race(&report);
        }
    }

    #[test]
    fn enumerate_and_zip_run_their_leaves_as_tasks() {
        handed_over(|cell| {
            TWO.par_iter().enumerate().for_each(|(_, _)| {
                read(cell);
            });
            let sums: Vec<u64> = TWO.par_iter().zip(TWO.par_iter()).map(|(a, b)| a + b + read(cell).0).collect();
            assert_eq!(sums, vec![3, 5]);
        });
        iter_raced(|cell, site| TWO.par_iter().enumerate().for_each(|(_, v)| site(write(cell, *v))));
        iter_raced(|cell, site| TWO.par_iter().zip(TWO.par_iter()).for_each(|(v, _)| site(write(cell, *v))));
    }

    #[test]
    fn par_iter_mut_and_chunks_order_their_closures() {
        handed_over(|cell| {
            let mut values = vec![0u64; 8];
            values.par_iter_mut().for_each(|v| *v = read(cell).0);
            values.par_chunks_mut(3).for_each(|c| c[0] += read(cell).0);
            let sums: Vec<u64> = values.par_chunks(2).map(|c| c.iter().sum::<u64>() + read(cell).0).collect();
            assert_eq!(sums, vec![4, 4, 3, 4]);
        });
    }

    #[test]
    fn a_parallel_iterator_inside_a_pool_reports_into_the_callers_check() {
        let pool = pool();
        iter_raced(|cell, site| pool.install(|| TWO.par_iter().for_each(|v| site(write(cell, *v)))));
    }

    /// An iterator handing out the items of `inner` but receiving two at a time: the second is
    /// kept for its next call (which rayon may make on another worker).
    struct Pairs<I: Iterator> {
        inner: I,
        kept: Option<I::Item>,
    }

    impl<I: Iterator> Iterator for Pairs<I> {
        type Item = I::Item;

        fn next(&mut self) -> Option<I::Item> {
            if let Some(kept) = self.kept.take() {
                return Some(kept);
            }
            let item = self.inner.next()?;
            self.kept = self.inner.next();
            Some(item)
        }
    }

    /// `par_bridge` over a channel's receiver: a thread writes each cell and sends it, the
    /// bridged iterator's `next` receives it (rayon calls it on a worker, between two items of a
    /// piece, outside the closures' tasks) and the closure given the item reads it, the
    /// receive ordering the read; an item received by one call and handed out by the next
    /// (`Pairs`, perhaps on another worker) too. 0 reports in 10 runs each.
    #[test]
    fn par_bridge_orders_what_its_iterator_received_before_the_items_closure() {
        type Cell = std::sync::Arc<Shared<u64>>;
        fn written_and_sent() -> (racer::thread::JoinHandle<()>, mpsc::Receiver<Cell>) {
            let (tx, rx) = mpsc::channel::<Cell>();
            let producer = racer::thread::spawn(move || {
                for i in 0..64 {
                    let cell = Cell::default();
                    write(&cell, i);
                    tx.send(cell).unwrap();
                }
            });
            (producer, rx)
        }
        for _ in 0..RUNS {
            let report = racer::check(|| {
                let (producer, rx) = written_and_sent();
                rx.into_iter().par_bridge().for_each(|cell| {
                    read(&cell);
                });
                producer.join().unwrap();
                let (producer, rx) = written_and_sent();
                Pairs { inner: rx.into_iter(), kept: None }.par_bridge().for_each(|cell| {
                    read(&cell);
                });
                producer.join().unwrap();
            });
            assert_no_race(&report);
        }
    }

    #[test]
    fn other_consuming_calls_and_sources_order_their_closures() {
        handed_over(|cell| {
            let _: u64 = (0..100u64).into_par_iter().fold(|| read(cell).0, |a, b| a + b).sum();
            (0..100u64).into_par_iter().for_each_init(
                || read(cell).0,
                |_, _| {
                    read(cell);
                },
            );
            let found = (0..100u64).into_par_iter().find_any(|x| read(cell).0 + x == 51);
            assert_eq!(found, Some(50));
            (0..10u64).into_par_iter().flat_map(|i| (0..i).into_par_iter()).for_each(|_| {
                read(cell);
            });
            (0..10u64).into_par_iter().for_each(|_| {
                (0..10u64).into_par_iter().for_each(|_| {
                    read(cell);
                })
            });
            (0..10u64).par_bridge().for_each(|_| {
                read(cell);
            });
            let text = "a,b;c d\ne";
            assert_eq!(text.par_split(',').map(|w| w.len() as u64 + read(cell).0).sum::<u64>(), 10);
            assert_eq!(text.par_split(|c: char| c == ';' || c == ',').count(), 3);
            assert_eq!(text.par_split_terminator(&[',', ';'][..]).count(), 3);
            assert_eq!(text.par_matches(['a', 'e']).count(), 2);
            assert_eq!(text.par_match_indices(&['b']).map(|(i, _)| i).collect::<Vec<_>>(), vec![2]);
            assert_eq!(text.par_lines().count() + text.par_split_whitespace().count(), 5);
            text.par_chars().for_each(|_| {
                read(cell);
            });
            let v = vec![1u64; 100];
            v.par_chunks(7).zip(v.par_iter()).enumerate().for_each(|_| {
                read(cell);
            });
        });
    }

    #[test]
    fn pools_built_with_a_spawn_handler_or_scoped_order_install() {
        let pool = racer::rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .spawn_handler(|thread| {
                std::thread::spawn(|| thread.run());
                Ok(())
            })
            .build()
            .unwrap();
        handed_over(|cell| {
            pool.install(|| read(cell));
        });
        racer::rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build_scoped(
                |thread| thread.run(),
                |pool| handed_over(|cell| assert_eq!(pool.install(|| read(cell).0), 1)),
            )
            .unwrap();
    }

    #[test]
    fn sorts_order_their_comparisons_between_the_callers_accesses() {
        handed_over(|cell| {
            // Longer than rayon's sequential cut-offs, and shuffled (a sorted or reversed run is
            // taken whole): the comparisons run on its workers.
            let shuffled = || (0..5000u64).map(|i| (i * 7919) % 5000).collect::<Vec<u64>>();
            let mut values = shuffled();
            values.par_sort_by(|a, b| {
                read(cell);
                a.cmp(b)
            });
            assert!(values.windows(2).all(|w| w[0] <= w[1]));
            values = shuffled();
            values.par_sort_unstable_by_key(|v| v + read(cell).0);
            assert!(values.windows(2).all(|w| w[0] <= w[1]));
            values = shuffled();
            values.par_sort_by_cached_key(|v| v * read(cell).0);
            assert!(values.windows(2).all(|w| w[0] <= w[1]));
        });
    }

    /// rayon used directly, on a pool of rayon's own builder: the worker is a thread racer did
    /// not start, and the report's hint names the adapter. (The workers of racer's pools, the
    /// global one included once racer built it, ignore what they do outside racer's tasks.)
    #[test]
    fn a_race_through_rayon_itself_is_hinted_at_racer_rayon() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let report = racer::check(|| {
            let (cell, ()) = pool.join(
                || {
                    let cell = Shared::new(0u64);
                    write(&cell, 1);
                    cell
                },
                || (),
            );
            write(&cell, 2);
        });
        assert_eq!(report.len(), 1, "{report}");
        let hints = report.races()[0].hints();
        assert!(
            hints.iter().any(|h| h.contains("is a rayon worker") && h.contains("from racer::rayon instead of rayon")),
            "{hints:?}"
        );
    }

    /// On racer's pools rayon's own jobs are not checked: closures given to rayon's API itself
    /// race with nothing (no false report against the caller), closures given to racer's still
    /// do.
    #[test]
    fn rayons_own_jobs_on_racers_pools_are_not_checked() {
        let pool = pool();
        handed_over(|cell| {
            pool.install(|| rayon::join(|| read(cell), || read(cell)));
            racer::rayon::join(|| rayon::join(|| read(cell), || read(cell)), || read(cell));
        });
        // racer's join inside a job rayon forked by itself: unchecked where the job is (stolen
        // by another worker), checked as the install's task where it is not.
        handed_over(|cell| {
            pool.install(|| rayon::join(|| (), || racer::rayon::join(|| read(cell), || read(cell))));
        });
    }

    fn pool() -> racer::rayon::ThreadPool {
        racer::rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap()
    }

    #[test]
    fn thread_pool_install_orders_its_op_between_the_callers_accesses() {
        let pool = pool();
        handed_over(|cell| {
            let v = pool.install(|| {
                let (v, _) = read(cell);
                racer::rayon::join(|| read(cell), || read(cell));
                v
            });
            assert_eq!(v, 1);
        });
    }

    #[test]
    fn thread_pool_install_reports_a_race_inside_the_check_that_installed_it() {
        let pool = pool();
        // On a worker, join's first closure runs as its caller (here the install's task).
        raced(("rayon::ThreadPool::install", "rayon::join oper_b"), |cell| {
            pool.install(|| racer::rayon::join(|| write(cell, 1), || write(cell, 2)))
        });
        raced(("rayon::ThreadPool::install", "rayon::join oper_b"), |cell| {
            let mut a = None;
            let ((), b) = racer::rayon::join(|| a = Some(pool.install(|| write(cell, 1))), || write(cell, 2));
            (a.unwrap(), b)
        });
    }

    #[test]
    fn thread_pool_join_scope_and_broadcast_order_and_report() {
        let pool = pool();
        handed_over(|cell| {
            pool.join(|| read(cell), || read(cell));
            pool.scope(|s| {
                s.spawn(|_| {
                    read(cell);
                });
            });
            pool.in_place_scope(|s| {
                s.spawn(|_| {
                    read(cell);
                });
            });
            let seen = pool.broadcast(|_| read(cell).0);
            assert_eq!(seen, vec![1, 1]);
        });
        raced(("rayon::join oper_a", "rayon::join oper_b"), |cell| pool.join(|| write(cell, 1), || write(cell, 2)));
        raced(("rayon::broadcast", "rayon::broadcast"), |cell| {
            let sites = pool.broadcast(|cx| write(cell, cx.index() as u64));
            (sites[0], sites[1])
        });
    }
}

/// Without `race-detect`, `racer::rayon`'s items are rayon's own: this compiles only then.
#[cfg(not(feature = "race-detect"))]
#[test]
fn without_race_detect_racer_rayon_is_rayon() {
    use racer::rayon::prelude::*;

    let pool: rayon::ThreadPool = racer::rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    type Op = fn() -> u8;
    let _: fn(Op, Op) -> (u8, u8) = racer::rayon::join::<Op, Op, u8, u8>;
    let _: rayon::slice::Iter<'_, u8> = [1u8, 2].par_iter();
    let sum: u32 = pool.install(|| [1u32, 2, 3].par_iter().sum());
    assert_eq!(sum, 6);
    racer::rayon::scope(|s: &rayon::Scope<'_>| s.spawn(|_| ()));
}
