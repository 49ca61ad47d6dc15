//! `racer::flume`: with `race-detect`, each message carries its sender's clock, so a value
//! handed over through any of flume's ways of sending and receiving (blocking, non-blocking,
//! timed, iterators, async futures, sink and stream, `Selector`) orders the sender's past before
//! the receiver, and a write made after the send is not ordered (reported, every run). Without
//! the feature, `racer::flume`'s items are flume's own.
//!
//! Where one access must come before another in time, the threads hand over with `std::sync`
//! (invisible to racer): the report is the same on every run.
#![cfg(feature = "flume")]

#[cfg(feature = "race-detect")]
mod sync_support;

use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

use futures_core::future::FusedFuture;
use futures_core::stream::{FusedStream, Stream};
use futures_sink::Sink;
use racer::flume::{self, Receiver, Sender};

/// Runs `f` to completion on this thread, parking between polls.
fn block_on<F: Future>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: StdArc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(StdArc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// The next item of a stream.
fn next<S: Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
    block_on(std::future::poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)))
}

/// Gives `value` to a sink and flushes it.
fn sink_send<T, S: Sink<T> + Unpin>(sink: &mut S, value: T) -> Result<(), S::Error> {
    block_on(std::future::poll_fn(|cx| Pin::new(&mut *sink).poll_ready(cx)))?;
    Pin::new(&mut *sink).start_send(value)?;
    block_on(std::future::poll_fn(|cx| Pin::new(&mut *sink).poll_flush(cx)))
}

/// flume's API through `racer::flume`, as a user of flume writes it: compiles and runs in both
/// builds, the same lines.
#[test]
fn racer_flume_has_flumes_api() {
    let (tx, rx): (Sender<u32>, Receiver<u32>) = flume::unbounded();
    assert_eq!(tx.capacity(), None);
    tx.send(1).unwrap();
    tx.try_send(2).unwrap();
    tx.send_timeout(3, std::time::Duration::from_secs(5)).unwrap();
    tx.send_deadline(4, std::time::Instant::now() + std::time::Duration::from_secs(5)).unwrap();
    assert_eq!((tx.len(), tx.is_empty(), tx.is_full()), (4, false, false));
    assert_eq!((tx.sender_count(), tx.receiver_count()), (1, 1));
    assert!(tx.same_channel(&tx.clone()) && rx.same_channel(&rx.clone()));
    assert_eq!(format!("{tx:?} {rx:?}"), "Sender Receiver");
    assert_eq!(rx.recv(), Ok(1));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(5)), Ok(3));
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![4]);
    assert_eq!(rx.try_recv(), Err(flume::TryRecvError::Empty));
    let weak: flume::WeakSender<u32> = tx.downgrade();
    weak.upgrade().unwrap().send(5).unwrap();
    assert_eq!(rx.iter().next(), Some(5));
    tx.send(6).unwrap();
    tx.send(7).unwrap();
    let drained = rx.drain();
    assert_eq!(drained.len(), 2);
    assert_eq!(drained.collect::<Vec<_>>(), vec![6, 7]);

    // async: futures, sink, stream
    let sent: flume::r#async::SendFut<'_, u32> = tx.send_async(8);
    assert!(!sent.is_terminated());
    block_on(sent).unwrap();
    let mut sink: flume::r#async::SendSink<'_, u32> = tx.sink();
    assert!(sink.sender().same_channel(&tx));
    sink_send(&mut sink, 9).unwrap();
    drop(sink);
    assert_eq!(block_on(rx.recv_async()), Ok(8));
    let mut stream: flume::r#async::RecvStream<'_, u32> = rx.stream();
    assert_eq!(next(&mut stream), Some(9));
    assert!(!stream.is_terminated());
    drop(stream);

    // Selector
    let (tx2, rx2) = flume::bounded::<&str>(1);
    let got = flume::Selector::new()
        .send(&tx2, "x", |r| r.map(|()| 0).unwrap())
        .recv(&rx, |r: Result<u32, flume::RecvError>| r.unwrap())
        .wait();
    assert_eq!(got, 0);
    assert_eq!(rx2.recv(), Ok("x"));

    // errors give the value back
    let (full, _keep) = flume::bounded::<String>(0);
    match full.try_send("mine".to_string()) {
        Err(flume::TrySendError::Full(v)) => assert_eq!(v, "mine"),
        other => panic!("{other:?}"),
    }
    let (lonely, gone) = flume::unbounded::<String>();
    drop(gone);
    let e: flume::SendError<String> = lonely.send("back".to_string()).unwrap_err();
    assert_eq!(e.into_inner(), "back");
    assert!(block_on(lonely.send_async("again".to_string())).is_err());
    assert!(lonely.is_disconnected());

    // iterators: &Receiver and Receiver
    tx.send(10).unwrap();
    tx.send(11).unwrap();
    drop(tx);
    let mut got = Vec::new();
    for v in &rx {
        got.push(v);
        if got.len() == 1 {
            break;
        }
    }
    assert_eq!(got, vec![10]);
    assert_eq!(rx.into_iter().collect::<Vec<_>>(), vec![11]);
}

