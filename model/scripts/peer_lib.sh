# Shared by the scripts that run a peer's own tests from the cargo
# registry (crossbeam_tests.sh, rayon_tests.sh): sourced, not run.

# Copies FILE to OUT without the top-level functions named in NAMES (space
# separated), each with the attribute and comment lines right above it;
# fails if a name is not found exactly once.
strip_functions() {
    awk -v names="$3" -v script="${0##*/}" '
        BEGIN { n = split(names, list, " "); for (i = 1; i <= n; i++) want[list[i]] = 0 }
        skip { if (/^}/) { skip = 0; drop_blank = 1 } next }
        drop_blank && /^$/ { drop_blank = 0; next }
        { drop_blank = 0 }
        # An attribute over several lines (rustfmt closes it with `)]` in
        # column 0) is held whole, with the function it stands over.
        in_attr { held = held $0 "\n"; if (/^\)\]/) in_attr = 0; next }
        /^(#\[|\/\/)/ { held = held $0 "\n"; if (/^#\[/ && !/\]$/) in_attr = 1; next }
        /^(pub(\([a-z]+\))? )?fn [A-Za-z0-9_]+[(<]/ {
            name = $0; sub(/^(pub(\([a-z]+\))? )?fn /, "", name); sub(/[(<].*/, "", name)
            if (name in want) { want[name]++; held = ""; skip = 1; next }
        }
        { printf "%s%s\n", held, $0; held = "" }
        END {
            printf "%s", held
            for (name in want) if (want[name] != 1) {
                printf "%s: %s: function %s found %d times, expected once\n", script, FILENAME, name, want[name] > "/dev/stderr"
                bad = 1
            }
            exit bad
        }
    ' "$1" >"$2"
}
