//! The dependency graph of racer-core's folders (its source is `racer-rt/detector/`; see
//! ARCHITECTURE.md): `EDGES` below says which folders each folder's modules may import, and
//! the test fails on any import between folders outside it, on an edge of it no import uses,
//! and on a cycle between folders. Inside a folder, modules may import each other.
//!
//! A module is a file (`x.rs`, or `x/mod.rs` for folder `x`). Its imports are the paths it names
//! outside comments, string literals and `#[cfg(test)]` items: `crate::a::b`, `super::a`,
//! `self::a`, and in a `mod.rs` its children by name (`alg3::Alg3`), with `use` groups
//! (`a::{b, c::d}`) expanded. A path counts as an import of the deepest module it names.
//! `lib.rs` (the crate's door: declarations and re-exports) is not checked.
//!
//! `cargo test -p racer-core --test layers -- --nocapture` prints the graph between folders.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The dependency graph between racer-core's folders, top first: each folder and the folders
/// its modules may import. The modules of one folder may import each other freely; between
/// folders, only these edges, which must be acyclic and each used by some import (the table is
/// the graph the code has, no more). This table is the one statement of racer-core's layering:
/// the folders' `mod.rs` files point here, and ARCHITECTURE.md's table must match it (checked
/// below).
const EDGES: &[(&str, &[&str])] = &[
    ("paper", &["shadow", "model", "report"]),
    (
        "api",
        &["schedule", "shadow", "deadlock", "reporting", "runtime", "config", "provenance", "model", "report", "base"],
    ),
    ("schedule", &["base"]),
    ("shadow", &["deadlock", "reporting", "runtime", "provenance", "model", "report", "base"]),
    ("deadlock", &["reporting", "runtime", "config", "provenance", "report", "base"]),
    ("reporting", &["runtime", "config", "provenance", "report", "base"]),
    ("runtime", &["config", "provenance", "model", "report", "base"]),
    ("config", &["provenance", "model", "report", "base"]),
    ("provenance", &["model", "report", "base"]),
    ("model", &["report", "base"]),
    ("report", &[]),
    ("base", &[]),
];

type Module = Vec<String>;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(path: &Path, root: &Path) -> Module {
    let rel = path.strip_prefix(root).expect("under src").with_extension("");
    let mut parts: Module = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The source without comments, string and char literals (lifetimes kept).
fn strip_literals(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c[i] == 'r'
            && (next == Some('"') || next == Some('#'))
            && !c.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c[i] == '\'' && next == Some('\\') {
            i += 2;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The text without `#[cfg(test)]` items (each up to its `;`, or through its matching `}`).
fn strip_tests(text: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (k, ch) in item.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Other,
}

fn tokens(text: &str) -> Vec<Token> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_alphabetic() || ch == '_' || ch == '$' {
            let start = i;
            i += 1;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            out.push(Token::Ident(word.trim_start_matches('$').to_owned()));
            continue;
        }
        out.push(match ch {
            ':' if c.get(i + 1) == Some(&':') => {
                i += 1;
                Token::PathSep
            }
            '{' => Token::Open,
            '}' => Token::Close,
            ',' => Token::Comma,
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            _ => Token::Other,
        });
        i += 1;
    }
    out
}

/// Every path in `toks`, with `use` groups expanded: `a::{b, c::d}` gives `a::b` and `a::c::d`.
fn paths(toks: &[Token]) -> Vec<Vec<String>> {
    fn path_at(toks: &[Token], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
        let mut path = prefix.to_vec();
        loop {
            match toks.get(i) {
                Some(Token::Ident(name)) => {
                    path.push(name.clone());
                    i += 1;
                }
                Some(Token::Open) if !path.is_empty() => {
                    i += 1;
                    while i < toks.len() && toks[i] != Token::Close {
                        if toks[i] == Token::Comma {
                            i += 1;
                            continue;
                        }
                        let before = i;
                        i = path_at(toks, i, &path, out);
                        if i == before {
                            i += 1;
                        }
                    }
                    return i + 1;
                }
                _ => break,
            }
            if toks.get(i) == Some(&Token::PathSep) {
                i += 1;
            } else {
                break;
            }
        }
        if path.len() > prefix.len() {
            out.push(path);
        }
        i
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let starts = matches!(toks[i], Token::Ident(_))
            && toks.get(i + 1) == Some(&Token::PathSep)
            && !(i > 0 && toks[i - 1] == Token::PathSep);
        if starts {
            i = path_at(toks, i, &[], &mut out);
        } else {
            i += 1;
        }
    }
    out
}

struct Graph {
    modules: BTreeSet<Module>,
    edges: BTreeMap<Module, BTreeSet<Module>>,
}

fn graph() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../racer-rt/detector");
    let mut all = Vec::new();
    files(&root, &mut all);
    let by_module: BTreeMap<Module, PathBuf> = all.iter().map(|p| (module_of(p, &root), p.clone())).collect();
    let modules: BTreeSet<Module> = by_module.keys().cloned().collect();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, path) in &by_module {
        if m.is_empty() {
            continue;
        }
        let text = strip_tests(&strip_literals(&fs::read_to_string(path).expect("read source")));
        let is_dir_mod = path.file_name().is_some_and(|n| n == "mod.rs");
        let targets = edges.entry(m.clone()).or_default();
        for p in paths(&tokens(&text)) {
            let (mut base, mut rest): (Module, &[String]) = (Vec::new(), &p[..]);
            match p[0].as_str() {
                "crate" => rest = &p[1..],
                "super" | "self" => {
                    base = m.clone();
                    while let Some(first) = rest.first().map(String::as_str).filter(|f| *f == "super" || *f == "self") {
                        if first == "super" {
                            base.pop();
                        }
                        rest = &rest[1..];
                    }
                }
                first if is_dir_mod && modules.contains(&[m.clone(), vec![first.to_owned()]].concat()) => {
                    base = m.clone()
                }
                _ => continue,
            }
            let mut target = base;
            for name in rest {
                target.push(name.clone());
                if !modules.contains(&target) {
                    target.pop();
                    break;
                }
            }
            if &target != m && !target.is_empty() {
                targets.insert(target);
            }
        }
    }
    Graph { modules, edges }
}

