//! `racer::async_channel`: with `race-detect`, each message carries its sender's clock, so a
//! value handed over through async-channel (async `send`/`recv`, the blocking and non-blocking
//! calls, the receiver as a `Stream`, `force_send`) orders the sender's past before the
//! receiver, and a write made after the send is not ordered (reported, every run). Without the
//! feature, `racer::async_channel`'s items are async-channel's own.
//!
//! Where one access must come before another in time, the threads hand over with `std::sync`
//! (invisible to racer): the report is the same on every run.
#![cfg(feature = "async-channel")]

#[cfg(feature = "race-detect")]
mod sync_support;

use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

use futures_core::stream::{FusedStream, Stream};
use racer::async_channel::{self, Receiver, Sender};

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
fn next<S: Stream>(stream: Pin<&mut S>) -> Option<S::Item> {
    let mut stream = stream;
    block_on(std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)))
}

/// async-channel's API through `racer::async_channel`, as a user of async-channel writes it:
/// compiles and runs in both builds, the same lines.
#[test]
fn racer_async_channel_has_async_channels_api() {
    let (tx, rx): (Sender<u32>, Receiver<u32>) = async_channel::bounded(2);
    assert_eq!(tx.capacity(), Some(2));
    block_on(tx.send(1)).unwrap();
    tx.try_send(2).unwrap();
    assert!(tx.is_full() && !tx.is_empty() && tx.len() == 2);
    match tx.try_send(3) {
        Err(async_channel::TrySendError::Full(v)) => assert_eq!(v, 3),
        other => panic!("{other:?}"),
    }
    assert_eq!(tx.force_send(3), Ok(Some(1)));
    assert_eq!((tx.sender_count(), tx.receiver_count()), (1, 1));
    assert!(tx.same_channel(&tx.clone()) && rx.same_channel(&rx.clone()));
    assert_eq!(format!("{tx:?}"), format!("{:?}", tx.clone()));
    assert_eq!(block_on(rx.recv()), Ok(2));
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(rx.try_recv(), Err(async_channel::TryRecvError::Empty));
    let weak: async_channel::WeakSender<u32> = tx.downgrade();
    weak.upgrade().unwrap().send_blocking(4).unwrap();
    assert_eq!(rx.recv_blocking(), Ok(4));
    let weak_rx: async_channel::WeakReceiver<u32> = rx.downgrade();
    tx.send_blocking(5).unwrap();
    let mut stream = pin!(weak_rx.upgrade().unwrap());
    assert_eq!(next(stream.as_mut()), Some(5));
    assert!(!stream.is_terminated());
    assert!(tx.close() && rx.is_closed());
    block_on(tx.closed());
    assert_eq!(next(stream.as_mut()), None);
    assert!(stream.is_terminated());
    let e: async_channel::SendError<u32> = block_on(tx.send(6)).unwrap_err();
    assert_eq!(e.into_inner(), 6);
    assert_eq!(block_on(rx.recv()), Err(async_channel::RecvError));

    let (tx, rx) = async_channel::unbounded::<String>();
    assert_eq!(tx.capacity(), None);
    drop(rx);
    assert_eq!(tx.send_blocking("back".to_string()).unwrap_err().0, "back");
}

/// The ends and futures are `Send` and `Sync` as async-channel's are (compile-time).
#[test]
fn racer_async_channels_types_are_send_and_sync_as_async_channels() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Sender<u32>>();
    send_sync::<Receiver<u32>>();
    send_sync::<async_channel::WeakSender<u32>>();
    send_sync::<async_channel::WeakReceiver<u32>>();
    send_sync::<async_channel::Send<'static, u32>>();
    send_sync::<async_channel::Recv<'static, u32>>();
    send_sync::<async_channel::Closed<'static, u32>>();
}

