//! What a deadlock report says: the public `Deadlock`, `LockEdge`, `LockUse` and
//! `BlockedThread` types, their human layout and their JSON layout. Compiled in both builds (the
//! feature-off build includes this file by path), so user code naming them compiles unchanged.

use std::fmt;
use std::panic::Location;

use super::frame::{capitalised, frames_json, json_string, location_json, thread_label, write_frames, Frame};

/// What kind of deadlock a [`Deadlock`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeadlockKind {
    /// A cycle in the lock-order graph: each lock of the cycle was taken while the previous one
    /// was held, so threads running those paths at the same time can block each other forever.
    /// Reported the first time the cycle closes, whether or not this run hung.
    LockOrderInversion,
    /// A thread locked a lock it already holds (std then deadlocks or panics).
    Relock,
    /// A real deadlock: threads blocked in racer's wrappers wait for each other in a cycle, or
    /// every thread of the `racer::check` (or of the process) is blocked in them.
    Hang,
}

impl DeadlockKind {
    /// The short name used in JSON: `lock_order_inversion`, `relock`, `hang`.
    pub fn name(self) -> &'static str {
        match self {
            DeadlockKind::LockOrderInversion => "lock_order_inversion",
            DeadlockKind::Relock => "relock",
            DeadlockKind::Hang => "hang",
        }
    }
}

/// How a lock was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockMode {
    /// `Mutex::lock` or `RwLock::write`.
    Exclusive,
    /// `RwLock::read`.
    Shared,
}

impl LockMode {
    fn name(self) -> &'static str {
        match self {
            LockMode::Exclusive => "exclusive",
            LockMode::Shared => "shared",
        }
    }
}

/// One acquisition of a lock: which lock, how, and where.
#[derive(Debug, Clone)]
pub struct LockUse {
    pub(crate) lock: u64,
    pub(crate) object: &'static str,
    pub(crate) mode: LockMode,
    pub(crate) created: &'static Location<'static>,
    pub(crate) location: &'static Location<'static>,
    pub(crate) frames: Vec<Frame>,
}

impl LockUse {
    /// racer's number for the lock, unique over the process (never reused).
    pub fn lock_id(&self) -> u64 {
        self.lock
    }

    /// `"Mutex"` or `"RwLock"`.
    pub fn object(&self) -> &'static str {
        self.object
    }

    pub fn mode(&self) -> LockMode {
        self.mode
    }

    /// Where the lock was created (its `new`).
    pub fn created(&self) -> &'static Location<'static> {
        self.created
    }

    /// The `#[track_caller]` site of the `lock`/`read`/`write` call.
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }

    /// The stack of the acquisition, the user's frame first. For the lock held when another
    /// was taken, this is its site followed by the callers it shares with that later
    /// acquisition (racer captures stacks only for nested acquisitions).
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The resolved frames, one `#N function  file:line:col` line each.
    pub fn backtrace(&self) -> String {
        self.frames.iter().enumerate().map(|(i, f)| format!("#{i} {f}\n")).collect()
    }

    /// `Mutex #3 (created at src/a.rs:4:5)`, `RwLock #2 (read; created at ...)`.
    fn label(&self) -> String {
        let how = match (self.object, self.mode) {
            ("RwLock", LockMode::Shared) => "read; ",
            ("RwLock", LockMode::Exclusive) => "write; ",
            _ => "",
        };
        format!("{} #{} ({how}created at {})", self.object, self.lock, self.created)
    }

    fn short(&self) -> String {
        format!("{} #{}", self.object, self.lock)
    }
}

/// One edge of the lock-order graph: a thread took `next` while holding `held`.
#[derive(Debug, Clone)]
pub struct LockEdge {
    pub(crate) thread_name: Option<String>,
    pub(crate) thread_id: u64,
    pub(crate) held: LockUse,
    pub(crate) next: LockUse,
}

