//! `racer::crossbeam_channel` and `racer::crossbeam_queue`: with `race-detect`, each message or
//! item carries its sender's clock, so a cell handed over through a channel, a `select!` or a
//! queue is ordered (0 reports in 10 runs), and the same program with the hand-off taken away
//! (the cell written after the send, or a message of another sender received) is a race at the
//! user's lines, reported by the `racer::check` it ran in, in 10 runs of 10. Without the feature,
//! the modules are the crates' own items.
//!
//! Where one access must come before another in time, the threads hand over with `std::sync`
//! (invisible to racer): the report is the same on every run.
#![cfg(any(feature = "crossbeam-channel", feature = "crossbeam-queue"))]

mod sync_support;

/// Without `race-detect`, `racer::crossbeam_channel` and `racer::crossbeam_queue` are the
/// crates' own items: this only compiles if they are.
#[cfg(not(feature = "race-detect"))]
#[test]
fn without_race_detect_the_modules_are_the_crates_own() {
    #[cfg(feature = "crossbeam-channel")]
    {
        let (s, r) = racer::crossbeam_channel::unbounded::<u8>();
        let _: crossbeam_channel::Sender<u8> = s.clone();
        let _: crossbeam_channel::Receiver<u8> = r.clone();
        let _: crossbeam_channel::Receiver<std::time::Instant> = racer::crossbeam_channel::never();
        let mut sel: crossbeam_channel::Select<'_> = racer::crossbeam_channel::Select::new();
        sel.recv(&r);
        s.send(1).unwrap();
        racer::crossbeam_channel::select! {
            recv(r) -> m => assert_eq!(m, Ok(1)),
        }
    }
    #[cfg(feature = "crossbeam-queue")]
    {
        let _: crossbeam_queue::SegQueue<u8> = racer::crossbeam_queue::SegQueue::new();
        let _: crossbeam_queue::ArrayQueue<u8> = racer::crossbeam_queue::ArrayQueue::new(1);
    }
}

/// The hand-overs shared by the channel and queue tests (some used by one of the two only).
#[cfg(feature = "race-detect")]
#[allow(dead_code)]
mod detect {
    use std::sync::mpsc as std_mpsc;

    pub use racer::sync::Arc;
    pub use racer::{RaceKind, Report, Shared};

    pub use super::sync_support::{assert_no_race, assert_one_race, named, read, write, Site};

    pub const RUNS: usize = 10;

    /// The two ends of a hand-off, as closures: `send` puts its value in, `recv` takes one out.
    pub type Ends = (Box<dyn FnOnce(u64) + Send>, Box<dyn FnOnce() -> u64 + Send>);

    /// The two sides of any hand-over: what the writer does to give, what the reader does to
    /// take.
    pub type Sides = (Box<dyn FnOnce() + Send>, Box<dyn FnOnce() + Send>);

