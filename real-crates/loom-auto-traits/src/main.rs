//! Prints every public type of loom 0.7.2 whose auto traits differ from racer's stand-in's
//! type of the same path, both ways (a trait one has and the other lacks), for each of several
//! type arguments of a generic type; exits with status 1 if any differs.

use std::cell::Cell;
use std::marker::PhantomPinned;
use std::rc::Rc;

/// Whether the concrete type `$t` implements `$tr`: an inherent method, which exists only when
/// the bound holds, is chosen before the trait's fallback (so `$t` must be concrete).
macro_rules! implements {
    ($t:ty: $tr:path) => {{
        struct Probe<T: ?Sized>(std::marker::PhantomData<T>);
        #[allow(dead_code)]
        trait Fallback {
            fn holds(&self) -> bool {
                false
            }
        }
        impl<T: ?Sized> Fallback for Probe<T> {}
        #[allow(dead_code)]
        impl<T: ?Sized + $tr> Probe<T> {
            fn holds(&self) -> bool {
                true
            }
        }
        Probe::<$t>(std::marker::PhantomData).holds()
    }};
}

const TRAITS: [&str; 5] = ["Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"];

macro_rules! auto_traits {
    ($t:ty) => {
        [
            implements!($t: Send),
            implements!($t: Sync),
            implements!($t: Unpin),
            implements!($t: std::panic::UnwindSafe),
            implements!($t: std::panic::RefUnwindSafe),
        ]
    };
}

/// One type's comparison: its name, loom's traits, the stand-in's.
struct Row {
    name: String,
    loom: [bool; 5],
    stand_in: [bool; 5],
}

/// A type without parameters: `plain!(rows, sync::Condvar)`.
macro_rules! plain {
    ($rows:ident, $($p:ident)::+) => {
        $rows.push(Row {
            name: stringify!($($p)::+).replace(' ', ""),
            loom: auto_traits!(loom::$($p)::+),
            stand_in: auto_traits!(stand_in::$($p)::+),
        });
    };
}

/// A generic type, for each argument: `generic!(rows, A => sync::MutexGuard<'static, A>)`.
macro_rules! generic {
    ($rows:ident, $a:ident => $($p:ident)::+ < $($arg:tt)* ) => {{
        generic!(@ $rows, $a, [$($p)::+], [$($arg)*], u32, Rc<u32>, Cell<u32>, std::sync::MutexGuard<'static, u32>, PhantomPinned, &'static mut u32, *mut u32);
    }};
    (@ $rows:ident, $a:ident, [$($p:ident)::+], [$($arg:tt)*], $($t:ty),*) => {{
        #[allow(type_alias_bounds, dead_code)]
        type Loom<$a> = loom::$($p)::+ < $($arg)*;
        #[allow(type_alias_bounds, dead_code)]
        type StandIn<$a> = stand_in::$($p)::+ < $($arg)*;
        let base = stringify!($($p)::+).replace(' ', "");
        $(
            $rows.push(Row {
                name: format!("{base}<{}>", stringify!($t).replace(' ', "")),
                loom: auto_traits!(Loom<$t>),
                stand_in: auto_traits!(StandIn<$t>),
            });
        )*
    }};
}

fn main() {
    let mut rows = Vec::new();
    generic!(rows, A => cell::UnsafeCell<A>);
    generic!(rows, A => cell::ConstPtr<A>);
    generic!(rows, A => cell::MutPtr<A>);
    generic!(rows, A => cell::Cell<A>);
    generic!(rows, A => sync::Arc<A>);
    generic!(rows, A => sync::Mutex<A>);
    generic!(rows, A => sync::MutexGuard<'static, A>);
    generic!(rows, A => sync::RwLock<A>);
    generic!(rows, A => sync::RwLockReadGuard<'static, A>);
    generic!(rows, A => sync::RwLockWriteGuard<'static, A>);
    generic!(rows, A => sync::mpsc::Sender<A>);
    generic!(rows, A => sync::mpsc::Receiver<A>);
    generic!(rows, A => sync::atomic::AtomicPtr<A>);
    generic!(rows, A => thread::JoinHandle<A>);
    generic!(rows, A => alloc::Track<A>);
    plain!(rows, sync::Condvar);
    plain!(rows, sync::WaitTimeoutResult);
    plain!(rows, sync::Barrier);
    plain!(rows, sync::Notify);
    plain!(rows, sync::atomic::AtomicBool);
    plain!(rows, sync::atomic::AtomicU8);
    plain!(rows, sync::atomic::AtomicU16);
    plain!(rows, sync::atomic::AtomicU32);
    plain!(rows, sync::atomic::AtomicU64);
    plain!(rows, sync::atomic::AtomicUsize);
    plain!(rows, sync::atomic::AtomicI8);
    plain!(rows, sync::atomic::AtomicI16);
    plain!(rows, sync::atomic::AtomicI32);
    plain!(rows, sync::atomic::AtomicI64);
    plain!(rows, sync::atomic::AtomicIsize);
    plain!(rows, thread::Builder);
    plain!(rows, thread::Thread);
    plain!(rows, thread::ThreadId);
    plain!(rows, future::AtomicWaker);
    plain!(rows, model::Builder);
    plain!(rows, alloc::Layout);

    let mut differences = 0;
    for row in &rows {
        for (i, name) in TRAITS.iter().enumerate() {
            if row.loom[i] != row.stand_in[i] {
                differences += 1;
                let has = |b: bool| if b { "is" } else { "is not" };
                println!("{}: loom's {} {name}, the stand-in's {}", row.name, has(row.loom[i]), has(row.stand_in[i]));
            }
        }
    }
    println!("{} types compared (5 auto traits each): {differences} differences", rows.len());
    if differences > 0 {
        std::process::exit(1);
    }
}
