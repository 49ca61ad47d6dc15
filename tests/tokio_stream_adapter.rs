//! `racer::tokio_stream`: tokio-stream's wrappers over tokio's channels and `JoinSet` take
//! racer's (`racer::tokio::sync::{mpsc, broadcast, watch}`, `racer::tokio::task::JoinSet`), and
//! each item taken through `StreamExt::next` is ordered after the hand-off it received: no
//! report in each of ten runs on a multi-thread and on a current-thread runtime. Each has a
//! racy twin (an access after the hand-off received, or of a hand-off not received) reported
//! in every run, a flow race with both sites at this file's lines, both tasks named in the
//! report, and the stream's receive as the reader's last synchronisation.
//!
//! Where the order of two tasks matters for the test, the tasks wait for each other through a
//! `std` atomic flag, which orders nothing for the detector.
//!
//! The file builds without `race-detect` too, against tokio and tokio-stream's own items, where
//! the hand-offs run (and report nothing), and where `racer::tokio_stream`'s items are
//! tokio-stream's (a test that only compiles if they are the same types and traits).
#![cfg(all(feature = "tokio", feature = "tokio-stream"))]
// What the missing-edge tests alone use.
#![cfg_attr(not(feature = "race-detect"), allow(unused_imports, dead_code))]

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;

use racer::tokio::sync::{broadcast, mpsc, watch};
use racer::tokio::task::{self, JoinSet};
use racer::tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use racer::tokio_stream::wrappers::{
    BroadcastStream, JoinSetStream, ReceiverStream, UnboundedReceiverStream, WatchStream,
};
use racer::tokio_stream::{Stream, StreamExt};
use racer::{RaceKind, Shared};

#[path = "tokio_support/mod.rs"]
mod tokio_support;
use tokio_support::{check_on, current_thread, runtimes};

const RUNS: usize = 10;
const FILE: &str = "tests/tokio_stream_adapter.rs";
const SOURCE: &str = include_str!("tokio_stream_adapter.rs");

/// `body` gives an empty report in each of `RUNS` runs on each runtime.
fn no_report_every_run<F: Future<Output = ()>>(what: &str, body: impl Fn() -> F) {
    for (name, rt) in runtimes() {
        for run in 0..RUNS {
            let report = check_on(rt, &body);
            assert!(report.is_empty(), "{what}, {name} runtime, run {run}: {report}");
        }
    }
}

/// The line of this file that ends with `marker` (one only).
fn marked_line(marker: &str) -> u32 {
    let lines: Vec<u32> = SOURCE
        .lines()
        .enumerate()
        .filter(|(_, line)| line.trim_end().ends_with(marker))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    assert_eq!(lines.len(), 1, "{marker}: {lines:?}");
    lines[0]
}

/// `body` gives one flow race in each of `RUNS` runs on each runtime: the write of the line
/// marked `// <- write (what)` by one task, then the read of the line marked `// <- read (what)`
/// by another, named `task N` in the report, whose last synchronisation before the read is
/// `receiving` from the channel (or task) at the line marked `// <- stream (what)`: where the
/// stream was made (for a `JoinSetStream`, where its `JoinSet` was, the site of its joins).
#[cfg(feature = "race-detect")]
fn flow_race_every_run<F: Future<Output = ()>>(what: &str, receiving: &str, body: impl Fn() -> F) {
    let write = marked_line(&format!("// <- write ({what})"));
    let read = marked_line(&format!("// <- read ({what})"));
    let stream = marked_line(&format!("// <- stream ({what})"));
    for (name, rt) in runtimes() {
        for run in 0..RUNS {
            let report = check_on(rt, &body);
            let context = format!("{what}, {name} runtime, run {run}: {report}");
            assert_eq!(report.len(), 1, "{context}");
            let race = &report.races()[0];
            assert_eq!(race.kind(), RaceKind::Flow, "{context}");
            let (writer, reader) = (race.previous(), race.current());
            for (access, line) in [(writer, write), (reader, read)] {
                assert!(access.location().file().ends_with(FILE), "{context}");
                assert_eq!(access.location().line(), line, "{context}");
                assert!(access.is_task(), "{context}");
                assert_eq!(access.thread_name(), None, "{context}");
                let label = format!(" by task {}", access.thread_id());
                assert!(report.to_string().contains(&label), "{label}: {context}");
            }
            assert_ne!(writer.thread_id(), reader.thread_id(), "{context}");
            let last_sync = reader.after_sync().unwrap_or_default();
            let at = format!(" at {FILE}:{stream}:");
            assert!(
                last_sync.starts_with(receiving) && last_sync.contains(&at),
                "last sync {last_sync:?}, not {receiving}...{at}: {context}"
            );
        }
    }
}

