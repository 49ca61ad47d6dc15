//! Workspace metadata: the members this `cargo test` will test, read through `cargo metadata
//! --no-deps` (the `cargo_metadata` crate: no network, no resolution) and picked as cargo picks
//! them: `-p`/`--package`, `--workspace` (`--all`) less `--exclude`, or else cargo's default
//! members for the current directory (the package here, or a workspace's default members).
//!
//! Only the picked members must have a `race-detect` feature, or a loom seam with `--loom`.

use crate::arguments::Args;
use cargo_metadata::{DependencyKind, MetadataCommand, Package};
use std::path::PathBuf;

pub struct Workspace {
    pub root: PathBuf,
    /// The members `cargo test` will test, in the workspace's order.
    pub selected: Vec<Package>,
}

impl Workspace {
    pub fn read(args: &Args) -> Result<Self, String> {
        let mut cmd = MetadataCommand::new();
        cmd.cargo_path(crate::cargo_bin()).no_deps();
        if let Some(manifest) = args.values("--manifest-path", None).pop() {
            cmd.manifest_path(manifest);
        }
        let meta = cmd.exec().map_err(|e| match e {
            cargo_metadata::Error::CargoMetadata { stderr } => {
                format!("`cargo metadata` failed: is this a Cargo project?\n{}", stderr.trim_end())
            }
            e => format!("cannot read the workspace through `cargo metadata`: {e}"),
        })?;
        let members: Vec<&str> = meta.workspace_packages().iter().map(|p| p.name.as_str()).collect();
        // cargo before 1.71 does not say which members are the default ones: take them all.
        let default = if meta.workspace_default_members.is_available() {
            meta.workspace_default_packages().iter().map(|p| p.name.as_str()).collect()
        } else {
            members.clone()
        };
        let picked: Vec<String> = pick(&members, &default, args).into_iter().map(str::to_owned).collect();
        let selected = meta.packages.iter().filter(|p| picked.contains(&p.name)).cloned().collect();
        Ok(Workspace { root: meta.workspace_root.into(), selected })
    }

    /// Without `--loom`: every picked member must turn racer on through its own feature.
    pub fn require_race_detect(&self) -> Result<(), String> {
        let without: Vec<&Package> = self.selected.iter().filter(|p| !p.features.contains_key("race-detect")).collect();
        if without.is_empty() {
            return Ok(());
        }
        let plural = without.len() > 1;
        let mut msg = format!(
            "{} {} no `race-detect` feature. A crate that uses racer directly declares \
             `[features] race-detect = [\"racer/race-detect\"]`.",
            names(without.iter().copied()),
            if plural { "have" } else { "has" }
        );
        if without.iter().any(|p| loom_dependency(p).is_some()) {
            msg += " This crate depends on loom: run its loom tests with `cargo racer test --loom`.";
        }
        if without.len() < self.selected.len() {
            msg += &format!(
                " To test the other members only: `--workspace --exclude {}`, or `-p NAME` for each.",
                without[0].name
            );
        }
        Err(msg)
    }
}

/// "`a`, `b`": package names for a message.
pub fn names<'a>(packages: impl IntoIterator<Item = &'a Package>) -> String {
    packages.into_iter().map(|p| format!("`{}`", p.name)).collect::<Vec<_>>().join(", ")
}

/// The name under which `package` depends on the package `loom` (its `rename`, or `loom`), and
/// the version requirement: a normal dependency first, else a dev- or build-dependency.
pub fn loom_dependency(package: &Package) -> Option<(String, String)> {
    let deps = &package.dependencies;
    let dep = deps
        .iter()
        .find(|d| d.name == "loom" && d.kind == DependencyKind::Normal)
        .or_else(|| deps.iter().find(|d| d.name == "loom"))?;
    Some((dep.rename.clone().unwrap_or_else(|| "loom".to_owned()), dep.req.to_string()))
}

