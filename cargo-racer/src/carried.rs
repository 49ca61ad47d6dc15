//! The loom stand-in carried inside the runner, for a runner installed without a checkout of
//! racer (`cargo install cargo-racer`): `build.rs` embeds `carried/` (the stand-in, the facade,
//! racer-rt with the detector's source, racer-macros, and the workspace manifest whose
//! `[workspace.package]` they inherit), and [`stand_in`] writes them out once per content hash
//! under `$CARGO_HOME/racer-stand-in/<hash>/`, laid out as the published packages are:
//! `loom/` (patched in as loom; `loom/v05/` for loom 0.5), `racer-detector/` (library
//! `racer`), `racer-rt/`, `racer-macros/`. The path stays the same from run to run, so cargo
//! reuses what it built.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/carried_files.rs"));

/// Carried folders and files, and where each goes in the written-out tree.
const PLACES: [(&str, &str); 12] = [
    ("racer-detector-src/", "racer-detector/src/"),
    ("racer-detector.toml", "racer-detector/Cargo.toml"),
    ("racer-rt-src/", "racer-rt/src/"),
    ("racer-rt-detector/", "racer-rt/detector/"),
    ("racer-rt-build.rs", "racer-rt/build.rs"),
    ("racer-rt.toml", "racer-rt/Cargo.toml"),
    ("racer-macros-src/", "racer-macros/src/"),
    ("racer-macros.toml", "racer-macros/Cargo.toml"),
    ("loom-src/", "loom/src/"),
    ("loom.toml", "loom/Cargo.toml"),
    ("loom-v05-src/", "loom/v05/src/"),
    ("loom-v05.toml", "loom/v05/Cargo.toml"),
];

/// The stand-in's folder (a package named `loom`), written out first if it is not there yet.
pub fn stand_in() -> Result<PathBuf, String> {
    let home = match std::env::var_os("CARGO_HOME") {
        Some(h) => PathBuf::from(h),
        None => PathBuf::from(std::env::var_os("HOME").ok_or("neither CARGO_HOME nor HOME is set")?).join(".cargo"),
    };
    let base = home.join("racer-stand-in").join(format!("{HASH:016x}"));
    if !base.join("loom/Cargo.toml").is_file() {
        write_out(&base).map_err(|e| format!("cannot write racer's loom stand-in to {}: {e}", base.display()))?;
    }
    Ok(base.join("loom"))
}

/// Writes every carried file into a fresh folder beside `base`, then renames it to `base`, so
/// that a run never sees half a tree (a concurrent run may have renamed its own first).
fn write_out(base: &Path) -> std::io::Result<()> {
    let fresh = base.with_extension(format!("new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&fresh);
    let inherited = workspace_package(text_of("workspace.toml"));
    for (name, bytes) in FILES {
        let Some(dest) = place(name) else { continue };
        let path = fresh.join(&dest);
        std::fs::create_dir_all(path.parent().expect("a file in a folder"))?;
        if dest.ends_with("Cargo.toml") {
            std::fs::write(&path, standalone(&String::from_utf8_lossy(bytes), &inherited))?;
        } else {
            std::fs::write(&path, bytes)?;
        }
    }
    match std::fs::rename(&fresh, base) {
        Ok(()) => Ok(()),
        Err(_) if base.join("loom/Cargo.toml").is_file() => std::fs::remove_dir_all(&fresh),
        Err(e) => Err(e),
    }
}

fn text_of(name: &str) -> &'static str {
    FILES.iter().find(|(n, _)| *n == name).and_then(|(_, b)| std::str::from_utf8(b).ok()).unwrap_or("")
}

/// Where a carried file goes, if anywhere.
fn place(name: &str) -> Option<String> {
    PLACES.iter().find_map(|(from, to)| {
        if from.ends_with('/') {
            name.strip_prefix(from).map(|rest| format!("{to}{rest}"))
        } else {
            (name == *from).then(|| to.to_string())
        }
    })
}

/// `key = value` lines of the workspace manifest's `[workspace.package]`.
fn workspace_package(manifest: &str) -> Vec<(String, String)> {
    let mut inside = false;
    let mut found = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[workspace.package]";
        } else if let (true, Some((key, value))) = (inside, line.split_once('=')) {
            found.push((key.trim().to_string(), value.trim().to_string()));
        }
    }
    found
}

/// A carried manifest as a package outside racer's workspace: inherited keys spelt out, and
/// paths into the repository pointed at the written-out tree (the facade is `racer-detector`).
fn standalone(manifest: &str, inherited: &[(String, String)]) -> String {
    let mut out = String::new();
    for line in manifest.lines() {
        let key = line.trim().strip_suffix(".workspace = true");
        let line = match key.and_then(|k| inherited.iter().find(|(i, _)| i == k)) {
            Some((k, v)) => format!("{k} = {v}"),
            None if line.starts_with("racer = {") && line.contains("path = \"..\"") => {
                "racer = { package = \"racer-detector\", path = \"../racer-detector\" }".to_string()
            }
            None => line
                .replace("path = \"../../racer-rt\"", "path = \"../racer-rt\"")
                .replace("path = \"../../racer-macros\"", "path = \"../racer-macros\""),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every carried file has its place, and the tree holds the four packages.
    #[test]
    fn every_carried_file_is_placed() {
        let unplaced: Vec<&str> =
            FILES.iter().map(|(n, _)| *n).filter(|n| *n != "workspace.toml" && place(n).is_none()).collect();
        assert!(unplaced.is_empty(), "{unplaced:?}");
        for manifest in ["loom/Cargo.toml", "loom/v05/Cargo.toml", "racer-detector/Cargo.toml", "racer-rt/Cargo.toml"] {
            assert!(FILES.iter().any(|(n, _)| place(n).as_deref() == Some(manifest)), "{manifest}");
        }
        assert!(FILES.iter().any(|(n, _)| place(n).as_deref() == Some("racer-rt/detector/lib.rs")));
    }

    /// The written-out manifests inherit nothing and point into the tree.
    #[test]
    fn manifests_stand_alone() {
        let inherited = workspace_package(text_of("workspace.toml"));
        assert!(inherited.iter().any(|(k, _)| k == "edition"), "{inherited:?}");
        for (name, bytes) in FILES.iter().filter(|(n, _)| n.ends_with(".toml") && *n != "workspace.toml") {
            let text = standalone(std::str::from_utf8(bytes).unwrap(), &inherited);
            assert!(!text.contains(".workspace = true"), "{name}:\n{text}");
            assert!(!text.contains("\"../../"), "{name}:\n{text}");
            assert!(!text.contains("path = \"..\", version = \"0.1.0\""), "{name}:\n{text}");
        }
    }
}