impl LockEdge {
    pub fn thread_name(&self) -> Option<&str> {
        self.thread_name.as_deref()
    }

    /// racer's number for the thread (1 for the first thread racer saw).
    pub fn thread_id(&self) -> u64 {
        self.thread_id
    }

    /// The lock the thread held, and where it took it.
    pub fn held(&self) -> &LockUse {
        &self.held
    }

    /// The lock the thread took (or waited for) while holding `held`.
    pub fn next(&self) -> &LockUse {
        &self.next
    }
}

/// A thread blocked in one of racer's wrappers when a real deadlock was found.
#[derive(Debug, Clone)]
pub struct BlockedThread {
    pub(crate) thread_name: Option<String>,
    pub(crate) thread_id: u64,
    pub(crate) waiting: String,
    pub(crate) location: &'static Location<'static>,
    pub(crate) frames: Vec<Frame>,
    pub(crate) holds: Vec<LockUse>,
    pub(crate) in_cycle: bool,
}

impl BlockedThread {
    pub fn thread_name(&self) -> Option<&str> {
        self.thread_name.as_deref()
    }

    pub fn thread_id(&self) -> u64 {
        self.thread_id
    }

    /// What the thread waits for, e.g. `to lock Mutex #2 (created at ...), held by thread 'b'`
    /// or `to join thread 'worker'`.
    pub fn waiting_for(&self) -> &str {
        &self.waiting
    }

    /// The `#[track_caller]` site of the blocking call.
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }

    /// The stack of the blocking call, the user's frame first.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The locks the thread holds while it waits.
    pub fn holds(&self) -> &[LockUse] {
        &self.holds
    }

    /// Whether the thread is one of a cycle of threads waiting for each other's locks.
    pub fn in_cycle(&self) -> bool {
        self.in_cycle
    }
}

/// A deadlock: a lock-order inversion (potential), a re-lock, or a real hang.
#[derive(Debug, Clone)]
pub struct Deadlock {
    pub(crate) kind: DeadlockKind,
    pub(crate) edges: Vec<LockEdge>,
    pub(crate) threads: Vec<BlockedThread>,
    pub(crate) scope: &'static str,
}

impl Deadlock {
    pub fn kind(&self) -> DeadlockKind {
        self.kind
    }

    /// The edges of the cycle, in cycle order (`LockOrderInversion`: each edge's `next` is the
    /// following edge's `held`), or the one re-lock (`Relock`: `held` and `next` are the same
    /// lock). Empty for `Hang`.
    pub fn edges(&self) -> &[LockEdge] {
        &self.edges
    }

    /// `Hang`: every blocked thread, those of the wait-for cycle (if any) first. Empty otherwise.
    pub fn threads(&self) -> &[BlockedThread] {
        &self.threads
    }
}

