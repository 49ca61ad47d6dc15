//! What the detector needs from outside the standard library, filled in by `racer-rt` before
//! `main`: reading unwind tables (`gimli`), unwinding and symbolising (`backtrace`), and a few
//! C library calls (`libc`). This crate is compiled by `racer-rt`'s build script with `rustc`
//! alone, which cannot hand it other crates; calls through these hooks are rare (a new code
//! address, a report, a thread's start, the process's end).
//!
//! Invariant: [`get`] returns the installed hooks once [`install`] ran, and until then (or in
//! this crate's own unit tests) hooks that do without: no unwind tables, no symbols, std's
//! stderr and `std::process::exit`.

use std::sync::OnceLock;

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
/// How to go from a frame at a code address to its caller's frame, on x86_64.
///
/// Invariant: `ra_offset == 0` means the address has no caller (the outermost frame of a
/// thread); `ra_offset == UNKNOWN` means no rule could be made for it (code without unwind
/// information, or a rule this walker does not model); otherwise the caller's frame starts at
/// the CFA (`cfa_base` register plus `cfa_offset`), the return address is stored at
/// `CFA + ra_offset` and, when `bp_offset != 0`, the caller's `rbp` at `CFA + bp_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub cfa_offset: i32,
    pub bp_offset: i16,
    pub ra_offset: i8,
    pub cfa_from_bp: bool,
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub const UNKNOWN: i8 = i8::MIN;

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
impl Rule {
    pub const UNKNOWN: Rule = Rule { cfa_offset: 0, bp_offset: 0, ra_offset: UNKNOWN, cfa_from_bp: false };
    pub const OUTERMOST: Rule = Rule { cfa_offset: 0, bp_offset: 0, ra_offset: 0, cfa_from_bp: false };
}

/// One symbol of a code address, as a report prints it.
#[derive(Debug, Clone, Default)]
pub struct Symbol {
    /// The demangled name, without its hash.
    pub function: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

pub struct Platform {
    /// The unwind rule of the code at an address (see `cfi_walk::Rule`).
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    pub unwind_rule: fn(usize) -> Rule,
    /// Unwinds the calling thread's stack, handing each frame's instruction pointer to the
    /// callback until it returns false.
    pub unwind: fn(&mut dyn FnMut(usize) -> bool),
    /// The symbols of a code address, innermost inlined function first.
    pub resolve: fn(usize) -> Vec<Symbol>,
    /// The calling thread's stack, `[low, high)`.
    pub stack_range: fn() -> Option<(usize, usize)>,
    pub is_main_thread: fn() -> bool,
    /// Registers a function to run at process end, after Rust flushed its output; false if it
    /// could not.
    pub at_exit: fn(extern "C" fn()) -> bool,
    /// Flushes C's streams and ends the process at once, running no exit handlers.
    pub end_process: fn(i32) -> !,
    /// Writes to file descriptor 2 directly, taking no lock of std's.
    pub write_stderr: fn(&[u8]),
}

static INSTALLED: OnceLock<Platform> = OnceLock::new();

/// Installs the hooks; later calls are ignored.
pub fn install(platform: Platform) {
    let _ = INSTALLED.set(platform);
}

#[inline]
pub fn get() -> &'static Platform {
    INSTALLED.get().unwrap_or(&WITHOUT)
}

static WITHOUT: Platform = Platform {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    unwind_rule: |_| Rule::UNKNOWN,
    unwind: |_| {},
    resolve: |_| Vec::new(),
    stack_range: || None,
    is_main_thread: || std::thread::current().name() == Some("main"),
    at_exit: |_| false,
    end_process: |status| std::process::exit(status),
    write_stderr: |bytes| {
        use std::io::Write;
        let _ = std::io::stderr().write_all(bytes);
    },
};

/// Flushes C's streams and ends the process with `status` at once, running no exit handlers and
/// no destructors: Rust's standard output is not flushed here, because the stopping thread may
/// be in the middle of writing to it.
pub fn end_process(status: i32) -> ! {
    (get().end_process)(status)
}

/// Writes to file descriptor 2 directly, taking no lock of std's: at process end Rust's
/// thread-locals may be gone, and while a report is written std's stderr lock may be held by a
/// thread that waits for the report's lock.
pub fn write_stderr(text: &str) {
    (get().write_stderr)(text.as_bytes())
}
