//! `Select` over racer's ends, and the `select!`/`select_biased!` macros on top of it. The
//! crate's `Select` waits on the crate's channels inside racer's ends; completing the selected
//! operation through racer's `SelectedOperation` releases into the message sent or acquires the
//! message received, as `Sender::send` and `Receiver::recv` do.

use std::fmt;
use std::panic::Location;
use std::time::{Duration, Instant};

use crossbeam_channel_crate as cc;

use super::{sent, took, Flavor, Receiver, Sender};
use super::{ReadyTimeoutError, RecvError, SelectTimeoutError, SendError, TryReadyError, TrySelectError};

/// Waits on several operations at once, as `crossbeam_channel::Select`. Invariant: it only
/// selects; the operation it selects is completed through [`SelectedOperation`], which orders
/// the message as a send or a receive does.
pub struct Select<'a> {
    inner: cc::Select<'a>,
}

impl<'a> Select<'a> {
    /// An empty list of operations, selected fairly: as crossbeam's `Select::new`.
    pub fn new() -> Select<'a> {
        Select { inner: cc::Select::new() }
    }

    /// An empty list of operations, selected in order: as crossbeam's `Select::new_biased`.
    pub fn new_biased() -> Select<'a> {
        Select { inner: cc::Select::new_biased() }
    }

    /// Adds a send on `s`; returns its index.
    pub fn send<T>(&mut self, s: &'a Sender<T>) -> usize {
        self.inner.send(&s.inner)
    }

    /// Adds a receive on `r`; returns its index.
    pub fn recv<T>(&mut self, r: &'a Receiver<T>) -> usize {
        match &r.inner {
            Flavor::Carried(r, _) => self.inner.recv(r),
            Flavor::Plain(r) => self.inner.recv(r),
        }
    }

    /// Removes the operation of index `index`.
    pub fn remove(&mut self, index: usize) {
        self.inner.remove(index);
    }

    /// Selects an operation ready now: as crossbeam's `try_select`.
    pub fn try_select(&mut self) -> Result<SelectedOperation<'a>, TrySelectError> {
        self.inner.try_select().map(|inner| SelectedOperation { inner })
    }

    /// Selects an operation, waiting for one to be ready: as crossbeam's `select`.
    pub fn select(&mut self) -> SelectedOperation<'a> {
        SelectedOperation { inner: self.inner.select() }
    }

    /// Selects an operation, waiting at most `timeout`: as crossbeam's `select_timeout`.
    pub fn select_timeout(&mut self, timeout: Duration) -> Result<SelectedOperation<'a>, SelectTimeoutError> {
        self.inner.select_timeout(timeout).map(|inner| SelectedOperation { inner })
    }

    /// Selects an operation, waiting until `deadline` at most: as crossbeam's
    /// `select_deadline`.
    pub fn select_deadline(&mut self, deadline: Instant) -> Result<SelectedOperation<'a>, SelectTimeoutError> {
        self.inner.select_deadline(deadline).map(|inner| SelectedOperation { inner })
    }

    /// The index of an operation ready now: as crossbeam's `try_ready`. Nothing is sent or
    /// received: the operation done next on the end orders as usual.
    pub fn try_ready(&mut self) -> Result<usize, TryReadyError> {
        self.inner.try_ready()
    }

    /// The index of an operation ready, waiting for one: as crossbeam's `ready`.
    pub fn ready(&mut self) -> usize {
        self.inner.ready()
    }

    /// As `ready`, waiting at most `timeout`.
    pub fn ready_timeout(&mut self, timeout: Duration) -> Result<usize, ReadyTimeoutError> {
        self.inner.ready_timeout(timeout)
    }

    /// As `ready`, waiting until `deadline` at most.
    pub fn ready_deadline(&mut self, deadline: Instant) -> Result<usize, ReadyTimeoutError> {
        self.inner.ready_deadline(deadline)
    }
}

impl Clone for Select<'_> {
    fn clone(&self) -> Self {
        Select { inner: self.inner.clone() }
    }
}

impl Default for Select<'_> {
    fn default() -> Self {
        Select::new()
    }
}

impl fmt::Debug for Select<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// An operation selected by [`Select`], to be completed, as
/// `crossbeam_channel::SelectedOperation`. Invariant: `send` and `recv` order their message as
/// `Sender::send` and `Receiver::recv` do.
#[must_use]
pub struct SelectedOperation<'a> {
    inner: cc::SelectedOperation<'a>,
}

