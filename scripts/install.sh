#!/usr/bin/env bash
# make install / make uninstall (README: Install).
#
#   scripts/install.sh install   DESTDIR PREFIX BINARY GENERATE_MANUAL
#   scripts/install.sh uninstall DESTDIR PREFIX
#
# install puts under DESTDIR+PREFIX: bin/bookkeeper, share/bookkeeper/reports/*.yaml (found by the binary as
# ../share/bookkeeper/reports), share/man/man1/bookkeeper.1 (argument-parser's generate-manual), and the bash, zsh
# and fish completions the binary generates. It keeps a manifest, share/bookkeeper/install-manifest, of every file
# it wrote and every folder it had to create, as paths under PREFIX (DESTDIR left out), so uninstall removes
# exactly those, and a folder only when it is empty.
set -euo pipefail

mode=${1:?install or uninstall}
destdir=${2-}
prefix=${3:?PREFIX}
case "$prefix" in /*) ;; *) echo "install.sh: PREFIX must be an absolute path (got '$prefix')" >&2; exit 64 ;; esac
prefix=${prefix%/}
root="$destdir$prefix"
manifest_path="$prefix/share/bookkeeper/install-manifest"
manifest="$destdir$manifest_path"

uninstall() {
    if [ ! -f "$manifest" ]; then
        echo "install.sh: nothing to uninstall: no manifest at $manifest" >&2
        return 1
    fi
    local line kind path dirs=()
    while IFS= read -r line; do
        kind=${line%% *}; path=${line#* }
        case "$kind" in
            f) rm -f -- "$destdir$path" ;;
            d) dirs=("$destdir$path" "${dirs[@]}") ;; # deepest last created, removed first
        esac
    done < "$manifest"
    rm -f -- "$manifest"
    local dir
    for dir in "${dirs[@]}"; do
        [ -d "$dir" ] || continue
        rmdir -- "$dir" 2>/dev/null || echo "install.sh: kept $dir: it holds files not installed by bookkeeper" >&2
    done
}

if [ "$mode" = uninstall ]; then
    uninstall
    exit
fi
[ "$mode" = install ] || { echo "install.sh: unknown mode '$mode'" >&2; exit 64; }

binary=${4:?the built binary}
generate_manual=${5:?generate-manual}
here=$(cd "$(dirname "$0")/.." && pwd)

# A second install replaces the first whole: a report dropped since is not left behind.
if [ -f "$manifest" ]; then uninstall; fi

entries=()
# Creates DIR (a path under PREFIX) and each missing parent, recording the ones it made.
make_dir() {
    local path=$1 missing=()
    while [ ! -d "$destdir$path" ]; do
        missing=("$path" "${missing[@]}")
        path=$(dirname "$path")
    done
    local dir
    for dir in "${missing[@]}"; do
        mkdir -- "$destdir$dir"
        entries+=("d $dir")
    done
}
# Copies SOURCE to PATH (under PREFIX) with MODE.
put() {
    make_dir "$(dirname "$2")"
    install -m "$3" -- "$1" "$destdir$2"
    entries+=("f $2")
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Without its debug sections (most of the file); the symbol table stays, so a crash's backtrace still names functions.
strip --strip-debug -o "$work/bookkeeper" -- "$binary"
put "$work/bookkeeper" "$prefix/bin/bookkeeper" 755
for report in "$here"/Reports/*.yaml; do
    put "$report" "$prefix/share/bookkeeper/reports/$(basename "$report")" 644
done
"$generate_manual" "$binary" --output-directory "$work"
put "$work/bookkeeper.1" "$prefix/share/man/man1/bookkeeper.1" 644
"$binary" --generate-completion-script bash > "$work/bookkeeper.bash"
put "$work/bookkeeper.bash" "$prefix/share/bash-completion/completions/bookkeeper" 644
"$binary" --generate-completion-script zsh > "$work/_bookkeeper"
put "$work/_bookkeeper" "$prefix/share/zsh/site-functions/_bookkeeper" 644
"$binary" --generate-completion-script fish > "$work/bookkeeper.fish"
put "$work/bookkeeper.fish" "$prefix/share/fish/vendor_completions.d/bookkeeper.fish" 644

make_dir "$(dirname "$manifest_path")"
printf '%s\n' "${entries[@]}" > "$manifest"
echo "f $manifest_path" >> "$manifest"
echo "installed bookkeeper $("$binary" --version) into $root ($(grep -c '^f ' "$manifest") files; make uninstall PREFIX=$prefix${destdir:+ DESTDIR=$destdir} removes them)"