fn cell() -> Arc<Shared<u64>> {
    Arc::new(Shared::new(0))
}

fn cells(n: usize) -> Arc<Vec<Shared<u64>>> {
    Arc::new((0..n).map(|_| Shared::new(0)).collect())
}

/// A flag the detector does not see: real-time order without happens-before.
#[derive(Clone, Default)]
struct Flag(Arc<AtomicBool>);

impl Flag {
    fn raise(&self) {
        self.0.store(true, SeqCst);
    }

    async fn raised(&self) {
        while !self.0.load(SeqCst) {
            task::yield_now().await;
        }
    }
}

// === ReceiverStream ===

/// Three producers write their slots and send their indices through a bounded channel of two;
/// the consumer takes them through `ReceiverStream` and `StreamExt::next`, reading the slot of
/// each index it takes.
#[test]
fn receiver_stream_orders_each_send_before_its_item() {
    no_report_every_run("ReceiverStream", || async {
        let slots = cells(15);
        let (tx, rx) = mpsc::channel::<usize>(2);
        let mut producers = Vec::new();
        for p in 0..3 {
            let (tx, slots) = (tx.clone(), slots.clone());
            producers.push(racer::tokio::spawn(async move {
                for i in p * 5..p * 5 + 5 {
                    unsafe { slots[i].set(i as u64 + 1) };
                    tx.send(i).await.unwrap();
                }
            }));
        }
        drop(tx);
        let mut stream = ReceiverStream::new(rx);
        let mut seen = 0;
        while let Some(i) = stream.next().await {
            assert_eq!(unsafe { slots[i].get() }, i as u64 + 1);
            seen += 1;
        }
        assert_eq!(seen, 15);
        for producer in producers {
            producer.await.unwrap();
        }
    });
}

/// The consumer took the first message only: it is not ordered after what the producer did
/// between the first and the second send, though both were sent before it took the first.
#[cfg(feature = "race-detect")]
#[test]
fn receiver_stream_orders_only_the_items_taken() {
    flow_race_every_run("ReceiverStream", "receiving from a tokio::sync::mpsc channel", || async {
        let (tx, rx) = mpsc::channel::<u32>(4);
        let (x, sent) = (cell(), Flag::default());
        let (x2, s) = (x.clone(), sent.clone());
        let producer = racer::tokio::spawn(async move {
            tx.send(1).await.unwrap();
            unsafe { x2.set(1) } // <- write (ReceiverStream)
            tx.send(2).await.unwrap();
            s.raise();
        });
        let consumer = racer::tokio::spawn(async move {
            sent.raised().await;
            let mut stream = ReceiverStream::new(rx); // <- stream (ReceiverStream)
            assert_eq!(stream.next().await, Some(1));
            assert_eq!(unsafe { x.get() }, 1); // <- read (ReceiverStream)
        });
        producer.await.unwrap();
        consumer.await.unwrap();
    });
}

// === UnboundedReceiverStream ===

/// A producer writes each slot and sends its index; the consumer takes them through
/// `StreamExt`'s adapters (`map`, `take`, `collect`) then `next`, from a stream made by `From`.
#[test]
fn unbounded_receiver_stream_orders_each_send_before_its_item() {
    no_report_every_run("UnboundedReceiverStream", || async {
        let slots = cells(20);
        let (tx, rx) = mpsc::unbounded_channel::<usize>();
        let slots2 = slots.clone();
        let producer = racer::tokio::spawn(async move {
            for i in 0..20 {
                unsafe { slots2[i].set(i as u64 + 1) };
                tx.send(i).unwrap();
            }
        });
        let mut stream = UnboundedReceiverStream::from(rx);
        let read = |i: usize| unsafe { slots[i].get() } == i as u64 + 1;
        let firsts: Vec<bool> = (&mut stream).take(10).map(read).collect().await;
        assert_eq!(firsts, [true; 10]);
        let mut seen = 10;
        while let Some(i) = stream.next().await {
            assert!(read(i));
            seen += 1;
        }
        assert_eq!(seen, 20);
        producer.await.unwrap();
    });
}

