//! The loom stand-in carried inside the runner, for a runner installed without a checkout of
//! racer (`cargo install cargo-racer`): `build.rs` embeds what `carried.list` names (the
//! stand-in, the facade, racer-rt with the detector's source, racer-macros, and the workspace
//! manifest, which is also the facade's), and [`stand_in`] writes them out once per content
//! hash under `$CARGO_HOME/racer-stand-in/<hash>/`, laid out as in racer's repository, so that
//! the packages' relative paths to each other hold: the facade at the top, `racer-rt/`,
//! `racer-macros/`, and `loom-compat/` (patched in as loom; `loom-compat/v05/` for loom 0.5).
//! The path stays the same from run to run, so cargo reuses what it built.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/carried_files.rs"));

/// The stand-in's folder (a package named `loom`), written out first if it is not there yet.
pub fn stand_in() -> Result<PathBuf, String> {
    let home = match std::env::var_os("CARGO_HOME") {
        Some(h) => PathBuf::from(h),
        None => PathBuf::from(std::env::var_os("HOME").ok_or("neither CARGO_HOME nor HOME is set")?).join(".cargo"),
    };
    let base = home.join("racer-stand-in").join(format!("{HASH:016x}"));
    if !base.join("loom-compat/Cargo.toml").is_file() {
        write_out(&base).map_err(|e| format!("cannot write racer's loom stand-in to {}: {e}", base.display()))?;
    }
    Ok(base.join("loom-compat"))
}

/// Writes every carried file into a fresh folder beside `base`, then renames it to `base`, so
/// that a run never sees half a tree (a concurrent run may have renamed its own first).
fn write_out(base: &Path) -> std::io::Result<()> {
    let fresh = base.with_extension(format!("new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&fresh);
    let inherited = workspace_package(text_of("Cargo.toml"));
    for (name, bytes) in FILES {
        let path = fresh.join(name);
        std::fs::create_dir_all(path.parent().expect("a file in a folder"))?;
        if name.ends_with("Cargo.toml") {
            std::fs::write(&path, standalone(&String::from_utf8_lossy(bytes), &inherited))?;
        } else {
            std::fs::write(&path, bytes)?;
        }
    }
    match std::fs::rename(&fresh, base) {
        Ok(()) => Ok(()),
        Err(_) if base.join("loom-compat/Cargo.toml").is_file() => std::fs::remove_dir_all(&fresh),
        Err(e) => Err(e),
    }
}

fn text_of(name: &str) -> &'static str {
    FILES.iter().find(|(n, _)| *n == name).and_then(|(_, b)| std::str::from_utf8(b).ok()).unwrap_or("")
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

/// Whether a manifest's table (its header without brackets) is one a dependency needs: the
/// package, its library, features and (build) dependencies. The workspace's tables, dev
/// dependencies, tests, benches, binaries, profiles and lints are the repository's, not carried.
fn kept(table: &str) -> bool {
    let deps = |t: &str| t == "dependencies" || t == "build-dependencies" || t.starts_with("dependencies.");
    match table.strip_prefix("target.") {
        // `target.'cfg(unix)'.dependencies`: what follows the (quoted) platform.
        Some(rest) => {
            let tail = match rest.rsplit_once(['\'', '"']) {
                Some((_, after)) => after.strip_prefix('.'),
                None => rest.split_once('.').map(|(_, tail)| tail),
            };
            tail.is_some_and(deps)
        }
        None => matches!(table, "package" | "lib" | "features") || deps(table),
    }
}

/// A carried manifest as a package outside racer's workspace: inherited keys spelt out, and only
/// the tables a dependency needs (see [`kept`]). The written-out tree has the repository's
/// layout, so paths between the packages stay as they are.
fn standalone(manifest: &str, inherited: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut keep = true;
    for line in manifest.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            let table = trimmed.trim_start_matches('[').trim_end_matches(']').trim();
            keep = kept(table);
        }
        if !keep {
            continue;
        }
        let key = trimmed.strip_suffix(".workspace = true");
        match key.and_then(|k| inherited.iter().find(|(i, _)| i == k)) {
            Some((k, v)) => out.push_str(&format!("{k} = {v}")),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The carried tree holds the packages the stand-in builds on, with the detector's source.
    #[test]
    fn the_carried_tree_holds_the_packages() {
        for manifest in [
            "Cargo.toml",
            "loom-compat/Cargo.toml",
            "loom-compat/v05/Cargo.toml",
            "racer-rt/Cargo.toml",
            "racer-macros/Cargo.toml",
            "racer-rt/build.rs",
            "racer-rt/detector/lib.rs",
            "src/lib.rs",
        ] {
            assert!(FILES.iter().any(|(n, _)| *n == manifest), "{manifest}");
        }
    }

    /// The written-out manifests inherit nothing, and keep only what a dependency needs.
    #[test]
    fn manifests_stand_alone() {
        let inherited = workspace_package(text_of("Cargo.toml"));
        assert!(inherited.iter().any(|(k, _)| k == "edition"), "{inherited:?}");
        for (name, bytes) in FILES.iter().filter(|(n, _)| n.ends_with("Cargo.toml")) {
            let text = standalone(std::str::from_utf8(bytes).unwrap(), &inherited);
            assert!(!text.contains(".workspace = true"), "{name}:\n{text}");
            for gone in ["[workspace", "[dev-dependencies]", "[[bench]]", "[[bin]]", "[profile", "[lints"] {
                assert!(!text.contains(gone), "{name}:\n{text}");
            }
            assert!(text.contains("[package]"), "{name}:\n{text}");
        }
        let facade = standalone(text_of("Cargo.toml"), &inherited);
        assert!(facade.contains("name = \"racer-detector\"") && facade.contains("racer-rt = {"), "{facade}");
        let stand_in = standalone(text_of("loom-compat/Cargo.toml"), &inherited);
        assert!(stand_in.contains("name = \"loom\""), "{stand_in}");
    }

    #[test]
    fn the_tables_a_dependency_needs() {
        for table in [
            "package",
            "lib",
            "features",
            "dependencies",
            "dependencies.racer",
            "target.'cfg(unix)'.dependencies",
            "target.x86_64-unknown-linux-gnu.dependencies",
        ] {
            assert!(kept(table), "{table}");
        }
        for table in [
            "workspace",
            "workspace.package",
            "dev-dependencies",
            "target.'cfg(unix)'.dev-dependencies",
            "profile.bench",
            "lints.rust",
        ] {
            assert!(!kept(table), "{table}");
        }
    }
}