/// The ends, futures, streams and sinks are `Send` and `Sync` as flume's are (compile-time).
#[test]
fn racer_flumes_types_are_send_and_sync_as_flumes() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Sender<u32>>();
    send_sync::<Receiver<u32>>();
    send_sync::<flume::WeakSender<u32>>();
    send::<flume::r#async::SendFut<'static, u32>>();
    send::<flume::r#async::RecvFut<'static, u32>>();
    send::<flume::r#async::SendSink<'static, u32>>();
    send::<flume::r#async::RecvStream<'static, u32>>();
    send::<flume::IntoIter<u32>>();
}

/// Without the feature, `racer::flume`'s items are flume's: this does not compile otherwise.
#[cfg(not(feature = "race-detect"))]
#[test]
fn without_race_detect_racer_flume_is_flume_itself() {
    let (tx, rx): (::flume::Sender<u8>, ::flume::Receiver<u8>) = racer::flume::unbounded();
    let _: (::flume::Sender<u8>, ::flume::Receiver<u8>) = racer::flume::bounded(1);
    let _: ::flume::WeakSender<u8> = tx.downgrade();
    let _: ::flume::r#async::SendSink<'_, u8> = tx.sink();
    let _: ::flume::r#async::RecvStream<'_, u8> = rx.stream();
    let _: ::flume::Selector<'_, ()> = racer::flume::Selector::new();
    let _: ::flume::Iter<'_, u8> = rx.iter();
    let _: ::flume::Drain<'_, u8> = rx.drain();
    block_on(tx.send_async(1)).unwrap();
    let recv: ::flume::r#async::RecvFut<'_, u8> = rx.recv_async();
    assert_eq!(block_on(recv), Ok(1));
}

#[cfg(feature = "race-detect")]
mod detect {
    use std::sync::mpsc as std_mpsc;
    use std::time::{Duration, Instant};

    use racer::flume::{self, Receiver, Sender};
    use racer::sync::Arc;
    use racer::{RaceKind, Report, Shared};

    use super::sync_support::{assert_no_race, assert_one_race, named, read, write, Site};
    use super::{block_on, next, sink_send};

