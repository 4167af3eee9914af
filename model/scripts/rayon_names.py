#!/usr/bin/env python3
"""Counts the public names of rayon 1.12, rayon-core 1.13 and
crossbeam-deque 0.8 that stealpool has, by name: the methods of rayon's
iterator, slice and string traits, of `ThreadPool` and `ThreadPoolBuilder`,
rayon-core's crate-root re-exports, `rayon::iter`'s free functions, and
crossbeam-deque's `Worker`/`Stealer`/`Injector` methods; prints each group's
count and the names missing. A name counts as present when `src/` defines a
function, type or trait of that name: a count by name, not a check of
signatures (rayon's own tests through `rayon_tests.sh` check those).

Run from the repository root after `cargo fetch`:
    python3 model/scripts/rayon_names.py
"""
import glob
import os
import re
import sys

REGISTRY = os.path.expanduser("~/.cargo/registry/src")


def package(name):
    found = sorted(glob.glob(os.path.join(REGISTRY, "*", name)))
    if not found:
        sys.exit(f"rayon_names: {name} is not in the cargo registry (run cargo fetch)")
    return found[-1]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def trait_methods(path, trait):
    text = read(path)
    start = text.index("{", text.index("pub trait " + trait))
    depth, end = 0, start
    while True:
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
        end += 1
    return set(re.findall(r"^    fn (\w+)", text[start:end], re.M))


def root_reexports(path):
    names = set()
    for item in re.findall(r"^pub use ([^;]*);", read(path), re.M | re.S):
        item = re.sub(r"\s+", " ", item)
        inner = re.search(r"\{(.*)\}", item)
        for name in (inner.group(1) if inner else item.split("::")[-1]).split(","):
            name = name.strip().split(" as ")[-1].strip().split("::")[-1]
            if name and name != "self":
                names.add(name)
    return names


def main():
    rayon, core, deque = package("rayon-1.12.0"), package("rayon-core-1.13.0"), package("crossbeam-deque-0.8.8")
    ours = "".join(read(p) for p in glob.glob("src/**/*.rs", recursive=True))
    have = set(re.findall(r"\bfn (\w+)", ours)) | set(re.findall(r"\b(?:struct|trait|enum|type) (\w+)", ours))
    groups = {
        "ParallelIterator": trait_methods(f"{rayon}/src/iter/mod.rs", "ParallelIterator"),
        "IndexedParallelIterator": trait_methods(f"{rayon}/src/iter/mod.rs", "IndexedParallelIterator"),
        "ParallelSlice": trait_methods(f"{rayon}/src/slice/mod.rs", "ParallelSlice"),
        "ParallelSliceMut": trait_methods(f"{rayon}/src/slice/mod.rs", "ParallelSliceMut"),
        "ParallelString": trait_methods(f"{rayon}/src/str.rs", "ParallelString"),
        "rayon::iter functions": {
            n for f in glob.glob(f"{rayon}/src/iter/*.rs") for n in re.findall(r"^pub fn (\w+)", read(f), re.M)
        },
        "rayon-core root": root_reexports(f"{core}/src/lib.rs"),
        "ThreadPool": set(re.findall(r"^    pub fn (\w+)", read(f"{core}/src/thread_pool/mod.rs"), re.M)),
        "ThreadPoolBuilder (and rayon-core's other lib.rs methods)": set(
            re.findall(r"^    pub fn (\w+)", read(f"{core}/src/lib.rs"), re.M)
        ),
        "crossbeam-deque Worker/Stealer/Injector": set(
            re.findall(r"^    pub fn (\w+)", read(f"{deque}/src/deque.rs"), re.M)
        ),
    }
    total = found = 0
    for group, names in groups.items():
        missing = sorted(n for n in names if n not in have)
        total += len(names)
        found += len(names) - len(missing)
        print(f"{group}: {len(names) - len(missing)} of {len(names)}" + (f"; missing: {', '.join(missing)}" if missing else ""))
    print(f"all: {found} of {total}")


if __name__ == "__main__":
    main()
