//! Embeds racer's loom stand-in and the crates it builds on (`carried/`: links into the
//! repository, which `cargo package` copies in as files) into the runner, so that an installed
//! `cargo racer` needs no checkout of racer: `src/carried.rs` writes them out when no checkout
//! is found. Generates `OUT_DIR/carried_files.rs`: a content hash and every file's bytes.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("carried");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut hash = DefaultHasher::new();
    let mut table = String::new();
    for (rel, abs) in &files {
        println!("cargo:rerun-if-changed={}", abs.display());
        rel.hash(&mut hash);
        std::fs::read(abs)
            .unwrap_or_else(|e| panic!("cargo-racer: cannot read {}: {e}", abs.display()))
            .hash(&mut hash);
        table.push_str(&format!("    ({rel:?}, include_bytes!({:?})),\n", abs.display().to_string()));
    }
    println!("cargo:rerun-if-changed={}", root.display());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("carried_files.rs");
    let code = format!(
        "/// A hash of every carried file's name and bytes.\npub const HASH: u64 = {:#x};\n\
         /// Every carried file: its path under `carried/`, and its bytes.\n\
         pub static FILES: &[(&str, &[u8])] = &[\n{table}];\n",
        hash.finish()
    );
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("cargo-racer: cannot write {}: {e}", out.display()));
}

/// Every file under `dir` (following the links), as (path under `root` with `/`, absolute path).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cargo-racer: cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            // A file added to a carried folder changes the folder, not a file seen before.
            println!("cargo:rerun-if-changed={}", std::fs::canonicalize(&path).unwrap_or(path.clone()).display());
            collect(root, &path, files);
        } else {
            let rel = path.strip_prefix(root).expect("under root").components();
            let rel: Vec<String> = rel.map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            let abs = std::fs::canonicalize(&path).unwrap_or(path);
            files.push((rel.join("/"), abs));
        }
    }
}