    /// A value handed from a thread "writer" to a thread "reader": the writer writes a cell
    /// before the send (`racy`: after it), then tells the reader through `std::sync` (which
    /// racer does not see); the reader receives and reads the cell. Returns the report and the
    /// sites of the write and the read.
    fn hand_off<S: Send + 'static, R: Send + 'static>(
        racy: bool,
        ends: (S, R),
        send: fn(S, u32),
        recv: fn(R) -> u32,
    ) -> (Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let cell = Arc::new(Shared::new(0u64));
            let (tx, rx) = ends;
            let (done, wait) = std_mpsc::channel::<()>();
            let c = cell.clone();
            let writer = named("writer", move || {
                let mut site = None;
                if !racy {
                    site = Some(write(&c, 42));
                }
                send(tx, 7);
                if racy {
                    site = Some(write(&c, 42));
                }
                done.send(()).unwrap();
                site.unwrap()
            });
            let c = cell.clone();
            let reader = named("reader", move || {
                wait.recv().unwrap();
                assert_eq!(recv(rx), 7);
                let (v, site) = read(&c);
                assert_eq!(v, 42);
                site
            });
            sites = Some((writer.join().unwrap(), reader.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    /// For one way of sending and receiving: the hand-off is ordered in each of 10 runs, and the
    /// write moved after the send is reported in each of 10 runs, at the test's lines.
    macro_rules! hand_off_tests {
        ($ordered:ident, $racy:ident, $ends:expr, $send:expr, $recv:expr) => {
            #[test]
            fn $ordered() {
                for _ in 0..10 {
                    let (report, _, _) = hand_off(false, $ends, $send, $recv);
                    assert_no_race(&report);
                }
            }

            #[test]
            fn $racy() {
                for _ in 0..10 {
                    let (report, w, r) = hand_off(true, $ends, $send, $recv);
                    assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
                }
            }
        };
    }

    type Ends = (Sender<u32>, Receiver<u32>);

    fn unbounded() -> Ends {
        flume::unbounded()
    }

    fn bounded() -> Ends {
        flume::bounded(1)
    }

    hand_off_tests!(
        unbounded_send_recv_orders_the_sender_before_the_receiver,
        unbounded_write_after_send_is_a_race,
        unbounded(),
        |tx, v| tx.send(v).unwrap(),
        |rx| rx.recv().unwrap()
    );

    hand_off_tests!(
        bounded_try_send_try_recv_orders_the_sender_before_the_receiver,
        bounded_try_send_write_after_send_is_a_race,
        bounded(),
        |tx, v| tx.try_send(v).unwrap(),
        |rx| rx.try_recv().unwrap()
    );

    hand_off_tests!(
        bounded_timed_send_recv_orders_the_sender_before_the_receiver,
        bounded_timed_write_after_send_is_a_race,
        bounded(),
        |tx, v| tx.send_timeout(v, Duration::from_secs(60)).unwrap(),
        |rx| rx.recv_deadline(Instant::now() + Duration::from_secs(60)).unwrap()
    );

    hand_off_tests!(
        iterators_order_the_sender_before_the_receiver,
        iterators_write_after_send_is_a_race,
        unbounded(),
        |tx, v| tx.send_deadline(v, Instant::now() + Duration::from_secs(60)).unwrap(),
        |rx| rx.iter().next().unwrap() + rx.try_iter().count() as u32 + rx.drain().count() as u32
    );

    hand_off_tests!(
        drain_orders_the_sender_before_the_receiver,
        drain_write_after_send_is_a_race,
        bounded(),
        |tx, v| tx.send(v).unwrap(),
        |rx| rx.drain().next().unwrap()
    );

    hand_off_tests!(
        into_iter_orders_the_sender_before_the_receiver,
        into_iter_write_after_send_is_a_race,
        unbounded(),
        |tx, v| tx.send(v).unwrap(),
        |rx| rx.into_iter().next().unwrap()
    );

    hand_off_tests!(
        async_send_recv_orders_the_sender_before_the_receiver,
        async_write_after_send_is_a_race,
        bounded(),
        |tx, v| block_on(tx.send_async(v)).unwrap(),
        |rx| block_on(rx.recv_async()).unwrap()
    );

    hand_off_tests!(
        owned_async_send_recv_orders_the_sender_before_the_receiver,
        owned_async_write_after_send_is_a_race,
        unbounded(),
        |tx, v| block_on(tx.into_send_async(v)).unwrap(),
        |rx| block_on(rx.into_recv_async()).unwrap()
    );

    hand_off_tests!(
        sink_and_stream_order_the_sender_before_the_receiver,
        sink_and_stream_write_after_send_is_a_race,
        bounded(),
        |tx, v| sink_send(&mut tx.sink(), v).unwrap(),
        |rx| next(&mut rx.stream()).unwrap()
    );

    hand_off_tests!(
        selector_orders_the_sender_before_the_receiver,
        selector_write_after_send_is_a_race,
        unbounded(),
        |tx, v| flume::Selector::new().send(&tx, v, |r| r.unwrap()).wait(),
        |rx| flume::Selector::new().recv(&rx, |r| r.unwrap()).wait()
    );

    /// The writer sends 1, writes the cell, sends 2; the reader takes 1 (`both`: and 2), then
    /// reads the cell. Returns the report and the sites of the write and the read.
    fn two_messages(both: bool) -> (Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let cell = Arc::new(Shared::new(0u64));
            let (tx, rx) = flume::unbounded::<u32>();
            let (done, wait) = std_mpsc::channel::<()>();
            let c = cell.clone();
            let writer = named("writer", move || {
                tx.send(1).unwrap();
                let site = write(&c, 42);
                tx.send(2).unwrap();
                done.send(()).unwrap();
                site
            });
            let c = cell.clone();
            let reader = named("reader", move || {
                wait.recv().unwrap();
                assert_eq!(rx.recv(), Ok(1));
                if both {
                    assert_eq!(rx.recv(), Ok(2));
                }
                read(&c).1
            });
            sites = Some((writer.join().unwrap(), reader.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    /// A receiver is ordered after the sends of the messages it took, not of those still queued:
    /// taking only the message sent before the write leaves the write unordered (reported in
    /// each of 10 runs); taking the one sent after it too orders it (0 reports in 10 runs).
    #[test]
    fn a_receiver_is_ordered_after_the_messages_it_took_only() {
        for _ in 0..10 {
            let (report, w, r) = two_messages(false);
            assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
            let (report, _, _) = two_messages(true);
            assert_no_race(&report);
        }
    }

    /// A value given back in a send's error is its sender's own: taking it out acquires nothing
    /// and reports nothing.
    #[test]
    fn a_failed_sends_value_comes_back_unreported() {
        let report = racer::check(|| {
            let (tx, rx) = flume::bounded::<Arc<Shared<u64>>>(0);
            drop(rx);
            let cell = Arc::new(Shared::new(0u64));
            write(&cell, 1);
            let back = tx.send(cell).unwrap_err().into_inner();
            let (v, _) = read(&back);
            assert_eq!(v, 1);
        });
        assert_no_race(&report);
    }

    /// The report's reader side names the flume receive as its last synchronisation.
    #[test]
    fn a_report_names_the_flume_receive() {
        let (report, _, _) = hand_off(true, unbounded(), |tx, v| tx.send(v).unwrap(), |rx| rx.recv().unwrap());
        let race = &report.races()[0];
        let sync = race.current().after_sync().expect("the reader's last sync is the receive");
        assert!(sync.starts_with("receiving from a flume channel"), "{sync}");
    }
}