/// As for `ReceiverStream`: the consumer is ordered after the sends of the items it took only.
#[cfg(feature = "race-detect")]
#[test]
fn unbounded_receiver_stream_orders_only_the_items_taken() {
    flow_race_every_run("UnboundedReceiverStream", "receiving from a tokio::sync::mpsc channel", || async {
        let (tx, rx) = mpsc::unbounded_channel::<u32>();
        let (x, sent) = (cell(), Flag::default());
        let (x2, s) = (x.clone(), sent.clone());
        let producer = racer::tokio::spawn(async move {
            tx.send(1).unwrap();
            unsafe { x2.set(1) } // <- write (UnboundedReceiverStream)
            tx.send(2).unwrap();
            s.raise();
        });
        let consumer = racer::tokio::spawn(async move {
            sent.raised().await;
            let mut stream = UnboundedReceiverStream::new(rx); // <- stream (UnboundedReceiverStream)
            assert_eq!(stream.next().await, Some(1));
            assert_eq!(unsafe { x.get() }, 1); // <- read (UnboundedReceiverStream)
        });
        producer.await.unwrap();
        consumer.await.unwrap();
    });
}

// === BroadcastStream ===

/// A sender writes each slot and broadcasts its index; two receivers, each through a
/// `BroadcastStream` (one in a task of its own), read the slot of each index they take.
#[test]
fn broadcast_stream_orders_each_send_before_every_item() {
    no_report_every_run("BroadcastStream", || async {
        let slots = cells(8);
        let (tx, rx1) = broadcast::channel::<usize>(16);
        let rx2 = tx.subscribe();
        let slots2 = slots.clone();
        let sender = racer::tokio::spawn(async move {
            for i in 0..8 {
                unsafe { slots2[i].set(i as u64 + 1) };
                assert_eq!(tx.send(i).unwrap(), 2);
            }
        });
        let slots3 = slots.clone();
        let second = racer::tokio::spawn(async move {
            let mut stream = BroadcastStream::new(rx2);
            let mut seen = 0;
            while let Some(i) = stream.next().await {
                let i = i.unwrap();
                assert_eq!(unsafe { slots3[i].get() }, i as u64 + 1);
                seen += 1;
            }
            assert_eq!(seen, 8);
        });
        let mut stream = BroadcastStream::from(rx1);
        let mut seen = 0;
        while let Some(i) = stream.next().await {
            let i = i.unwrap();
            assert_eq!(unsafe { slots[i].get() }, i as u64 + 1);
            seen += 1;
        }
        assert_eq!(seen, 8);
        sender.await.unwrap();
        second.await.unwrap();
    });
}

/// As for `ReceiverStream`: a receiver is ordered after the sends of the items it took only.
#[cfg(feature = "race-detect")]
#[test]
fn broadcast_stream_orders_only_the_items_taken() {
    flow_race_every_run("BroadcastStream", "receiving from a tokio::sync::broadcast channel", || async {
        let (tx, rx) = broadcast::channel::<u32>(4);
        let (x, sent) = (cell(), Flag::default());
        let (x2, s) = (x.clone(), sent.clone());
        let sender = racer::tokio::spawn(async move {
            tx.send(1).unwrap();
            unsafe { x2.set(1) } // <- write (BroadcastStream)
            tx.send(2).unwrap();
            s.raise();
            tx
        });
        let receiver = racer::tokio::spawn(async move {
            sent.raised().await;
            let mut stream = BroadcastStream::new(rx); // <- stream (BroadcastStream)
            assert_eq!(stream.next().await, Some(Ok(1)));
            assert_eq!(unsafe { x.get() }, 1); // <- read (BroadcastStream)
        });
        receiver.await.unwrap();
        drop(sender.await.unwrap());
    });
}

// === WatchStream ===

/// A sender writes each slot then sends its index (the receiver's streams may skip values: a
/// watch channel keeps the latest); a `WatchStream` (the current value first) and one made by
/// `from_changes` (changes only), in another task, read the slot of each value they see.
#[test]
fn watch_stream_orders_each_send_before_who_sees_its_value() {
    no_report_every_run("WatchStream", || async {
        let slots = cells(11);
        let (tx, rx) = watch::channel(0usize);
        let changes = WatchStream::from_changes(rx.clone());
        let slots2 = slots.clone();
        let sender = racer::tokio::spawn(async move {
            for i in 1..=10 {
                unsafe { slots2[i].set(i as u64) };
                tx.send(i).unwrap();
                task::yield_now().await;
            }
        });
        let slots3 = slots.clone();
        let second = racer::tokio::spawn(async move {
            let mut changes = changes;
            let mut last = 0;
            while let Some(i) = changes.next().await {
                assert!(i > last, "{i} after {last}");
                assert_eq!(unsafe { slots3[i].get() }, i as u64);
                last = i;
            }
            assert_eq!(last, 10);
        });
        let mut stream = WatchStream::new(rx);
        let mut last = None;
        while let Some(i) = stream.next().await {
            if i > 0 {
                assert_eq!(unsafe { slots[i].get() }, i as u64);
            }
            last = Some(i);
        }
        assert_eq!(last, Some(10));
        sender.await.unwrap();
        second.await.unwrap();
    });
}

