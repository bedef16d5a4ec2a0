#!/usr/bin/env bash
# make screenshots: runs the real program in tmux (a private server, 120x36,
# 256 colours), drives it with keys, captures each screen with its colours
# and converts it: ANSI -> SVG (screenshots/ansi2svg.py) -> PNG
# (rsvg-convert, Debian's librsvg2-bin). Writes screenshots/*.png and *.svg.
set -eu
cd "$(dirname "$0")/.."
prog=$(pwd)/placeto
py=/usr/bin/python3
sock="placeto-shots-$$"
work=$(mktemp -d)
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2> /dev/null; sleep 0.5; rm -rf "$work" 2> /dev/null || true' EXIT
cols=120 rows=36

wait_for() { # TEXT: until the screen shows it (30 s at most)
    for _ in $(seq 300); do
        tm capture-pane -p -t s | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    echo "screenshots: the screen never showed '$1'" >&2
    tm capture-pane -p -t s >&2
    exit 1
}

# shot NAME WAIT_TEXT: capture the session as screenshots/NAME.{svg,png}
shot() {
    wait_for "$2"
    sleep 0.3
    tm capture-pane -p -e -t s > "$work/$1.ans"
    "$py" screenshots/ansi2svg.py "$work/$1.ans" "screenshots/$1.svg" --cols $cols --rows $rows
    rsvg-convert -o "screenshots/$1.png" "screenshots/$1.svg"
    echo "screenshots/$1.png"
}

tm new-session -d -s keep "sleep 600" # keeps the server up between sessions
start() { # ARGS...: a fresh session running placeto ARGS in $work
    tm kill-session -t s 2> /dev/null || true
    tm new-session -d -s s -x $cols -y $rows -c "$work" "env TERM=xterm-256color LANG=C.UTF-8 $prog $*; sleep 60"
}

g=$(pwd)/graphs/inception_v3.json
pol=$(pwd)/graphs/policies/inception_v3_2.json

# the main screen: sixty policy steps into an episode (it starts with
# everything on device 0, where the policy was trained from)
start explore "$g" --policy "$pol"
wait_for "Timeline"
for _ in $(seq 60); do tm send-keys -t s Space; done
shot main "step 60/169"

# an override by hand: select a child of the current node, move it
tm send-keys -t s Down Down 1
shot override "you moved"

# the timeline maximised
tm send-keys -t s c Tab z
shot timeline "Timeline runtime"

# the baselines side by side
tm send-keys -t s z b
shot compare "Baselines"

# training in the background with its learning curve
# (400 episodes, so that it is still running when the screen is taken: a
# busy machine or a fast one must not let it finish first)
tm send-keys -t s Escape T BSpace BSpace 4 0 0 Enter
wait_for "/400"
sleep 4
tm send-keys -t s Tab Tab Tab z
shot training "/400"

# the guided tour
start demo
wait_for "Tour 1/15"
tm send-keys -t s Space Space Space Space
shot demo "Tour 5/15"

# an HSDAG episode on Inception-V3's inference graph on one CPU and one GPU, its
# learned clusters coloured as groups (C) and compared with the fixed ones
start explore "$(pwd)/graphs/inference/inception_v3.json" --cluster "$(pwd)/graphs/clusters/cpu_gpu1.json" \
    --policy "$(pwd)/graphs/policies/hsdag_inception_v3.json"
wait_for "Timeline"
for _ in $(seq 40); do tm send-keys -t s Space; done
tm send-keys -t s C
shot hsdag_clusters "learned clusters"

# the DOT export of ResNet-18's HEFT placement on 2 devices, drawn by gvc
"$prog" place graphs/resnet18.json --method heft --devices 2 -o "$work/resnet18_heft.json" > /dev/null 2>&1
"$prog" export graphs/resnet18.json --placement "$work/resnet18_heft.json" --png screenshots/export_resnet18.png
