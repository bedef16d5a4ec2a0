#!/usr/bin/env bash
# bench/build_rev.sh REV: builds REV's placeto once and prints its path.
# The one way the experiments build another commit (bench/run vs-commit,
# gdp-speed with a base commit, load): REV (a commit, tag or branch) is
# checked out in a git worktree build/revs/COMMIT (COMMIT: REV's full hash)
# kept between runs, built there with `make placeto` (the log in
# build/revs/COMMIT.log, shown on failure), and the binary's absolute path
# printed on stdout. A second call with the same commit builds nothing. A
# lock (flock, when there is one) keeps two runs from building one commit at
# once.
#
# example: old=$(bash bench/build_rev.sh 8286a0c)
set -eu
[ $# -eq 1 ] || { echo "usage: bash bench/build_rev.sh REV" >&2; exit 2; }
cd "$(dirname "$0")/.."
sha=$(git rev-parse --verify -q "$1^{commit}") || { echo "build_rev.sh: $1: no such commit" >&2; exit 1; }
revs=$PWD/build/revs
dir=$revs/$sha
mkdir -p "$revs"
exec 9> "$dir.lock"
command -v flock > /dev/null && flock 9
if [ ! -x "$dir/placeto" ]; then
    if [ ! -d "$dir" ]; then
        git worktree prune
        git worktree add --detach "$dir" "$sha" > /dev/null 2>&1 ||
            { echo "build_rev.sh: cannot check $1 out in $dir" >&2; exit 1; }
    fi
    echo "building $1 ($sha) in $dir ..." >&2
    make -C "$dir" -s -j"$(nproc)" placeto > "$dir.log" 2>&1 ||
        { cat "$dir.log" >&2; echo "build_rev.sh: building $1 failed (log: $dir.log)" >&2; exit 1; }
fi
echo "$dir/placeto"