/// A write after the send of the value a `WatchStream` gives is not ordered before it.
#[cfg(feature = "race-detect")]
#[test]
fn watch_stream_orders_nothing_after_the_send_seen() {
    flow_race_every_run("WatchStream", "receiving from a tokio::sync::watch channel", || async {
        let (tx, rx) = watch::channel(0u64);
        let (x, sent) = (cell(), Flag::default());
        let (x2, s) = (x.clone(), sent.clone());
        let sender = racer::tokio::spawn(async move {
            tx.send(1).unwrap();
            unsafe { x2.set(1) } // <- write (WatchStream)
            s.raise();
            tx
        });
        let receiver = racer::tokio::spawn(async move {
            sent.raised().await;
            let mut stream = WatchStream::new(rx); // <- stream (WatchStream)
            assert_eq!(stream.next().await, Some(1));
            assert_eq!(unsafe { x.get() }, 1); // <- read (WatchStream)
        });
        receiver.await.unwrap();
        drop(sender.await.unwrap());
    });
}

// === JoinSetStream ===

/// Eight tasks of a `JoinSet` each write their slot; the stream of the set joins each as it
/// ends, and the slot of each task joined is read.
#[test]
fn join_set_stream_orders_each_task_before_its_item() {
    no_report_every_run("JoinSetStream", || async {
        let slots = cells(8);
        let mut set = JoinSet::new();
        for i in 0..8 {
            let slots = slots.clone();
            set.spawn(async move {
                unsafe { slots[i].set(i as u64 + 1) };
                i
            });
        }
        let mut stream = JoinSetStream::new(set);
        assert_eq!(stream.size_hint(), (8, Some(8)));
        let mut seen = 0;
        while let Some(i) = stream.next().await {
            let i = i.unwrap();
            assert_eq!(unsafe { slots[i].get() }, i as u64 + 1);
            seen += 1;
        }
        assert_eq!(seen, 8);
    });
}

/// The stream gave the first task's end only: the joiner is not ordered after what the second
/// task (still running) did.
#[cfg(feature = "race-detect")]
#[test]
fn join_set_stream_orders_only_the_tasks_joined() {
    flow_race_every_run("JoinSetStream", "joining a task", || async {
        let (y, written, go) = (cell(), Flag::default(), Flag::default());
        let joiner = racer::tokio::spawn(async move {
            let mut set = JoinSet::new(); // <- stream (JoinSetStream)
            set.spawn(async { 1 });
            let (y2, w, g) = (y.clone(), written.clone(), go.clone());
            set.spawn(async move {
                unsafe { y2.set(1) } // <- write (JoinSetStream)
                w.raise();
                g.raised().await;
                2
            });
            let mut stream = JoinSetStream::from(set);
            assert_eq!(stream.next().await.unwrap().unwrap(), 1);
            written.raised().await;
            assert_eq!(unsafe { y.get() }, 1); // <- read (JoinSetStream)
            go.raise();
            assert_eq!(stream.next().await.unwrap().unwrap(), 2);
        });
        joiner.await.unwrap();
    });
}

// === API ===

