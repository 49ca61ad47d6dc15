//! The layering of racer-core's modules (see ARCHITECTURE.md): no import cycle between modules,
//! and no module importing from a layer folder above its own.
//!
//! A module is a file (`x.rs`, or `x/mod.rs` for folder `x`). Its imports are the paths it names
//! outside comments, string literals and `#[cfg(test)]` items: `crate::a::b`, `super::a`,
//! `self::a`, and in a `mod.rs` its children by name (`alg3::Alg3`), with `use` groups
//! (`a::{b, c::d}`) expanded. A path counts as an import of the deepest module it names.
//! `lib.rs` (the crate's door: declarations and re-exports) is not checked.
//!
//! `cargo test -p racer-core --test layers -- --nocapture` prints the graph between layers.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Layer folders, top first: a module may import from its own folder and from those below it.
const LAYERS: [&str; 13] = [
    "paper",
    "api",
    "schedule",
    "shadow",
    "deadlock",
    "reporting",
    "process",
    "runtime",
    "config",
    "provenance",
    "model",
    "report",
    "base",
];

type Module = Vec<String>;

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer).map(|i| LAYERS.len() - i)
}

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
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

#[test]
fn no_import_cycle_and_no_upward_import() {
    let g = graph();
    let mut faults = BTreeSet::new();
    let mut between: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (m, targets) in &g.edges {
        for t in targets {
            let (a, b) = (m[0].as_str(), t[0].as_str());
            let (Some(ra), Some(rb)) = (rank(a), rank(b)) else {
                faults.insert(format!("not in a layer folder: {} or {}", m.join("::"), t.join("::")));
                continue;
            };
            if rb > ra {
                faults.insert(format!("upward import: {} ({a}) -> {} ({b})", m.join("::"), t.join("::")));
            }
            if a != b {
                between.entry(a).or_default().insert(b);
            }
        }
    }
    for comp in cycles(&g) {
        let names: Vec<String> = comp.iter().map(|m| m.join("::")).collect();
        faults.insert(format!("import cycle: {}", names.join(", ")));
    }
    for layer in LAYERS {
        let mut below: Vec<&str> = between.get(layer).into_iter().flatten().copied().collect();
        below.sort_by_key(|l| std::cmp::Reverse(rank(l)));
        println!("{layer:>10} -> {}", if below.is_empty() { "(nothing)".to_owned() } else { below.join(", ") });
    }
    let imports: usize = g.edges.values().map(BTreeSet::len).sum();
    println!("{} modules, {imports} imports between them", g.modules.len() - 1);
    assert!(
        g.modules.len() > 40 && imports > 100,
        "the checker reads the tree ({} modules, {imports} imports)",
        g.modules.len()
    );
    assert!(
        faults.is_empty(),
        "racer-core's layering is broken:\n{}",
        faults.into_iter().collect::<Vec<_>>().join("\n")
    );
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