impl SelectedOperation<'_> {
    /// The index of the operation selected.
    pub fn index(&self) -> usize {
        self.inner.index()
    }

    /// Completes the selected send of `msg` on `s`: as crossbeam's `SelectedOperation::send`.
    #[track_caller]
    pub fn send<T>(self, s: &Sender<T>, msg: T) -> Result<(), SendError<T>> {
        let at = Location::caller();
        let (message, pending) = s.ends.send(msg, at);
        sent(&s.ends, pending, self.inner.send(&s.inner, message), at)
    }

    /// Completes the selected receive on `r`: as crossbeam's `SelectedOperation::recv`.
    #[track_caller]
    pub fn recv<T>(self, r: &Receiver<T>) -> Result<T, RecvError> {
        match &r.inner {
            Flavor::Carried(r, ends) => took(ends, self.inner.recv(r), Location::caller()),
            Flavor::Plain(r) => self.inner.recv(r),
        }
    }
}

impl fmt::Debug for SelectedOperation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// `racer::crossbeam_channel::select!`: crossbeam's `select!` on racer's ends, over racer's
/// [`Select`](crate::crossbeam_channel::Select). Cases: `recv(r) -> msg => body`,
/// `send(s, value) -> res => body`, and at most one of `default => body` and
/// `default(timeout) => body`. Each end's expression is evaluated once, before the selection;
/// a send's value only if that send is selected.
#[doc(hidden)]
#[macro_export]
macro_rules! __racer_crossbeam_select {
    ($($cases:tt)*) => {
        $crate::__racer_crossbeam_select_parse!(new [] [] $($cases)*)
    };
}

/// `racer::crossbeam_channel::select_biased!`: as `select!`, the first ready case in the order
/// written selected.
#[doc(hidden)]
#[macro_export]
macro_rules! __racer_crossbeam_select_biased {
    ($($cases:tt)*) => {
        $crate::__racer_crossbeam_select_parse!(new_biased [] [] $($cases)*)
    };
}

/// The cases of a `select!`, parsed one at a time into `[ (kind chan index (args) (pattern)
/// (body)) ... ]` and `[ default ]`; `chan` and `index` are names made by the step that parsed
/// the case (each step's names are its own), then the whole is emitted.
#[doc(hidden)]
#[macro_export]
macro_rules! __racer_crossbeam_select_parse {
    // recv(r) -> pattern => body
    ($new:ident [$($cases:tt)*] [$($default:tt)*]
        recv($r:expr) -> $res:pat => $body:block $(, $($rest:tt)*)?) => {
        $crate::__racer_crossbeam_select_parse!($new
            [$($cases)* (recv chan index ($r) ($res) ($body))] [$($default)*] $($($rest)*)?)
    };
    ($new:ident [$($cases:tt)*] [$($default:tt)*]
        recv($r:expr) -> $res:pat => $body:block $($rest:tt)+) => {
        $crate::__racer_crossbeam_select_parse!($new
            [$($cases)* (recv chan index ($r) ($res) ($body))] [$($default)*] $($rest)+)
    };
    ($new:ident [$($cases:tt)*] [$($default:tt)*]
        recv($r:expr) -> $res:pat => $body:expr $(, $($rest:tt)*)?) => {
        $crate::__racer_crossbeam_select_parse!($new
            [$($cases)* (recv chan index ($r) ($res) ($body))] [$($default)*] $($($rest)*)?)
    };
    // send(s, value) -> pattern => body
    ($new:ident [$($cases:tt)*] [$($default:tt)*]
        send($s:expr, $m:expr) -> $res:pat => $body:block $(, $($rest:tt)*)?) => {
        $crate::__racer_crossbeam_select_parse!($new
            [$($cases)* (send chan index ($s, $m) ($res) ($body))] [$($default)*] $($($rest)*)?)
    };
    ($new:ident [$($cases:tt)*] [$($default:tt)*]
        send($s:expr, $m:expr) -> $res:pat => $body:block $($rest:tt)+) => {
        $crate::__racer_crossbeam_select_parse!($new
            [$($cases)* (send chan index ($s, $m) ($res) ($body))] [$($default)*] $($rest)+)
    };
    ($new:ident [$($cases:tt)*] [$($default:tt)*]
        send($s:expr, $m:expr) -> $res:pat => $body:expr $(, $($rest:tt)*)?) => {
        $crate::__racer_crossbeam_select_parse!($new
            [$($cases)* (send chan index ($s, $m) ($res) ($body))] [$($default)*] $($($rest)*)?)
    };
    // default => body, default(timeout) => body: one at most
    ($new:ident [$($cases:tt)*] [] default => $body:block $(, $($rest:tt)*)?) => {
        $crate::__racer_crossbeam_select_parse!($new [$($cases)*] [now () ($body)] $($($rest)*)?)
    };
    ($new:ident [$($cases:tt)*] [] default => $body:block $($rest:tt)+) => {
        $crate::__racer_crossbeam_select_parse!($new [$($cases)*] [now () ($body)] $($rest)+)
    };
    ($new:ident [$($cases:tt)*] [] default => $body:expr $(, $($rest:tt)*)?) => {
        $crate::__racer_crossbeam_select_parse!($new [$($cases)*] [now () ($body)] $($($rest)*)?)
    };
    ($new:ident [$($cases:tt)*] [] default($t:expr $(,)?) => $body:block $(, $($rest:tt)*)?) => {
        $crate::__racer_crossbeam_select_parse!($new [$($cases)*] [timeout ($t) ($body)] $($($rest)*)?)
    };
    ($new:ident [$($cases:tt)*] [] default($t:expr $(,)?) => $body:block $($rest:tt)+) => {
        $crate::__racer_crossbeam_select_parse!($new [$($cases)*] [timeout ($t) ($body)] $($rest)+)
    };
    ($new:ident [$($cases:tt)*] [] default($t:expr $(,)?) => $body:expr $(, $($rest:tt)*)?) => {
        $crate::__racer_crossbeam_select_parse!($new [$($cases)*] [timeout ($t) ($body)] $($($rest)*)?)
    };
    ($new:ident [$($cases:tt)*] [$($default:tt)+] default $($rest:tt)*) => {
        ::core::compile_error!("there can be only one `default` case in a `select!` block")
    };
    // all parsed
    ($new:ident [$($cases:tt)*] [$($default:tt)*]) => {
        $crate::__racer_crossbeam_select_emit!($new [$($cases)*] [$($default)*])
    };
    ($new:ident [$($cases:tt)*] [$($default:tt)*] $($rest:tt)+) => {
        ::core::compile_error!(::core::concat!(
            "expected `recv(r) -> pattern => body`, `send(s, value) -> pattern => body`, ",
            "`default => body` or `default(timeout) => body`, found: `",
            ::core::stringify!($($rest)+), "`"
        ))
    };
}

