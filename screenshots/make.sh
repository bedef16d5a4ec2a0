#!/usr/bin/env bash
# make screenshots: the program draws them itself. Each screen is a headless
# run (120x36, 256 colours, Unicode) whose key script ends on the screen
# wanted, written as SVG by --slide (the explorer's own SVG writer,
# tui/explorer/slide.c); the training screen needs time to pass, so it runs
# in tmux (a private server) and is taken with the slide key (F2) like a
# user would. PNGs: rsvg-convert (Debian's librsvg2-bin). Writes
# screenshots/*.svg and *.png.
set -eu
cd "$(dirname "$0")/.."
prog=$(pwd)/placeto
sock="placeto-shots-$$"
work=$(mktemp -d)
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2> /dev/null; sleep 0.5; rm -rf "$work" 2> /dev/null || true' EXIT
cols=120 rows=36
command -v rsvg-convert > /dev/null || { echo "screenshots: rsvg-convert is needed (apt-get install librsvg2-bin)" >&2; exit 1; }

png() { # NAME: screenshots/NAME.svg -> .png, 1920 pixels wide as the slide key's
    rsvg-convert -w 1920 -a -o "screenshots/$1.png" "screenshots/$1.svg"
    echo "screenshots/$1.png"
}

# headless NAME KEYS ARGS...: placeto ARGS after KEYS, as screenshots/NAME.{svg,png}
headless() {
    local name=$1 keys=$2
    shift 2
    (cd "$work" && env LANG=C.UTF-8 "$prog" "$@" --headless --size ${cols}x${rows} --keys "$keys" \
        --slide "$work/$name.svg" > /dev/null)
    mv "$work/$name.svg" "screenshots/$name.svg"
    png "$name"
}

g=$(pwd)/graphs/inception_v3.json
pol=$(pwd)/graphs/policies/inception_v3_2.json
sixty=$(printf 'space %.0s' $(seq 60))

# the main screen: sixty policy steps into an episode (it starts with
# everything on device 0, where the policy was trained from)
headless main "$sixty" explore "$g" --policy "$pol"
# an override by hand: select a child of the current node, move it
headless override "$sixty down down 1" explore "$g" --policy "$pol"
# the timeline maximised
headless timeline "$sixty down down 1 c tab z" explore "$g" --policy "$pol"
# the baselines side by side
headless compare "$sixty down down 1 c tab z z b" explore "$g" --policy "$pol"
# the presentation layout (P): graph, policy, a tall timeline and the legend
headless present "$sixty P" explore "$g" --policy "$pol"
# the guided tour: its first stage (the problem), and message passing round by round
headless tour_problem "tick" demo
headless demo "space space space space j" demo
# the tour's race of the placers (stage 14), run to its end
headless tour_race "1 4 wait" demo
# an HSDAG episode on Inception-V3's inference graph on one CPU and one GPU, its
# learned clusters coloured as groups (C) and compared with the fixed ones
headless hsdag_clusters "$(printf 'space %.0s' $(seq 40)) C" explore "$(pwd)/graphs/inference/inception_v3.json" \
    --cluster "$(pwd)/graphs/clusters/cpu_gpu1.json" --policy "$(pwd)/graphs/policies/hsdag_inception_v3.json"

# training in the background with its learning curve, taken while it runs:
# in tmux, with the slide key
wait_for() { # TEXT: until the screen shows it (30 s at most)
    for _ in $(seq 300); do
        tm capture-pane -p -t s | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    echo "screenshots: the screen never showed '$1'" >&2
    tm capture-pane -p -t s >&2
    exit 1
}
tm new-session -d -s s -x $cols -y $rows -c "$work" \
    "env TERM=xterm-256color LANG=C.UTF-8 PLACETO_SLIDE_DIR='$work' $prog explore '$g' --policy '$pol'; sleep 60"
wait_for "Timeline"
for _ in $(seq 60); do tm send-keys -t s Space; done
wait_for "step 60/169"
# 4000 episodes, so that it is still running when the screen is taken: a
# busy machine or a fast one must not let it finish first
tm send-keys -t s T BSpace BSpace 4 0 0 0 Enter
wait_for "/4000"
sleep 3
tm send-keys -t s Tab Tab Tab Tab z # the History pane, maximised
wait_for "History"
sleep 0.3
tm send-keys -t s F2
wait_for "placeto-slide-001.svg"
mv "$work/placeto-slide-001.svg" screenshots/training.svg
png training

# the DOT export of ResNet-18's HEFT placement on 2 devices, drawn by gvc
"$prog" place graphs/resnet18.json --method heft --devices 2 -o "$work/resnet18_heft.json" > /dev/null 2>&1
"$prog" export graphs/resnet18.json --placement "$work/resnet18_heft.json" --png screenshots/export_resnet18.png
echo "screenshots/export_resnet18.png"
