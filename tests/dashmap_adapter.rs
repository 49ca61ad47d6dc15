//! `racer::dashmap`: with `race-detect`, the guards of `DashMap` and `DashSet` order what they
//! guard as racer's `RwLock`'s guards do, per shard: a value written under a write guard
//! (`get_mut`, `entry`, `iter_mut`'s items, `insert`, `alter`'s closure) and read under a read
//! guard (`get`, `iter`'s items, `view`) later is no race (10 runs of 10); the same write made
//! after the guard's drop, through an `Arc` cloned out of the map, is (10 of 10, at both
//! lines, with both threads' names). Without the feature, `racer::dashmap` is dashmap's own
//! items. Both builds: the API, used as dashmap's.
//!
//! As in the `sync` tests, where the reader must come after the writer in time, the threads
//! hand over with `std::sync::mpsc` (invisible to racer): `one_then_other`.
#![cfg(feature = "dashmap")]

mod sync_support;

use racer::dashmap::try_result::TryResult;
use racer::dashmap::{DashMap, DashSet, Entry};

#[test]
fn the_map_and_set_behave_as_dashmaps() {
    let map: DashMap<u32, String> = DashMap::new();
    assert!(map.is_empty());
    assert_eq!(map.insert(1, "a".into()), None);
    assert_eq!(map.insert(1, "b".into()), Some("a".into()));
    assert_eq!(*map.get(&1).unwrap(), "b");
    map.get_mut(&1).unwrap().push('!');
    assert_eq!(map.get(&1).unwrap().value(), "b!");
    assert!(map.contains_key(&1) && !map.contains_key(&2));
    assert_eq!(map.view(&1, |_, v| v.len()), Some(2));
    map.entry(2).or_insert_with(|| "c".to_string());
    map.entry(2).and_modify(|v| v.push('d'));
    assert!(matches!(map.entry(3), Entry::Vacant(_)));
    match map.entry(2) {
        Entry::Occupied(o) => assert_eq!(o.get(), "cd"),
        Entry::Vacant(_) => panic!("2 is there"),
    }
    assert_eq!(map.try_entry(4).map(|e| e.or_default().len()), Some(0));
    assert_eq!(map.len(), 3);
    assert!(matches!(map.try_get(&1), TryResult::Present(_)));
    assert!(matches!(map.try_get_mut(&9), TryResult::Absent));
    {
        let guard = map.get_mut(&1).unwrap();
        assert!(map.try_get(&1).is_locked());
        let read = guard.downgrade();
        assert_eq!(read.pair(), (&1, &"b!".to_string()));
        fn first_byte(s: &String) -> &u8 {
            &s.as_bytes()[0]
        }
        let mapped = read.map(first_byte);
        assert_eq!(mapped.to_string(), "98");
    }
    map.alter(&1, |_, v| v + "?");
    map.alter_all(|_, v| v.to_uppercase());
    for mut item in map.iter_mut() {
        item.value_mut().push('.');
    }
    let mut all: Vec<(u32, String)> = map.iter().map(|r| (*r.key(), r.value().clone())).collect();
    all.sort();
    assert_eq!(all, vec![(1, "B!?.".into()), (2, "CD.".into()), (4, ".".into())]);
    assert_eq!(map.remove_if(&4, |_, v| v.is_empty()), None);
    assert_eq!(map.remove_if_mut(&4, |_, v| v.len() == 1), Some((4, ".".into())));
    assert_eq!(map.remove(&2), Some((2, "CD.".into())));
    map.retain(|k, _| *k == 1);
    assert_eq!(format!("{map:?}"), "{1: \"B!?.\"}");
    let copy = map.clone();
    assert_eq!(copy.get(&1).as_deref(), Some(&"B!?.".to_string()));
    assert!(&map & &1);
    assert_eq!(&map << (5, "e".into()), None);
    assert_eq!(*(&map >> &5), "e");
    (&map | &5).push('f');
    assert_eq!(&map - &5, Some((5, "ef".into())));
    assert!(map.capacity() >= map.len());
    map.shrink_to_fit();
    assert_eq!(map.hash_usize(&1), map.hash_usize(&1));
    assert!(map.determine_map(&1) < 64);
    let _ = map.hasher();
    let view = copy.into_read_only();
    assert_eq!(view.get(&1).map(String::as_str), Some("B!?."));
    assert!(view.contains_key(&1));
    assert_eq!(view.iter().count(), 1);
    let mut back = view.into_inner();
    assert!(back.try_reserve(4).is_ok());
    back.extend([(7, "g".to_string())]);
    let owned: Vec<(u32, String)> = {
        let mut v: Vec<_> = back.into_iter().collect();
        v.sort();
        v
    };
    assert_eq!(owned.len(), 2);
    map.clear();
    assert!(map.is_empty());
    let collected: DashMap<u8, u8> = [(1, 2)].into_iter().collect();
    assert_eq!(*collected.get(&1).unwrap(), 2);
    let sharded: DashMap<u8, u8> = DashMap::with_capacity_and_shard_amount(8, 4);
    assert!(sharded.determine_map(&1) < 4);
    let _: DashMap<u8, u8> = DashMap::default();
    // In a static, as users keep them.
    static GLOBAL: std::sync::LazyLock<DashMap<u32, u32>> = std::sync::LazyLock::new(DashMap::new);
    GLOBAL.insert(1, 2);
    assert_eq!(*GLOBAL.get(&1).unwrap(), 2);

    let mut set: DashSet<u32> = DashSet::new();
    assert!(set.insert(1) && !set.insert(1));
    assert!(set.contains(&1));
    assert_eq!(*set.get(&1).unwrap(), 1);
    assert_eq!(set.iter().map(|k| *k).collect::<Vec<_>>(), vec![1]);
    set.insert(2);
    set.retain(|k| *k == 2);
    assert_eq!(set.remove_if(&2, |_| false), None);
    assert_eq!(set.remove(&2), Some(2));
    set.extend([3, 4]);
    assert_eq!(set.len(), 2);
    assert_eq!(format!("{:?}", DashSet::<u8>::from_iter([9])), "{9: ()}");
    let mut keys: Vec<u32> = set.clone().into_iter().collect();
    keys.sort();
    assert_eq!(keys, vec![3, 4]);
    set.clear();
    assert!(set.is_empty());
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn the_types_keep_the_crates_auto_traits() {
    use racer::dashmap::mapref::{entry, multiple, one};
    assert_send_sync::<DashMap<u32, String>>();
    assert_send_sync::<DashSet<u32>>();
    assert_send_sync::<racer::dashmap::ReadOnlyView<u32, String>>();
    assert_send_sync::<one::Ref<'static, u32, String>>();
    assert_send_sync::<one::RefMut<'static, u32, String>>();
    assert_send_sync::<multiple::RefMulti<'static, u32, String>>();
    assert_send_sync::<multiple::RefMutMulti<'static, u32, String>>();
    assert_send_sync::<entry::Entry<'static, u32, String>>();
    assert_send_sync::<racer::dashmap::iter::Iter<'static, u32, String>>();
    assert_send_sync::<racer::dashmap::iter::IterMut<'static, u32, String>>();
    assert_send_sync::<racer::dashmap::setref::one::Ref<'static, u32>>();
}

#[cfg(not(feature = "race-detect"))]
#[test]
fn without_race_detect_the_module_is_dashmaps_own() {
    let map: dashmap::DashMap<u8, u8> = racer::dashmap::DashMap::new();
    map.insert(1, 2);
    let _: dashmap::mapref::one::Ref<'_, u8, u8> = map.get(&1).unwrap();
    let _: dashmap::DashSet<u8> = racer::dashmap::DashSet::new();
}

#[cfg(feature = "race-detect")]
mod detect {
    use std::sync::Arc;

    use racer::dashmap::{DashMap, DashSet};
    use racer::{RaceKind, Report, Shared};

    use super::sync_support::{assert_no_race, assert_one_race, one_then_other, read, write, Site};

    const RUNS: usize = 10;

    type Map = DashMap<u32, Arc<Shared<u64>>>;

    /// A map holding key 1 (a cell made on the main thread); `first` runs on thread "first",
    /// then, in time only, `second` on "second". Each returns the site of its access.
    fn hand_over(
        first: impl FnOnce(&Map) -> Site + Send + 'static,
        second: impl FnOnce(&Map) -> Site + Send + 'static,
    ) -> (Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let map = Arc::new(Map::new());
            map.insert(1, Arc::new(Shared::new(0)));
            let (a, b) = (map.clone(), map.clone());
            sites = Some(one_then_other(move || first(&a), move || second(&b)));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    fn no_race_in_each_run(
        first: impl Fn(&Map) -> Site + Send + Sync + Clone + 'static,
        second: impl Fn(&Map) -> Site + Send + Sync + Clone + 'static,
    ) {
        for _ in 0..RUNS {
            let (report, _, _) = hand_over(first.clone(), second.clone());
            assert_no_race(&report);
        }
    }

    fn flow_race_in_each_run(
        first: impl Fn(&Map) -> Site + Send + Sync + Clone + 'static,
        second: impl Fn(&Map) -> Site + Send + Sync + Clone + 'static,
    ) {
        for _ in 0..RUNS {
            let (report, w, r) = hand_over(first.clone(), second.clone());
            assert_one_race(&report, RaceKind::Flow, ("first", w), ("second", r));
        }
    }

    /// The reader's side: a read under `get`'s guard.
    fn read_under_get(map: &Map) -> Site {
        let guard = map.get(&1).unwrap();
        let (v, site) = read(&guard);
        assert_eq!(v, 42);
        site
    }

    #[test]
    fn get_mut_then_get_is_no_race() {
        no_race_in_each_run(
            |map| {
                let guard = map.get_mut(&1).unwrap();
                write(&guard, 42)
            },
            read_under_get,
        );
    }

    #[test]
    fn a_write_after_the_get_mut_guard_is_a_race() {
        flow_race_in_each_run(
            |map| {
                let cell = map.get_mut(&1).unwrap().clone();
                write(&cell, 42)
            },
            read_under_get,
        );
    }

    #[test]
    fn insert_then_get_is_no_race() {
        no_race_in_each_run(
            |map| {
                let cell = Arc::new(Shared::new(0));
                let site = write(&cell, 42);
                map.insert(1, cell);
                site
            },
            read_under_get,
        );
    }

    #[test]
    fn a_write_after_insert_is_a_race() {
        flow_race_in_each_run(
            |map| {
                let cell = Arc::new(Shared::new(0));
                map.insert(1, cell.clone());
                write(&cell, 42)
            },
            read_under_get,
        );
    }

    /// The reader's side: a read of key 1 under `iter`'s item.
    fn read_under_iter(map: &Map) -> Site {
        let item = map.iter().find(|r| *r.key() == 1).unwrap();
        let (v, site) = read(item.value());
        assert_eq!(v, 42);
        site
    }

    #[test]
    fn entry_then_iter_is_no_race() {
        no_race_in_each_run(
            |map| {
                let guard = map.entry(1).or_insert_with(|| Arc::new(Shared::new(0)));
                write(&guard, 42)
            },
            read_under_iter,
        );
    }

    #[test]
    fn a_write_after_the_entry_guard_is_a_race() {
        flow_race_in_each_run(
            |map| {
                let cell = map.entry(1).or_insert_with(|| Arc::new(Shared::new(0))).clone();
                write(&cell, 42)
            },
            read_under_iter,
        );
    }

    #[test]
    fn iter_mut_then_view_is_no_race() {
        no_race_in_each_run(
            |map| {
                let item = map.iter_mut().next().unwrap();
                write(&item, 42)
            },
            |map| {
                let (v, site) = map.view(&1, |_, cell| read(cell)).unwrap();
                assert_eq!(v, 42);
                site
            },
        );
    }

    #[test]
    fn alter_then_get_is_no_race_and_a_write_after_it_is() {
        no_race_in_each_run(
            |map| {
                let mut site = None;
                map.alter(&1, |_, cell| {
                    site = Some(write(&cell, 42));
                    cell
                });
                site.unwrap()
            },
            read_under_get,
        );
        flow_race_in_each_run(
            |map| {
                let mut cell = None;
                map.alter(&1, |_, c| {
                    cell = Some(c.clone());
                    c
                });
                write(&cell.unwrap(), 42)
            },
            read_under_get,
        );
    }

    /// A write section of one shard orders nothing for a reader of another: a cell written
    /// before a `get_mut` of key `a` and read after a `get` of a key in another shard is a race.
    #[test]
    fn sections_of_different_shards_do_not_order_each_other() {
        for _ in 0..RUNS {
            let mut sites = None;
            let report = racer::check(|| {
                let map: Arc<DashMap<u32, u32>> = Arc::new(DashMap::with_shard_amount(4));
                let other = (1..).find(|k| map.determine_map(k) != map.determine_map(&0)).unwrap();
                map.insert(0, 0);
                map.insert(other, 0);
                let data = Arc::new(Shared::new(0u64));
                let (m, d) = (map.clone(), data.clone());
                let (m2, d2) = (map.clone(), data.clone());
                sites = Some(one_then_other(
                    move || {
                        let site = write(&d, 42);
                        *m.get_mut(&0).unwrap() += 1;
                        site
                    },
                    move || {
                        assert_eq!(*m2.get(&other).unwrap(), 0);
                        read(&d2).1
                    },
                ));
            });
            let (w, r) = sites.unwrap();
            assert_one_race(&report, RaceKind::Flow, ("first", w), ("second", r));
        }
    }

    /// A value dropped by the map (`clear`) or by the caller of `remove` (a cell's drop is a
    /// write) comes after every section of its shard that wrote it.
    #[test]
    fn clear_and_remove_drop_values_after_their_writers() {
        for remove in [false, true] {
            for _ in 0..RUNS {
                let report = racer::check(|| {
                    let map: Arc<DashMap<u32, Shared<u64>>> = Arc::new(DashMap::new());
                    map.insert(1, Shared::new(0));
                    let (a, b) = (map.clone(), map.clone());
                    one_then_other(
                        move || write(&a.get_mut(&1).unwrap(), 42),
                        move || {
                            if remove {
                                let (_, cell) = b.remove(&1).unwrap();
                                assert_eq!(read(&cell).0, 42);
                            } else {
                                b.clear();
                            }
                        },
                    );
                });
                assert_no_race(&report);
            }
        }
    }

    /// A set orders as its map: a cell written before `insert` and read after `contains` saw
    /// the key is no race; written after the insert, it is.
    #[test]
    fn set_insert_then_contains_orders_and_a_write_after_it_does_not() {
        for after in [false, true] {
            for _ in 0..RUNS {
                let mut sites = None;
                let report = racer::check(|| {
                    let set = Arc::new(DashSet::<u32>::new());
                    let data = Arc::new(Shared::new(0u64));
                    let (s, d) = (set.clone(), data.clone());
                    let (s2, d2) = (set.clone(), data.clone());
                    sites = Some(one_then_other(
                        move || {
                            if after {
                                s.insert(1);
                                write(&d, 42)
                            } else {
                                let site = write(&d, 42);
                                s.insert(1);
                                site
                            }
                        },
                        move || {
                            assert!(s2.contains(&1));
                            read(&d2).1
                        },
                    ));
                });
                let (w, r) = sites.unwrap();
                if after {
                    assert_one_race(&report, RaceKind::Flow, ("first", w), ("second", r));
                } else {
                    assert_no_race(&report);
                }
            }
        }
    }

    /// Readers stay parallel: a cell written (wrongly) under a `get`'s read guard and read
    /// under another thread's `get` of the same key is a race.
    #[test]
    fn read_sections_do_not_order_each_other() {
        flow_race_in_each_run(
            |map| {
                let guard = map.get(&1).unwrap();
                write(&guard, 42)
            },
            read_under_get,
        );
    }
}