/// The code of a parsed `select!`: each end bound once, the operations added to a `Select`, the
/// selected one completed and its body run (after the `Select` is dropped, so bodies may move
/// or reassign the ends).
#[doc(hidden)]
#[macro_export]
macro_rules! __racer_crossbeam_select_emit {
    ($new:ident
        [$(($kind:ident $chan:ident $index:ident ($($args:tt)*) ($res:pat) ($body:expr)))*]
        [$($default:tt)*]
    ) => {{
        $( $crate::__racer_crossbeam_select_case!(bind $kind $chan ($($args)*)); )*
        let mut sel = $crate::crossbeam_channel::Select::$new();
        $( let $index = $crate::__racer_crossbeam_select_case!(add $kind sel $chan); )*
        $crate::__racer_crossbeam_select_run!(sel [$(($kind $chan $index ($($args)*) ($res) ($body)))*] [$($default)*])
    }};
}

/// Waits as the default case says, then completes the operation selected.
#[doc(hidden)]
#[macro_export]
macro_rules! __racer_crossbeam_select_run {
    ($sel:ident [$($case:tt)*] []) => {{
        let op = $sel.select();
        ::core::mem::drop($sel);
        $crate::__racer_crossbeam_select_complete!(op [$($case)*])
    }};
    ($sel:ident [$($case:tt)*] [now () ($body:expr)]) => {{
        let selected = $sel.try_select();
        ::core::mem::drop($sel);
        match selected {
            ::core::result::Result::Ok(op) => $crate::__racer_crossbeam_select_complete!(op [$($case)*]),
            ::core::result::Result::Err(_) => $body,
        }
    }};
    ($sel:ident [$($case:tt)*] [timeout ($t:expr) ($body:expr)]) => {{
        let selected = $sel.select_timeout($t);
        ::core::mem::drop($sel);
        match selected {
            ::core::result::Result::Ok(op) => $crate::__racer_crossbeam_select_complete!(op [$($case)*]),
            ::core::result::Result::Err(_) => $body,
        }
    }};
}

/// Completes `op` on the case it selected and runs that case's body.
#[doc(hidden)]
#[macro_export]
macro_rules! __racer_crossbeam_select_complete {
    ($op:ident [$(($kind:ident $chan:ident $index:ident ($($args:tt)*) ($res:pat) ($body:expr)))*]) => {{
        let selected = $op.index();
        $(
            if selected == $index {
                let $res = $crate::__racer_crossbeam_select_case!(complete $kind $op $chan ($($args)*));
                $body
            } else
        )* {
            ::core::unreachable!("select! completed an operation it did not add")
        }
    }};
}

/// One case's parts: binding its end, adding its operation, completing it.
#[doc(hidden)]
#[macro_export]
macro_rules! __racer_crossbeam_select_case {
    (bind recv $chan:ident ($r:expr)) => {
        let $chan = &$r;
    };
    (bind send $chan:ident ($s:expr, $m:expr)) => {
        let $chan = &$s;
    };
    (add recv $sel:ident $chan:ident) => {
        $sel.recv($chan)
    };
    (add send $sel:ident $chan:ident) => {
        $sel.send($chan)
    };
    (complete recv $op:ident $chan:ident ($r:expr)) => {
        $op.recv($chan)
    };
    (complete send $op:ident $chan:ident ($s:expr, $m:expr)) => {
        $op.send($chan, $m)
    };
}
