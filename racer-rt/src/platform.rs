//! What the detector (`racer-core`, std only) needs from other crates, installed before `main`
//! by a start-up hook: unwind rules (`unwind_tables`, gimli), unwinding and symbols
//! (`backtrace`), and C library calls (`libc`). See `racer_core::platform`.

use racer_core::platform::{Platform, Symbol};

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[path = "unwind_tables.rs"]
mod unwind_tables;

/// Installs the hooks, then reads `RACER_OPTIONS` (a bad option stops the program here, before
/// `main` and before the test harness starts its threads).
#[ctor::ctor(unsafe)]
fn start_up() {
    racer_core::platform::install(Platform {
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        unwind_rule: unwind_tables::make_rule,
        unwind,
        resolve,
        stack_range,
        is_main_thread,
        at_exit,
        end_process,
        write_stderr,
    });
    racer_core::start_up();
}

fn unwind(record: &mut dyn FnMut(usize) -> bool) {
    let mut each = |frame: &backtrace::Frame| record(frame.ip() as usize);
    // SAFETY: `trace_unsynchronized` only requires that no other thread unwinds through a
    // non-thread-safe unwinder at the same time; the system unwinder on unix is thread safe.
    #[cfg(unix)]
    unsafe {
        backtrace::trace_unsynchronized(&mut each)
    }
    #[cfg(not(unix))]
    backtrace::trace(&mut each);
}

fn resolve(address: usize) -> Vec<Symbol> {
    let mut symbols = Vec::new();
    backtrace::resolve(address as *mut std::ffi::c_void, |symbol| {
        symbols.push(Symbol {
            function: symbol.name().map(|n| format!("{n:#}")),
            file: symbol.filename().map(|p| p.display().to_string()),
            line: symbol.lineno(),
            column: symbol.colno(),
        });
    });
    symbols
}

#[cfg(target_os = "linux")]
fn stack_range() -> Option<(usize, usize)> {
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is read, and
    // destroyed once.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut base: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut base, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        (ok && !base.is_null()).then(|| (base as usize, base as usize + size))
    }
}

#[cfg(not(target_os = "linux"))]
fn stack_range() -> Option<(usize, usize)> {
    None
}

fn is_main_thread() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: both calls only return numbers.
    return unsafe { libc::gettid() == libc::getpid() };
    #[cfg(not(target_os = "linux"))]
    return std::thread::current().name() == Some("main");
}

fn at_exit(hook: extern "C" fn()) -> bool {
    // SAFETY: the detector's hook is a plain `extern "C" fn()` that never unwinds.
    unsafe { libc::atexit(hook) == 0 }
}

fn end_process(status: i32) -> ! {
    // SAFETY: `fflush(NULL)` flushes every C stream; `_exit` is always safe to call, also from
    // an `atexit` handler.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(status)
    }
}

fn write_stderr(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // Windows' C runtime takes a 32-bit count; a longer slice goes in pieces.
        #[cfg(windows)]
        let len = bytes.len().min(u32::MAX as usize) as u32;
        #[cfg(not(windows))]
        let len = bytes.len();
        // SAFETY: the pointer and length describe (a prefix of) the live slice `bytes`.
        let n = unsafe { libc::write(2, bytes.as_ptr().cast(), len) };
        if n <= 0 {
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

#[cfg(test)]
mod tests {
    use racer_core::small_vec::SmallVec;
    use racer_core::stack::{capture, StackId};

    /// Both capture methods from the same frame: (CFI walk, unwinding), each from the caller.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[inline(never)]
    fn both() -> (Vec<usize>, Vec<usize>, bool) {
        use racer_core::cfi_walk;
        let mut unwound: SmallVec<usize, 48> = SmallVec::default();
        racer_core::stack::unwind(&mut unwound, 64);
        // The unwinder ends with the outermost frame's undefined return address, as 0.
        while unwound.last() == Some(&0) {
            unwound.truncate(unwound.len() - 1);
        }
        let start = cfi_walk::Start::here();
        let mut walked: SmallVec<usize, 48> = SmallVec::default();
        let mut reads = cfi_walk::Reads::default();
        let range = racer_core::stack::stack_range().expect("a test thread's stack");
        let complete = cfi_walk::walk(start, range, 64, &mut walked, &mut reads);
        (walked.to_vec(), unwound.to_vec(), complete && walked.len() < 64)
    }

    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[inline(never)]
    fn nested(depth: usize) -> (Vec<usize>, Vec<usize>, bool) {
        if depth == 0 {
            both()
        } else {
            let r = nested(depth - 1);
            std::hint::black_box(r)
        }
    }

    /// The CFI walk must see exactly the frames the system unwinder sees, from the caller of the
    /// capturing function to the thread's outermost frame (the unwinder also lists its own
    /// frames first). The same holds in builds with and without frame pointers, so reports are
    /// the same in both.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn cfi_walk_matches_unwinding() {
        for round in 0..2 {
            let (walked, unwound, complete) = nested(3);
            let start = unwound.iter().position(|&ip| ip == walked[0]).expect("the walk's first frame is unwound too");
            let rest = &unwound[start..];
            assert!(complete, "round {round}: the walk reached the thread's outermost frame");
            assert_eq!(walked[..], rest[..], "round {round} (1: every rule from the cache)");
            assert!(walked.len() >= 6, "the nested frames and the test harness's are all there");
        }
    }

    /// A thread racer's cache has never seen walks as far as one whose rules are all cached.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn cfi_walk_matches_unwinding_on_a_new_thread() {
        let (walked, unwound, complete) = std::thread::spawn(|| nested(5)).join().unwrap();
        let start = unwound.iter().position(|&ip| ip == walked[0]).expect("the walk's first frame is unwound too");
        assert!(complete);
        assert_eq!(walked[..], unwound[start..]);
    }

    #[test]
    fn the_same_stack_interns_once() {
        let a: Vec<StackId> = (0..3).map(|_| nested_capture(2)).collect();
        assert_eq!(a[0], a[1]);
        assert_eq!(a[1], a[2]);
        assert_ne!(a[0], nested_capture(4), "a deeper stack is another stack");
        // From one call site: a stack, another, then the first again.
        let b: Vec<StackId> = [2, 4, 2].into_iter().map(nested_capture).collect();
        assert_ne!(b[0], b[1]);
        assert_eq!(b[0], b[2], "a stack is found again after another was captured at its site");
    }

    #[inline(never)]
    fn nested_capture(depth: usize) -> StackId {
        if depth == 0 {
            capture()
        } else {
            std::hint::black_box(nested_capture(depth - 1))
        }
    }
}