/// Without the feature, `racer::async_channel`'s items are async-channel's: this does not
/// compile otherwise.
#[cfg(not(feature = "race-detect"))]
#[test]
fn without_race_detect_racer_async_channel_is_async_channel_itself() {
    let (tx, rx): (::async_channel::Sender<u8>, ::async_channel::Receiver<u8>) = racer::async_channel::unbounded();
    let _: (::async_channel::Sender<u8>, ::async_channel::Receiver<u8>) = racer::async_channel::bounded(1);
    let _: ::async_channel::WeakSender<u8> = tx.downgrade();
    let _: ::async_channel::WeakReceiver<u8> = rx.downgrade();
    let closed: ::async_channel::Closed<'_, u8> = tx.closed();
    drop(closed);
    block_on::<::async_channel::Send<'_, u8>>(tx.send(1)).unwrap();
    let recv: ::async_channel::Recv<'_, u8> = rx.recv();
    assert_eq!(block_on(recv), Ok(1));
}

#[cfg(feature = "race-detect")]
mod detect {
    use std::pin::pin;
    use std::sync::mpsc as std_mpsc;

    use racer::async_channel::{self, Receiver, Sender};
    use racer::sync::Arc;
    use racer::{RaceKind, Report, Shared};

    use super::sync_support::{assert_no_race, assert_one_race, named, read, write, Site};
    use super::{block_on, next};

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
        async_channel::unbounded()
    }

    fn bounded() -> Ends {
        async_channel::bounded(1)
    }

    hand_off_tests!(
        async_send_recv_orders_the_sender_before_the_receiver,
        async_write_after_send_is_a_race,
        bounded(),
        |tx, v| block_on(tx.send(v)).unwrap(),
        |rx| block_on(rx.recv()).unwrap()
    );

    hand_off_tests!(
        blocking_send_recv_orders_the_sender_before_the_receiver,
        blocking_write_after_send_is_a_race,
        unbounded(),
        |tx, v| tx.send_blocking(v).unwrap(),
        |rx| rx.recv_blocking().unwrap()
    );

    hand_off_tests!(
        try_send_try_recv_orders_the_sender_before_the_receiver,
        try_send_write_after_send_is_a_race,
        bounded(),
        |tx, v| tx.try_send(v).unwrap(),
        |rx| rx.try_recv().unwrap()
    );

    hand_off_tests!(
        force_send_and_stream_order_the_sender_before_the_receiver,
        force_send_and_stream_write_after_send_is_a_race,
        bounded(),
        |tx, v| assert_eq!(tx.force_send(v), Ok(None)),
        |rx| next(pin!(rx).as_mut()).unwrap()
    );

    // A value pushed out by `force_send` is taken from the channel as a receive takes it.
    hand_off_tests!(
        force_send_orders_the_pushed_out_values_sender_before_the_pusher,
        force_send_pushed_out_write_after_send_is_a_race,
        {
            let (tx, rx) = bounded();
            (tx.clone(), (tx, rx))
        },
        |tx, v| tx.send_blocking(v).unwrap(),
        |(tx, _rx)| tx.force_send(8).unwrap().unwrap()
    );

    /// The writer sends 1, writes the cell, sends 2; the reader takes 1 (`both`: and 2), then
    /// reads the cell. Returns the report and the sites of the write and the read.
    fn two_messages(both: bool) -> (Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let cell = Arc::new(Shared::new(0u64));
            let (tx, rx) = async_channel::unbounded::<u32>();
            let (done, wait) = std_mpsc::channel::<()>();
            let c = cell.clone();
            let writer = named("writer", move || {
                block_on(tx.send(1)).unwrap();
                let site = write(&c, 42);
                block_on(tx.send(2)).unwrap();
                done.send(()).unwrap();
                site
            });
            let c = cell.clone();
            let reader = named("reader", move || {
                wait.recv().unwrap();
                assert_eq!(block_on(rx.recv()), Ok(1));
                if both {
                    assert_eq!(block_on(rx.recv()), Ok(2));
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

    /// The report's reader side names the async-channel receive as its last synchronisation.
    #[test]
    fn a_report_names_the_async_channel_receive() {
        let (report, _, _) =
            hand_off(true, unbounded(), |tx, v| tx.send_blocking(v).unwrap(), |rx| rx.recv_blocking().unwrap());
        let race = &report.races()[0];
        let sync = race.current().after_sync().expect("the reader's last sync is the receive");
        assert!(sync.starts_with("receiving from an async_channel channel"), "{sync}");
    }
}
