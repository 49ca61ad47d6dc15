//! Tells the runtime whether it is built without optimisations (`opt-level = 0`, the default of
//! the dev and test profiles, dependencies included), so that it can say once, at start-up, how
//! to build it optimised: unoptimised, every check costs about ten times as much.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(racer_unoptimised)");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("OPT_LEVEL").as_deref() == Ok("0") {
        println!("cargo:rustc-cfg=racer_unoptimised");
    }
}