impl fmt::Display for Deadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "==================")?;
        match self.kind {
            DeadlockKind::LockOrderInversion => {
                let n = self.edges.len();
                writeln!(f, "WARNING: racer: lock-order inversion (potential deadlock): a cycle of {n} locks")?;
                let mut cycle: Vec<String> = self.edges.iter().map(|e| e.held.short()).collect();
                if let Some(first) = self.edges.first() {
                    cycle.push(first.held.short());
                }
                writeln!(f, "  Cycle: {}", cycle.join(" -> "))?;
                for (i, e) in self.edges.iter().enumerate() {
                    writeln!(
                        f,
                        "  Edge {} of {n}: {} took {} at {} while holding {}:",
                        i + 1,
                        thread_label(&e.thread_name, e.thread_id),
                        e.next.label(),
                        e.next.location,
                        e.held.short(),
                    )?;
                    write_frames(f, &e.next.frames)?;
                    writeln!(f, "    {} was taken at {}:", e.held.label(), e.held.location)?;
                    write_frames(f, &e.held.frames)?;
                }
                writeln!(
                    f,
                    "  Threads taking these locks in these orders at the same time can each wait forever for \
                     a lock the next one holds: take them in one order everywhere."
                )?;
            }
            DeadlockKind::Relock => {
                for e in &self.edges {
                    writeln!(
                        f,
                        "WARNING: racer: deadlock: {} locks {} again at {} while holding it",
                        thread_label(&e.thread_name, e.thread_id),
                        e.next.label(),
                        e.next.location,
                    )?;
                    write_frames(f, &e.next.frames)?;
                    writeln!(f, "  It took the lock at {}:", e.held.location)?;
                    write_frames(f, &e.held.frames)?;
                }
            }
            DeadlockKind::Hang => {
                let cycle = self.threads.iter().filter(|t| t.in_cycle).count();
                if cycle > 0 {
                    writeln!(
                        f,
                        "WARNING: racer: deadlock: {cycle} threads wait for each other's locks in a cycle ({} blocked)",
                        self.threads.len()
                    )?;
                } else {
                    writeln!(
                        f,
                        "WARNING: racer: deadlock: every thread of {} is blocked in racer's wrappers ({} threads)",
                        self.scope,
                        self.threads.len()
                    )?;
                }
                for t in &self.threads {
                    writeln!(
                        f,
                        "  {} waits {} at {}:",
                        capitalised(&thread_label(&t.thread_name, t.thread_id)),
                        t.waiting,
                        t.location
                    )?;
                    write_frames(f, &t.frames)?;
                    for h in &t.holds {
                        writeln!(f, "    holding {}, taken at {}", h.label(), h.location)?;
                    }
                }
            }
        }
        writeln!(f, "==================")
    }
}

fn lock_use_json(u: &LockUse, out: &mut String) {
    out.push_str(&format!(
        "{{\"lock\":{},\"object\":{},\"mode\":\"{}\",\"created\":",
        u.lock,
        json_string(u.object),
        u.mode.name()
    ));
    location_json(u.created, out);
    out.push_str(",\"site\":");
    location_json(u.location, out);
    out.push_str(",\"frames\":");
    frames_json(&u.frames, out);
    out.push('}');
}

fn thread_json(name: &Option<String>, id: u64) -> String {
    format!("{{\"name\":{},\"id\":{id}}}", name.as_deref().map(json_string).unwrap_or_else(|| "null".into()))
}

/// One deadlock as a JSON object:
///
/// ```text
/// kind     "lock_order_inversion" | "relock" | "hang"
/// edges    [{"thread": {"name", "id"}, "held": lock use, "next": lock use}]
/// threads  [{"thread", "waiting", "site", "frames", "holds": [lock use], "in_cycle"}]
///   lock use: {"lock": number, "object": "Mutex" | "RwLock", "mode": "exclusive" | "shared",
///              "created": site, "site": site, "frames": [...]}
/// ```
pub(crate) fn deadlock_json(d: &Deadlock, out: &mut String) {
    out.push_str(&format!("{{\"kind\":\"{}\",\"edges\":[", d.kind.name()));
    for (i, e) in d.edges.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"thread\":{},\"held\":", thread_json(&e.thread_name, e.thread_id)));
        lock_use_json(&e.held, out);
        out.push_str(",\"next\":");
        lock_use_json(&e.next, out);
        out.push('}');
    }
    out.push_str("],\"threads\":[");
    for (i, t) in d.threads.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "{{\"thread\":{},\"waiting\":{},\"site\":",
            thread_json(&t.thread_name, t.thread_id),
            json_string(&t.waiting)
        ));
        location_json(t.location, out);
        out.push_str(",\"frames\":");
        frames_json(&t.frames, out);
        out.push_str(",\"holds\":[");
        for (j, h) in t.holds.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            lock_use_json(h, out);
        }
        out.push_str(&format!("],\"in_cycle\":{}}}", t.in_cycle));
    }
    out.push_str("]}");
}