/// The wrappers have tokio-stream's API: `new`, `From`, `into_inner`, `as_ref`, `as_mut`,
/// `close`, `size_hint`, `Debug`, a broadcast lag as an item, `from_changes` waiting for a
/// change; and its auto traits.
#[test]
fn the_wrappers_have_tokio_streams_api() {
    fn send_sync_unpin<T: Send + Sync + Unpin>() {}
    send_sync_unpin::<ReceiverStream<u8>>();
    send_sync_unpin::<UnboundedReceiverStream<u8>>();
    send_sync_unpin::<BroadcastStream<u8>>();
    send_sync_unpin::<WatchStream<u8>>();
    send_sync_unpin::<JoinSetStream<u8>>();

    current_thread().block_on(async {
        let (tx, rx) = mpsc::channel::<u8>(4);
        let mut stream = ReceiverStream::from(rx);
        tx.send(1).await.unwrap();
        tx.send(2).await.unwrap();
        assert_eq!(stream.size_hint(), (2, None));
        assert_eq!(stream.as_ref().len(), 2);
        assert_eq!(stream.as_mut().try_recv(), Ok(1));
        assert!(format!("{stream:?}").starts_with("ReceiverStream { inner: "), "{stream:?}");
        stream.close();
        assert_eq!(stream.size_hint(), (1, Some(1)));
        assert!(tx.send(3).await.is_err());
        let mut rx = stream.into_inner();
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(rx.recv().await, None);

        let (tx, rx) = mpsc::unbounded_channel::<u8>();
        let mut stream = UnboundedReceiverStream::new(rx);
        tx.send(1).unwrap();
        assert_eq!(stream.size_hint(), (1, None));
        assert!(format!("{stream:?}").starts_with("UnboundedReceiverStream { inner: "), "{stream:?}");
        stream.close();
        assert_eq!(stream.size_hint(), (1, Some(1)));
        assert_eq!(stream.as_mut().try_recv(), Ok(1));
        assert!(stream.as_ref().is_closed());
        assert_eq!(stream.next().await, None);
        drop(stream.into_inner());

        let (tx, rx) = broadcast::channel::<u8>(2);
        for i in 1..=3 {
            tx.send(i).unwrap();
        }
        drop(tx);
        let stream = BroadcastStream::new(rx);
        assert_eq!(format!("{stream:?}"), "BroadcastStream");
        let items: Vec<Result<u8, BroadcastStreamRecvError>> = stream.collect().await;
        assert_eq!(items, [Err(BroadcastStreamRecvError::Lagged(1)), Ok(2), Ok(3)]);

        let (tx, rx) = watch::channel(1u8);
        let mut changes = WatchStream::from_changes(rx.clone());
        assert_eq!(format!("{changes:?}"), "WatchStream");
        let mut change = std::pin::pin!(changes.next());
        assert!(futures::poll!(change.as_mut()).is_pending());
        tx.send(2).unwrap();
        assert_eq!(change.await, Some(2));
        let mut stream = WatchStream::from(rx);
        assert_eq!(stream.next().await, Some(2));
        drop(tx);
        assert_eq!(stream.next().await, None);
        assert_eq!(changes.next().await, None);

        let mut set = JoinSet::new();
        set.spawn(async { 7u8 });
        let mut stream = JoinSetStream::new(set);
        assert!(format!("{stream:?}").starts_with("JoinSetStream { inner: "), "{stream:?}");
        assert_eq!(stream.as_ref().len(), 1);
        assert_eq!(stream.as_mut().join_next().await.unwrap().unwrap(), 7);
        assert!(stream.into_inner().is_empty());
    });
}

/// What stays tokio-stream's own in both builds: the traits, `StreamMap`, the other wrappers,
/// the error type. Only compiles if they are tokio-stream's items.
#[test]
fn the_rest_is_tokio_streams_own() {
    fn same<T>(x: T) -> T {
        x
    }
    fn is_tokio_stream<S: tokio_stream::Stream + tokio_stream::StreamExt>(_: &S) {}
    fn is_racer_stream<S: Stream + StreamExt>(_: &S) {}
    let _: fn(BroadcastStreamRecvError) -> tokio_stream::wrappers::errors::BroadcastStreamRecvError = same;
    let _: fn(racer::tokio_stream::StreamMap<u8, tokio_stream::Empty<u8>>) -> tokio_stream::StreamMap<u8, _> = same;
    let _: fn(racer::tokio_stream::wrappers::IntervalStream) -> tokio_stream::wrappers::IntervalStream = same;
    let _: fn(racer::tokio_stream::Iter<std::vec::IntoIter<u8>>) -> tokio_stream::Iter<_> = same;
    let racer_made = racer::tokio_stream::iter(vec![1u8]);
    let tokio_made = tokio_stream::iter(vec![1u8]);
    is_tokio_stream(&racer_made);
    is_racer_stream(&tokio_made);
}

/// Without `race-detect`, `racer::tokio_stream`'s wrappers are tokio-stream's own, over tokio's
/// own channels. Only compiles if they are the same types.
#[cfg(not(feature = "race-detect"))]
#[test]
fn feature_off_wrappers_are_tokio_streams_own() {
    fn same<T>(x: T) -> T {
        x
    }
    let _: fn(ReceiverStream<u8>) -> tokio_stream::wrappers::ReceiverStream<u8> = same;
    let _: fn(UnboundedReceiverStream<u8>) -> tokio_stream::wrappers::UnboundedReceiverStream<u8> = same;
    let _: fn(BroadcastStream<u8>) -> tokio_stream::wrappers::BroadcastStream<u8> = same;
    let _: fn(WatchStream<u8>) -> tokio_stream::wrappers::WatchStream<u8> = same;
    let _: fn(JoinSetStream<u8>) -> tokio_stream::wrappers::JoinSetStream<u8> = same;
}