/// The members `cargo test` tests, given the workspace's `members` and its `default` members
/// for the current directory: the rule of cargo's `Packages::from_flags`.
fn pick<'a>(members: &[&'a str], default: &[&'a str], args: &Args) -> Vec<&'a str> {
    let specs = args.values("--package", Some('p'));
    let excluded = args.values("--exclude", None);
    let base: &[&str] = if args.has(&["--workspace", "--all"]) {
        members
    } else if !specs.is_empty() {
        // Specs that name no member (a dependency's tests) need nothing of the workspace.
        return members.iter().copied().filter(|m| specs.iter().any(|s| spec_matches(s, m))).collect();
    } else {
        default
    };
    base.iter().copied().filter(|m| !excluded.iter().any(|s| spec_matches(s, m))).collect()
}

/// Whether a package id spec (`name`, `name@1.2`, `name:1.2`, `https://...#name@1.2`,
/// `path+file:///dir/name#0.1.0`) or a glob of names (`racer-*`) names package `name`.
fn spec_matches(spec: &str, name: &str) -> bool {
    let spec_name = match spec.split_once("://") {
        Some((_, url)) => {
            let (path, fragment) = url.split_once('#').unwrap_or((url, ""));
            match fragment
                .split(['@', ':'])
                .next()
                .filter(|n| !n.is_empty() && !n.starts_with(|c: char| c.is_ascii_digit()))
            {
                Some(n) => n,
                // No name after `#`: the last segment of the path is the name.
                None => path.trim_end_matches('/').rsplit('/').next().unwrap_or(path),
            }
        }
        None => spec.split(['@', ':']).next().unwrap_or(spec),
    };
    glob(spec_name.as_bytes(), name.as_bytes())
}

/// `*` and `?` globs, as cargo takes them in `-p` and `--exclude`.
fn glob(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, _) => name.is_empty(),
        (Some(b'*'), _) => glob(&pattern[1..], name) || (!name.is_empty() && glob(pattern, &name[1..])),
        (Some(b'?'), Some(_)) => glob(&pattern[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => glob(&pattern[1..], &name[1..]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arguments::{parse, Invocation};

    fn picked(members: &[&'static str], default: &[&'static str], command: &str) -> Vec<&'static str> {
        let argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        let Ok(Invocation::Test(args)) = parse(&argv) else { panic!("{command}") };
        pick(members, default, &args)
    }

    #[test]
    fn members_are_picked_as_cargo_picks_them() {
        let all = ["app", "racy", "plain"];
        assert_eq!(picked(&all, &["app"], "test"), ["app"]);
        assert_eq!(picked(&all, &all, "test"), all);
        assert_eq!(picked(&all, &["app"], "test --workspace"), all);
        assert_eq!(picked(&all, &["app"], "test --workspace --exclude plain"), ["app", "racy"]);
        assert_eq!(picked(&all, &["app"], "test --all --exclude=plain --exclude app"), ["racy"]);
        assert_eq!(picked(&all, &["app"], "test -p racy --package=plain"), ["racy", "plain"]);
        assert_eq!(picked(&all, &["app"], "test -pracy@0.1.0"), ["racy"]);
        assert_eq!(picked(&all, &["app"], "test -p serde"), Vec::<&str>::new());
        assert_eq!(picked(&all, &["app"], "test --workspace --exclude p*"), ["app", "racy"]);
        assert_eq!(picked(&all, &["app"], "test -p r?cy"), ["racy"]);
    }

    #[test]
    fn package_id_specs_name_their_package() {
        assert!(spec_matches("racy", "racy"));
        assert!(spec_matches("racy:0.1.0", "racy"));
        assert!(spec_matches("path+file:///w/racy#0.1.0", "racy"));
        assert!(spec_matches("path+file:///w/dir#racy@0.1.0", "racy"));
        assert!(spec_matches("https://github.com/rust-lang/crates.io-index#racy", "racy"));
        assert!(!spec_matches("path+file:///w/racy#plain@0.1.0", "racy"));
        assert!(!spec_matches("rac", "racy"));
        assert!(spec_matches("*", "racy") && spec_matches("r*y", "racy") && !spec_matches("r*x", "racy"));
    }
}