/// Strongly connected components of more than one module (Tarjan).
fn cycles(g: &Graph) -> Vec<Vec<Module>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        next: usize,
        found: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        let g = s.g;
        for w in g.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().expect("on the stack");
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.found.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in &g.modules {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// The imports between folders, as (folder, folder) with the first module import that makes
/// each edge.
fn folder_edges(g: &Graph) -> BTreeMap<(String, String), String> {
    let mut between = BTreeMap::new();
    for (m, targets) in &g.edges {
        for t in targets {
            if m[0] != t[0] {
                between
                    .entry((m[0].clone(), t[0].clone()))
                    .or_insert_with(|| format!("{} -> {}", m.join("::"), t.join("::")));
            }
        }
    }
    between
}

/// What is wrong with the imports of `g` against the allowed edges `table`: an import between
/// folders that the table does not allow (named by its modules), a module outside the table's
/// folders, an edge of the table no import uses, or a cycle between folders.
fn faults(g: &Graph, table: &[(&str, &[&str])]) -> BTreeSet<String> {
    let allowed: BTreeMap<&str, BTreeSet<&str>> =
        table.iter().map(|(folder, to)| (*folder, to.iter().copied().collect())).collect();
    let mut faults = BTreeSet::new();
    for m in g.modules.iter().filter(|m| !m.is_empty()) {
        if !allowed.contains_key(m[0].as_str()) {
            faults.insert(format!("not in a folder of the table: {}", m.join("::")));
        }
    }
    for folder in allowed.keys() {
        if !g.modules.iter().any(|m| m.first().is_some_and(|f| f == folder)) {
            faults.insert(format!("folder of the table with no module: {folder}"));
        }
    }
    let between = folder_edges(g);
    for ((a, b), example) in &between {
        if allowed.get(a.as_str()).is_some_and(|to| !to.contains(b.as_str())) {
            faults.insert(format!("import outside the table: {example} ({a} -> {b})"));
        }
    }
    for (a, to) in &allowed {
        for b in to {
            if !between.contains_key(&(a.to_string(), b.to_string())) {
                faults.insert(format!("edge of the table that no import uses: {a} -> {b}"));
            }
        }
    }
    let folders = Graph {
        modules: allowed.keys().map(|f| vec![f.to_string()]).collect(),
        edges: allowed
            .iter()
            .map(|(a, to)| (vec![a.to_string()], to.iter().map(|b| vec![b.to_string()]).collect()))
            .collect(),
    };
    for comp in cycles(&folders) {
        let names: Vec<String> = comp.iter().map(|m| m.join("::")).collect();
        faults.insert(format!("cycle between folders in the table: {}", names.join(", ")));
    }
    faults
}

#[test]
fn imports_follow_the_table() {
    let g = graph();
    for (folder, _) in EDGES {
        let mut to: Vec<String> = folder_edges(&g).into_keys().filter(|(a, _)| a == folder).map(|(_, b)| b).collect();
        to.sort_by_key(|b| EDGES.iter().position(|(f, _)| f == b));
        println!("{folder:>10} -> {}", if to.is_empty() { "(nothing)".to_owned() } else { to.join(", ") });
    }
    let imports: usize = g.edges.values().map(BTreeSet::len).sum();
    println!("{} modules, {imports} imports between them", g.modules.len() - 1);
    assert!(
        g.modules.len() > 40 && imports > 100,
        "the checker reads the tree ({} modules, {imports} imports)",
        g.modules.len()
    );
    let faults = faults(&g, EDGES);
    assert!(
        faults.is_empty(),
        "racer-core's imports and the table EDGES in tests/layers.rs disagree:\n{}",
        faults.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The checker fails on an import the table does not allow, naming it, and on a table that
/// claims an edge no import uses or has a cycle; it allows a cycle inside one folder.
#[test]
fn the_checker_fails_on_an_edge_outside_the_table() {
    let m = |s: &str| s.split("::").map(str::to_owned).collect::<Module>();
    let graph = |imports: &[(&str, &str)]| {
        let mut g = Graph { modules: BTreeSet::from([Vec::new()]), edges: BTreeMap::new() };
        for (a, b) in imports {
            g.modules.extend([m(a), m(b)]);
            g.edges.entry(m(a)).or_default().insert(m(b));
        }
        g
    };
    let table: &[(&str, &[&str])] = &[("top", &["low"]), ("low", &[])];
    // Mutual imports inside a folder, and the one edge the table has.
    let good = graph(&[("top::a", "top::b"), ("top::b", "top::a"), ("top::a", "low::c")]);
    assert_eq!(faults(&good, table), BTreeSet::new());
    // The real tree with one import added upward: the fault names the import.
    let mut real = self::graph();
    real.edges.entry(m("model::clock")).or_default().insert(m("shadow::cell"));
    assert_eq!(
        faults(&real, EDGES).into_iter().collect::<Vec<_>>(),
        ["import outside the table: model::clock -> shadow::cell (model -> shadow)"]
    );
    // An edge the table lacks, one it has but nothing uses, a folder it does not know.
    let bad = graph(&[("low::c", "top::a"), ("other::d", "low::c")]);
    assert_eq!(
        faults(&bad, table).into_iter().collect::<Vec<_>>(),
        [
            "edge of the table that no import uses: top -> low",
            "import outside the table: low::c -> top::a (low -> top)",
            "not in a folder of the table: other::d",
        ]
    );
    // A table with a cycle between folders.
    let cyclic: &[(&str, &[&str])] = &[("top", &["low"]), ("low", &["top"])];
    let both = graph(&[("top::a", "low::c"), ("low::c", "top::a")]);
    assert_eq!(faults(&both, cyclic).into_iter().collect::<Vec<_>>(), ["cycle between folders in the table: low, top"]);
}

/// The checker itself sees what it must: a cycle and an upward import in a made-up tree's
/// paths, `use` groups and `super::`.
#[test]
fn the_checker_reads_paths_groups_and_comments() {
    let text = strip_tests(&strip_literals(
        "use crate::a::{b::C, d};\n// crate::x::y\nlet s = \"crate::q::r\"; let c = '\"';\n#[cfg(test)]\nmod tests { use crate::t::u; }\nsuper::e::f();",
    ));
    let found = paths(&tokens(&text));
    let names: Vec<String> = found.iter().map(|p| p.join("::")).collect();
    assert_eq!(names, ["crate::a::b::C", "crate::a::d", "super::e::f"]);
}

/// ARCHITECTURE.md's table of folders says what `EDGES` says: the same folders in the same order,
/// each with the same imports and its tier (the longest chain of imports below it).
#[test]
fn the_architecture_table_matches_the_edges() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md");
    let text = fs::read_to_string(path).expect("read ARCHITECTURE.md");
    let ticked = |cell: &str| -> Vec<String> { cell.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    let rows: Vec<(String, String, BTreeSet<String>)> = text
        .lines()
        .skip_while(|l| !l.starts_with("| tier | folder: files | may import |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let folder = ticked(cells[2]).first().expect("a folder").trim_end_matches('/').to_owned();
            (cells[1].to_owned(), folder, ticked(cells[3]).into_iter().collect())
        })
        .collect();
    fn tier(folder: &str) -> usize {
        let to = EDGES.iter().find(|(f, _)| *f == folder).expect("a folder of the table").1;
        to.iter().map(|b| tier(b) + 1).max().unwrap_or(0)
    }
    let expected: Vec<(String, String, BTreeSet<String>)> = EDGES
        .iter()
        .map(|(f, to)| (tier(f).to_string(), f.to_string(), to.iter().map(|b| b.to_string()).collect()))
        .collect();
    assert_eq!(rows, expected, "ARCHITECTURE.md's table (tier, folder, may import) and EDGES in tests/layers.rs");
}
