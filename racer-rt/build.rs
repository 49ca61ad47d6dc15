//! Tells the runtime whether this build keeps frame pointers (`-C force-frame-pointers=yes` in
//! RUSTFLAGS), so stack capture may walk the frame-pointer chain instead of unwinding. Without
//! the flag, compiled code may use the frame-pointer register for anything, and the runtime
//! must unwind with the DWARF tables.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(racer_frame_pointers)");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    println!("cargo:rerun-if-changed=build.rs");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if keeps_frame_pointers(&flags.split('\x1f').collect::<Vec<_>>()) {
        println!("cargo:rustc-cfg=racer_frame_pointers");
    }
}

/// True when the last `force-frame-pointers` setting among the flags turns them on
/// (`-Cforce-frame-pointers`, `-C force-frame-pointers=yes`, `=y`, `=on`, `=true`).
fn keeps_frame_pointers(flags: &[&str]) -> bool {
    let mut on = false;
    for flag in flags {
        let setting = flag.strip_prefix("-C").unwrap_or(flag).trim_start();
        if let Some(value) = setting.strip_prefix("force-frame-pointers") {
            on = matches!(value, "" | "=yes" | "=y" | "=on" | "=true");
        }
    }
    on
}
