#!/usr/bin/env python3
"""Checks racer-core's layering: no import cycle between its modules, and no module importing
from a layer folder above its own.

A module is a file (`x.rs`, or `x/mod.rs` for folder `x`). Its imports are every path it names,
outside comments and `#[cfg(test)]` items: `crate::a::b`, `super::a`, `self::a`, and in a
`mod.rs` its children by name (`alg3::Alg3`). A path counts as an import of the deepest module
it names. `lib.rs` (the crate's door: declarations and re-exports) is not checked.

Usage: .ci/check_layers.py [racer-core/src]   (prints the layer graph; exit status 1 on a fault)
"""
import pathlib
import re
import sys

# Layer folders, top first: a module may import from its own folder and from those below it.
LAYERS = ["paper", "api", "shadow", "deadlock", "reporting", "process", "runtime", "config",
          "provenance", "model", "report", "base"]
RANK = {name: len(LAYERS) - i for i, name in enumerate(LAYERS)}


def module_of(path, root):
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return tuple(parts)


def strip(text):
    """The text without comments, string literals and `#[cfg(test)]` items."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        j = m.end()
        # the item: up to its `;`, or through its matching `}`
        depth = 0
        while j < len(text):
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif c == ";" and depth == 0:
                j += 1
                break
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand_groups(text):
    """`a::{b, c::d}` -> `a::b a::c::d` (one level of `use` groups, repeated)."""
    pat = re.compile(r"((?:\w+::)+)\{([^{}]*)\}")
    while True:
        new = pat.sub(lambda m: " ".join(m.group(1) + p.strip() for p in m.group(2).split(",") if p.strip()), text)
        if new == text:
            return text
        text = new


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "racer-core/src")
    files = {module_of(p, root): p for p in sorted(root.rglob("*.rs"))}
    modules = set(files)
    edges = {m: set() for m in modules}
    for m, path in files.items():
        if m == ():
            continue
        text = expand_groups(strip(path.read_text()))
        is_dir_mod = path.name == "mod.rs"
        here = m if is_dir_mod else m[:-1]  # the module whose children `self::`-less names are
        for p in re.finditer(r"\b((?:crate|super|self|[a-z_][a-z0-9_]*)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
            parts = p.group(1).split("::")
            if parts[0] == "crate":
                base, rest = (), parts[1:]
            elif parts[0] in ("super", "self"):
                base = m
                while parts and parts[0] in ("super", "self"):
                    if parts[0] == "super":
                        base = base[:-1]
                    parts = parts[1:]
                rest = parts
            elif is_dir_mod and m + (parts[0],) in modules:
                base, rest = m, parts
            else:
                continue
            target = base
            for name in rest:
                if target + (name,) in modules:
                    target = target + (name,)
                else:
                    break
            if target != m and target != ():
                edges[m].add(target)
    faults = []
    # Layer order: the top folder of the importer must not rank below the top folder imported.
    for m, ts in edges.items():
        for t in ts:
            if not m or not t:
                continue
            a, b = m[0], t[0]
            if a not in RANK:
                faults.append(f"{'/'.join(m)} is in no layer folder")
                continue
            if b not in RANK:
                faults.append(f"{'/'.join(t)} is in no layer folder")
                continue
            if RANK[b] > RANK[a]:
                faults.append(f"upward import: {'::'.join(m)} ({a}) -> {'::'.join(t)} ({b})")
    # Cycles: strongly connected components of more than one module (Tarjan).
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)
    sys.setrecursionlimit(10000)
    for v in sorted(modules):
        if v not in index:
            visit(v)
    for comp in sccs:
        faults.append("import cycle: " + ", ".join(sorted("::".join(c) for c in comp)))
    layer_edges = {}
    for m, ts in edges.items():
        for t in ts:
            if m and t and m[0] != t[0]:
                layer_edges.setdefault(m[0], set()).add(t[0])
    for layer in LAYERS:
        below = sorted(layer_edges.get(layer, ()), key=lambda l: -RANK.get(l, 0))
        print(f"{layer:>10} -> {', '.join(below) or '(nothing)'}")
    print(f"{len(modules) - 1} modules, {sum(len(t) for t in edges.values())} imports between them")
    for f in sorted(set(faults)):
        print("FAULT:", f)
    if faults:
        print(f"check_layers: {len(set(faults))} fault(s)")
        return 1
    print("check_layers: no cycle, no upward import")
    return 0


if __name__ == "__main__":
    sys.exit(main())
