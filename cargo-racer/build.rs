//! Embeds racer's loom stand-in and the crates it builds on (the paths `carried.list` names)
//! into the runner, so that an installed `cargo racer` needs no checkout of racer:
//! `src/carried.rs` writes them out when no checkout is found. Built in racer's repository, it
//! reads them where they are, from the sibling packages' own folders; built from cargo-racer's
//! published package, from `carried/`, where `publish/carry` copied them before packaging
//! (manifests there are `Cargo.toml.carried`).
//! Generates `OUT_DIR/carried_files.rs`: a content hash and every file's bytes.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let list_path = manifest_dir.join("carried.list");
    println!("cargo:rerun-if-changed={}", list_path.display());
    let list = std::fs::read_to_string(&list_path)
        .unwrap_or_else(|e| panic!("cargo-racer: cannot read {}: {e}", list_path.display()));
    let listed: Vec<&str> = list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let (root, from_repository) = source_root(&manifest_dir, &listed);
    let mut files = Vec::new();
    for rel in &listed {
        let path = on_disk(&root, rel, from_repository);
        if path.is_dir() {
            collect(&path, rel, &mut files);
        } else if path.is_file() {
            files.push((rel.to_string(), path));
        } else {
            panic!("cargo-racer: {rel} (carried.list) is not in {}", root.display());
        }
    }
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
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("carried_files.rs");
    let code = format!(
        "/// A hash of every carried file's name and bytes.\npub const HASH: u64 = {:#x};\n\
         /// Every carried file: its path from racer's repository root, and its bytes.\n\
         pub static FILES: &[(&str, &[u8])] = &[\n{table}];\n",
        hash.finish()
    );
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("cargo-racer: cannot write {}: {e}", out.display()));
}

/// Where the listed paths are: racer's repository (this package's parent folder, when it holds
/// them all), else `carried/` inside this package (its published form).
fn source_root(manifest_dir: &Path, listed: &[&str]) -> (PathBuf, bool) {
    let repository = std::fs::canonicalize(manifest_dir.join("..")).unwrap_or(manifest_dir.join(".."));
    if repository.join("cargo-racer/carried.list").is_file() && listed.iter().all(|rel| repository.join(rel).exists()) {
        return (repository, true);
    }
    let carried = manifest_dir.join("carried");
    println!("cargo:rerun-if-changed={}", carried.display());
    if !carried.is_dir() {
        panic!(
            "cargo-racer: neither racer's repository ({}) nor a `carried/` folder (publish/carry) holds what carried.list names",
            repository.display()
        );
    }
    (carried, false)
}

/// Where a listed path is under `root`. In `carried/` a manifest is `Cargo.toml.carried`: cargo
/// leaves a folder with a `Cargo.toml` (another package) out of this package.
fn on_disk(root: &Path, rel: &str, from_repository: bool) -> PathBuf {
    match rel.strip_suffix("Cargo.toml") {
        Some(dir) if !from_repository && (dir.is_empty() || dir.ends_with('/')) => root.join(format!("{rel}.carried")),
        _ => root.join(rel),
    }
}

/// Every file under `dir` (whose path from the root is `rel`), as (path from the root with
/// `/`, path on disk).
fn collect(dir: &Path, rel: &str, files: &mut Vec<(String, PathBuf)>) {
    // A file added to a carried folder changes the folder, not a file seen before.
    println!("cargo:rerun-if-changed={}", dir.display());
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cargo-racer: cannot read {}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let path = entry.path();
        let name = format!("{rel}/{}", entry.file_name().to_string_lossy());
        if path.is_dir() {
            collect(&path, &name, files);
        } else {
            files.push((name, path));
        }
    }
}