    /// Thread `names.0` writes a cell and gives (the first of `sides`, made inside the check);
    /// thread `names.1` takes (the second) and reads the cell. `racy`: the writer writes after
    /// it gave (and before the read, in time only: a std channel). Returns the report and the
    /// sites of the write and the read.
    pub fn handed_over(racy: bool, names: (&str, &str), sides: impl FnOnce() -> Sides) -> (Report, Site, Site) {
        let (writer_name, reader_name) = (names.0.to_string(), names.1.to_string());
        let mut sites = None;
        let report = racer::check(|| {
            let (give, take) = sides();
            let cell = Arc::new(Shared::new(0u64));
            let (done, wait) = std_mpsc::channel::<()>();
            let c = cell.clone();
            let writer = named(&writer_name, move || {
                let site = if racy {
                    give();
                    write(&c, 42)
                } else {
                    let site = write(&c, 42);
                    give();
                    site
                };
                done.send(()).unwrap();
                site
            });
            let c = cell.clone();
            let reader = named(&reader_name, move || {
                take();
                wait.recv().unwrap();
                let (v, site) = read(&c);
                assert_eq!(v, 42);
                site
            });
            sites = Some((writer.join().unwrap(), reader.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    /// A hand-off of 7 through `ends` from "producer" to "consumer".
    pub fn hand_off(racy: bool, ends: impl FnOnce() -> Ends) -> (Report, Site, Site) {
        handed_over(racy, ("producer", "consumer"), || {
            let (send, recv) = ends();
            (Box::new(move || send(7)), Box::new(move || assert_eq!(recv(), 7)))
        })
    }

    /// `hand_off` 10 times without its race: no report in any run.
    pub fn ordered_every_run(ends: impl Fn() -> Ends) {
        for _ in 0..RUNS {
            let (report, _, _) = hand_off(false, &ends);
            assert_no_race(&report);
        }
    }

    /// `hand_off` 10 times with the write after the send: the same race in every run, the
    /// producer's write then the consumer's read.
    pub fn racy_every_run(ends: impl Fn() -> Ends) {
        for _ in 0..RUNS {
            let (report, w, r) = hand_off(true, &ends);
            assert_one_race(&report, RaceKind::Flow, ("producer", w), ("consumer", r));
        }
    }

    /// `handed_over` 10 times without its race, then 10 times with it: no report in any run of
    /// the first, the same race in every run of the second.
    pub fn ordered_and_racy_every_run(names: (&str, &str), sides: impl Fn() -> Sides) {
        for _ in 0..RUNS {
            let (report, _, _) = handed_over(false, names, &sides);
            assert_no_race(&report);
        }
        for _ in 0..RUNS {
            let (report, w, r) = handed_over(true, names, &sides);
            assert_one_race(&report, RaceKind::Flow, (names.0, w), (names.1, r));
        }
    }

    /// Waits (spinning) for `f` to give a value.
    pub fn spin<T>(mut f: impl FnMut() -> Option<T>) -> T {
        loop {
            if let Some(v) = f() {
                return v;
            }
            std::thread::yield_now();
        }
    }
}

#[cfg(all(feature = "race-detect", feature = "crossbeam-channel"))]
mod channel {
    use std::sync::mpsc as std_mpsc;
    use std::time::{Duration, Instant};

    use racer::crossbeam_channel::{
        self as cc, after, at, bounded, never, select, tick, unbounded, Receiver, RecvTimeoutError, Select, SendError,
        SendTimeoutError, Sender, TryRecvError, TrySendError,
    };

    use super::detect::*;

    const LONG: Duration = Duration::from_secs(600);

    fn plain(make: fn() -> (Sender<u64>, Receiver<u64>)) -> Ends {
        let (s, r) = make();
        (Box::new(move |v| s.send(v).unwrap()), Box::new(move || r.recv().unwrap()))
    }

    #[test]
    fn an_unbounded_hand_off_is_ordered() {
        ordered_every_run(|| plain(unbounded));
    }

    #[test]
    fn an_unbounded_write_after_the_send_is_a_race() {
        racy_every_run(|| plain(unbounded));
    }

    #[test]
    fn a_bounded_hand_off_is_ordered() {
        ordered_every_run(|| plain(|| bounded(1)));
        ordered_every_run(|| plain(|| bounded(0)));
    }

    #[test]
    fn a_bounded_write_after_the_send_is_a_race() {
        racy_every_run(|| plain(|| bounded(1)));
        racy_every_run(|| plain(|| bounded(0)));
    }

    /// Every way of sending, each with every way of receiving: each message acquired.
    #[test]
    fn every_send_and_receive_method_orders_its_message() {
        type Send = fn(&Sender<u64>, u64);
        type Recv = fn(Receiver<u64>) -> u64;
        let sends: [Send; 4] = [
            |s, v| s.send(v).unwrap(),
            |s, v| spin(|| s.try_send(v).ok()),
            |s, v| s.send_timeout(v, LONG).unwrap(),
            |s, v| s.send_deadline(v, Instant::now() + LONG).unwrap(),
        ];
        let recvs: [Recv; 8] = [
            |r| r.recv().unwrap(),
            |r| spin(|| r.try_recv().ok()),
            |r| r.recv_timeout(LONG).unwrap(),
            |r| r.recv_deadline(Instant::now() + LONG).unwrap(),
            |r| r.iter().next().unwrap(),
            |r| spin(|| r.try_iter().next()),
            |r| (&r).into_iter().next().unwrap(),
            |r| r.into_iter().next().unwrap(),
        ];
        for send in sends {
            for recv in recvs {
                ordered_every_run(|| {
                    let (s, r) = bounded(1);
                    (Box::new(move |v| send(&s, v)), Box::new(move || recv(r)))
                });
            }
        }
    }

    /// A receive acquires the clock of the message it took, not of another one still queued:
    /// "writer" writes and sends after "other" sent; "consumer" takes other's message (the
    /// first) and reads the cell: a race with the write, in every run.
    #[test]
    fn a_receive_acquires_only_its_own_message() {
        for _ in 0..RUNS {
            let mut sites = None;
            let report = racer::check(|| {
                let cell = Arc::new(Shared::new(0u64));
                let (s, r) = unbounded::<&str>();
                let (go, wait_other) = std_mpsc::channel::<()>();
                let (done, wait_writer) = std_mpsc::channel::<()>();
                let s2 = s.clone();
                let other = named("other", move || {
                    s2.send("other").unwrap();
                    go.send(()).unwrap();
                });
                let c = cell.clone();
                let writer = named("writer", move || {
                    wait_other.recv().unwrap();
                    let site = write(&c, 42);
                    s.send("writer").unwrap();
                    done.send(()).unwrap();
                    site
                });
                let c = cell.clone();
                let consumer = named("consumer", move || {
                    let received = (r.recv().unwrap(), line!());
                    assert_eq!(received.0, "other");
                    wait_writer.recv().unwrap();
                    (read(&c).1, received.1)
                });
                other.join().unwrap();
                sites = Some((writer.join().unwrap(), consumer.join().unwrap()));
            });
            let (w, (r, received)) = sites.unwrap();
            let race = assert_one_race(&report, RaceKind::Flow, ("writer", w), ("consumer", r));
            // The reader's last synchronisation is its receive, at its line.
            let sync = race.current().after_sync().unwrap();
            assert!(sync.starts_with("receiving from crossbeam_channel::Sender"), "{sync}");
            assert!(sync.contains(&format!(") at {}:{received}:", file!())), "{sync}");
        }
    }

    /// A zero-capacity channel orders the other way too: "consumer" writes and receives,
    /// "producer" reads once its send returned. Its twin: the consumer writes after its receive.
    #[test]
    fn a_rendezvous_orders_the_receive_before_the_send_returns() {
        ordered_and_racy_every_run(("consumer", "producer"), || {
            let (s, r) = bounded::<u64>(0);
            (Box::new(move || assert_eq!(r.recv(), Ok(7))), Box::new(move || s.send(7).unwrap()))
        });
        ordered_and_racy_every_run(("consumer", "producer"), || {
            let (s, r) = bounded::<u64>(0);
            (
                Box::new(move || assert_eq!(spin(|| r.recv_timeout(Duration::ZERO).ok()), 7)),
                Box::new(move || {
                    let mut sel = Select::new();
                    sel.send(&s);
                    sel.select().send(&s, 7).unwrap();
                }),
            )
        });
    }

    /// A channel with room does not order the receive before the send: "consumer" writes and
    /// receives, "producer" reads after its send (and after the write, in time only).
    #[test]
    fn a_channel_with_room_does_not_order_the_receive_before_the_send() {
        for _ in 0..RUNS {
            let (report, w, r) = handed_over(false, ("consumer", "producer"), || {
                let (s, r) = bounded::<u64>(1);
                (Box::new(move || assert_eq!(r.recv(), Ok(7))), Box::new(move || s.send(7).unwrap()))
            });
            assert_one_race(&report, RaceKind::Flow, ("consumer", w), ("producer", r));
        }
    }

    /// The senders' drops are ordered before a receive that finds the channel disconnected
    /// (the end of a `for` loop over the receiver), the receivers' drops before a send that
    /// fails on it. The twins: the cell written after the drop.
    #[test]
    fn a_disconnection_orders_the_drops_of_the_ends() {
        ordered_and_racy_every_run(("producer", "consumer"), || {
            let (s, r) = unbounded::<u64>();
            let s2 = s.clone();
            drop(s2);
            (
                Box::new(move || {
                    s.send(1).unwrap();
                    drop(s);
                }),
                Box::new(move || assert_eq!(r.iter().sum::<u64>(), 1)),
            )
        });
        ordered_and_racy_every_run(("producer", "consumer"), || {
            let (s, r) = bounded::<u64>(1);
            (Box::new(move || drop(s)), Box::new(move || assert_eq!(r.recv(), Err(cc::RecvError))))
        });
        ordered_and_racy_every_run(("consumer", "producer"), || {
            let (s, r) = unbounded::<u64>();
            (Box::new(move || drop(r)), Box::new(move || assert_eq!(spin(|| s.send(1).err()), SendError(1))))
        });
    }

    #[test]
    fn failed_sends_give_the_value_back() {
        let report = racer::check(|| {
            let (s, r) = bounded::<String>(1);
            s.send("a".into()).unwrap();
            assert_eq!(s.try_send("b".into()), Err(TrySendError::Full("b".to_string())));
            assert_eq!(s.send_timeout("c".into(), Duration::ZERO), Err(SendTimeoutError::Timeout("c".to_string())));
            assert_eq!(s.len(), 1);
            assert!(s.is_full() && r.is_full() && !r.is_empty());
            assert_eq!((s.capacity(), r.capacity()), (Some(1), Some(1)));
            assert_eq!(r.recv().as_deref(), Ok("a"));
            assert_eq!(r.try_recv(), Err(TryRecvError::Empty));
            assert_eq!(r.recv_timeout(Duration::ZERO), Err(RecvTimeoutError::Timeout));
            drop(r);
            assert_eq!(s.send("d".into()), Err(SendError("d".to_string())));
            assert_eq!(s.try_send("e".into()), Err(TrySendError::Disconnected("e".to_string())));
            let (s, r) = unbounded::<u8>();
            assert!(s.same_channel(&s.clone()) && r.same_channel(&r.clone()));
            assert!(!s.same_channel(&unbounded().0));
            drop(s);
            assert_eq!(r.recv(), Err(cc::RecvError));
            assert_eq!(format!("{:?} {:?}", unbounded::<u8>().0, r), "Sender { .. } Receiver { .. }");
        });
        assert_no_race(&report);
    }

    /// The timer channels and `never` have no sender: `Receiver<Instant>`s of racer's.
    #[test]
    fn timers_and_never_are_receivers_of_racer() {
        let report = racer::check(|| {
            let start = Instant::now();
            let a: Receiver<Instant> = after(Duration::ZERO);
            assert!(a.recv().unwrap() >= start);
            let t: Receiver<Instant> = at(start);
            assert!(t.recv_timeout(LONG).is_ok());
            let k = tick(Duration::from_millis(1));
            assert_eq!(k.iter().take(2).count(), 2);
            let n: Receiver<u8> = never();
            assert_eq!(n.try_recv(), Err(TryRecvError::Empty));
            assert!(!n.same_channel(&unbounded().1));
            const NEVER: Receiver<u8> = never();
            assert!(NEVER.is_empty());
            let (s, r) = unbounded::<u8>();
            s.send(3).unwrap();
            select! {
                recv(r) -> m => assert_eq!(m, Ok(3)),
                recv(n) -> _ => unreachable!(),
            }
            select! {
                recv(r) -> _ => unreachable!(),
                recv(after(Duration::ZERO)) -> t => assert!(t.is_ok()),
            }
        });
        assert_no_race(&report);
    }

    /// `select!` receiving: the message taken through it is acquired.
    fn select_recv() -> Ends {
        let (s, r) = unbounded();
        let (_keep, idle) = bounded::<u64>(0);
        (
            Box::new(move |v| s.send(v).unwrap()),
            Box::new(move || {
                let _keep = _keep;
                select! {
                    recv(idle) -> _ => unreachable!(),
                    recv(r) -> msg => msg.unwrap(),
                    default(LONG) => unreachable!(),
                }
            }),
        )
    }

    /// `select!` sending: the message sent through it carries the sender's clock.
    fn select_send() -> Ends {
        let (s, r) = bounded(1);
        let (idle, _keep) = bounded::<u64>(0);
        (
            Box::new(move |v| {
                let _keep = _keep;
                select! {
                    send(idle, 0) -> _ => unreachable!(),
                    send(s, v) -> res => res.unwrap(),
                }
            }),
            Box::new(move || r.recv().unwrap()),
        )
    }

    #[test]
    fn a_select_hand_off_is_ordered() {
        ordered_every_run(select_recv);
        ordered_every_run(select_send);
    }

    #[test]
    fn a_select_write_after_the_send_is_a_race() {
        racy_every_run(select_recv);
        racy_every_run(select_send);
    }

    /// `Select` by hand: `select` then `SelectedOperation::recv`, and `ready` then `try_recv`.
    #[test]
    fn select_by_hand_orders_its_messages() {
        ordered_every_run(|| {
            let (s, r) = unbounded();
            (
                Box::new(move |v| {
                    let mut sel = Select::new();
                    let i = sel.send(&s);
                    let op = sel.select();
                    assert_eq!(op.index(), i);
                    op.send(&s, v).unwrap();
                }),
                Box::new(move || {
                    let n = never::<u64>();
                    let mut sel = Select::new_biased();
                    sel.recv(&n);
                    let i = sel.recv(&r);
                    let op = sel.select();
                    assert_eq!(op.index(), i);
                    op.recv(&r).unwrap()
                }),
            )
        });
        ordered_every_run(|| {
            let (s, r) = unbounded();
            (
                Box::new(move |v| s.send(v).unwrap()),
                Box::new(move || {
                    let mut sel = Select::default();
                    let i = sel.recv(&r);
                    assert_eq!(sel.ready(), i);
                    r.try_recv().unwrap()
                }),
            )
        });
    }

    /// The forms of crossbeam's `select!` compile and run on racer's ends, by both paths.
    #[test]
    fn select_takes_crossbeams_syntax() {
        use racer::crossbeam_channel::select_biased;
        let report = racer::check(|| {
            let (s, r) = unbounded::<u32>();
            let n = never::<u32>();
            let got = racer::crossbeam_channel::select! {
                send(s, 1) -> res => { res.unwrap(); 1 }
                recv(n) -> _ => 0
            };
            assert_eq!(got, 1);
            let got = select! {
                recv(n) -> _ => 0,
                default => 2,
            };
            assert_eq!(got, 2);
            let got = select! {
                recv(r) -> msg => msg.unwrap(),
                default(Duration::ZERO) => 0,
            };
            assert_eq!(got, 1);
            let got = select! {
                recv(n) -> _ => 0,
                default(Duration::ZERO) => { 3 }
            };
            assert_eq!(got, 3);
            let mut r = r;
            for i in 0..3u32 {
                s.send(i).unwrap();
                select_biased! {
                    recv(r) -> msg => {
                        assert_eq!(msg, Ok(i));
                        r = r.clone();
                        continue;
                    }
                    recv(n) -> _ => unreachable!(),
                }
            }
            let by_ref: &Receiver<u32> = &r;
            s.send(4).unwrap();
            let got = select! {
                recv(&n) -> _ => unreachable!(),
                recv(by_ref) -> msg => msg.unwrap(),
                send(&s, 5) -> res => { res.unwrap(); 5 }
                default(Duration::from_secs(600)) => unreachable!()
            };
            drop(s);
            let rest: Vec<u32> = r.try_iter().collect();
            assert_eq!(rest, if got == 4 { vec![] } else { vec![4, 5] });
            select! { recv(r) -> msg => assert!(msg.is_err()) }
        });
        assert_no_race(&report);
    }

    #[test]
    fn ends_are_send_sync_clone_debug_as_crossbeams() {
        fn traits<T: Send + Sync + Clone + std::fmt::Debug + std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
        traits::<Sender<std::cell::Cell<u8>>>();
        traits::<Receiver<std::cell::Cell<u8>>>();
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Select<'_>>();
    }
}

#[cfg(all(feature = "race-detect", feature = "crossbeam-queue"))]
mod queue {
    use std::sync::mpsc as std_mpsc;

    use racer::crossbeam_queue::{ArrayQueue, SegQueue};

    use super::detect::*;

    fn array_queue() -> Ends {
        let q = std::sync::Arc::new(ArrayQueue::new(2));
        let p = q.clone();
        (Box::new(move |v| p.push(v).unwrap()), Box::new(move || spin(|| q.pop())))
    }

    fn seg_queue() -> Ends {
        let q = std::sync::Arc::new(SegQueue::new());
        let p = q.clone();
        (Box::new(move |v| p.push(v)), Box::new(move || spin(|| q.pop())))
    }

    /// The consumer takes the item out by `force_push` on the full queue: the value displaced
    /// is acquired.
    fn force_push() -> Ends {
        let q = std::sync::Arc::new(ArrayQueue::new(1));
        let p = q.clone();
        (
            Box::new(move |v| p.push(v).unwrap()),
            Box::new(move || {
                spin(|| q.is_full().then_some(()));
                q.force_push(0).unwrap()
            }),
        )
    }

    /// The queue itself moves to the consumer (by a std channel, invisible to racer), which
    /// iterates over it.
    fn owned_iter() -> Ends {
        let (tx, rx) = std_mpsc::channel();
        (
            Box::new(move |v| {
                let q = SegQueue::new();
                q.push(v);
                let a = ArrayQueue::new(1);
                a.push(v).unwrap();
                tx.send((q, a)).unwrap();
            }),
            Box::new(move || {
                let (q, a) = rx.recv().unwrap();
                let v: Vec<u64> = q.into_iter().chain(a).collect();
                assert_eq!(v[0], v[1]);
                v[0]
            }),
        )
    }

    #[test]
    fn a_queue_hand_off_is_ordered() {
        ordered_every_run(array_queue);
        ordered_every_run(seg_queue);
        ordered_every_run(force_push);
        ordered_every_run(owned_iter);
    }

    #[test]
    fn a_queue_write_after_the_push_is_a_race() {
        racy_every_run(array_queue);
        racy_every_run(seg_queue);
        racy_every_run(force_push);
        racy_every_run(owned_iter);
    }

    #[test]
    fn the_queues_methods_are_crossbeams() {
        let report = racer::check(|| {
            let mut a = ArrayQueue::new(1);
            assert_eq!(a.push(1), Ok(()));
            assert_eq!(a.push(2), Err(2));
            assert!(a.is_full() && !a.is_empty());
            assert_eq!((a.len(), a.capacity()), (1, 1));
            assert_eq!(a.force_push(3), Some(1));
            assert_eq!(a.pop_mut(), Some(3));
            assert_eq!(a.push_mut(4), Ok(()));
            assert_eq!(a.pop(), Some(4));
            assert_eq!(a.pop(), None);
            assert_eq!(format!("{a:?}"), "ArrayQueue { .. }");
            let mut s: SegQueue<u8> = SegQueue::default();
            s.push(1);
            s.push_mut(2);
            assert_eq!((s.len(), s.is_empty()), (2, false));
            assert_eq!(s.pop_mut(), Some(1));
            assert_eq!(s.pop(), Some(2));
            assert_eq!(s.pop(), None);
            assert_eq!(format!("{s:?}"), "SegQueue { .. }");
            static GLOBAL: SegQueue<u8> = SegQueue::new();
            GLOBAL.push(1);
            assert_eq!(GLOBAL.pop(), Some(1));
        });
        assert_no_race(&report);
        fn traits<T: Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
        traits::<ArrayQueue<std::cell::Cell<u8>>>();
        traits::<SegQueue<std::cell::Cell<u8>>>();
    }
}
