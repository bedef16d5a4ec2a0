#!/usr/bin/env bash
# `placeto train` killed with SIGKILL at every step of its saves, again and
# again: each time `train --resume` of the policy file succeeds (a kill
# between the renames of the checkpoint and of the policy file used to leave
# a pair that --resume refused, or, when the file's weights had not changed,
# took silently), and the training finished by resumes writes the bytes of
# an uninterrupted run of as many episodes, with no temporary or pending
# checkpoint left beside it. PLACETO_KILLS kills of Placeto's trainer
# (default 30), and 9 of the RNN placer's. The runs save after every
# episode, on a toy graph where a save takes most of an episode's time.
# Prints "kill: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/chain.json
kills=${PLACETO_KILLS:-30}

# lineage NAME KILLS SHAPE ARGS...: a training with ARGS (and SHAPE, the
# options that set a new policy's architecture, which --resume refuses): 2
# episodes, then KILLS rounds of a long resumed run killed after the J-th
# change to its files (J = 1 to 9: the steps of its first saves), each
# followed by a resume of 1 episode that must succeed; then 3 episodes more,
# and the files must be an uninterrupted run's of as many episodes, alone
# in their directory
lineage() {
    local name=$1 n_kills=$2 shape=$3 i where n
    shift 3
    local k=$tmp/$name/k.json
    mkdir -p "$tmp/$name"
    # shellcheck disable=SC2086  # SHAPE is a list of options
    run train "$g" --episodes 2 --checkpoint-every 1 --seed 5 $shape "$@" -o "$k"
    expect_rc "$name: first run" 0 || return
    for ((i = 0; i < n_kills; i++)); do
        # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
        where=$(killer $((1 + i % 9)) $wrap "$prog" train "$g" --episodes 100000 --checkpoint-every 1 "$@" --resume "$k")
        run train "$g" --episodes 1 --checkpoint-every 1 "$@" --resume "$k"
        expect_rc "$name: kill $((i + 1)) of $n_kills ($where): train --resume" 0 || return # every later resume fails alike
    done
    pass
    n=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["training"]["episodes"])' "$k")
    run train "$g" --episodes 3 --checkpoint-every 1 "$@" --resume "$k"
    expect_rc "$name: the last resume" 0 || return
    # shellcheck disable=SC2086
    run train "$g" --episodes $((n + 3)) --seed 5 $shape "$@" -o "$tmp/$name.json"
    expect_rc "$name: the uninterrupted run" 0 || return
    if cmp -s "$k" "$tmp/$name.json" && cmp -s "$tmp/$name/k.ckpt.json" "$tmp/$name.ckpt.json"; then pass
    else fail "$name: resumed after $n_kills kills" "differs from $((n + 3)) uninterrupted episodes"; fi
    left=$(cd "$tmp/$name" && ls -A | tr '\n' ' ')
    if [ "$left" = "k.ckpt.json k.json " ]; then pass; else fail "$name: files left" "$left"; fi
}

# the file holds the last weights: a checkpoint of the next save beside the
# policy file of the last one has other weights (what --resume refused)
lineage last $((kills * 2 / 3)) "" --keep last
# the file holds the best weights, the same over many saves: the checkpoint
# also names its save's episode count
lineage best $((kills - kills * 2 / 3)) ""
# another agent's trainer, through the same policy file (its saves take
# milliseconds)
lineage rnn 9 "--hidden 8" --agent rnn --samples-per-update 4

echo "kill: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
