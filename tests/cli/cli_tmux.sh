#!/usr/bin/env bash
# End to end: the real explorer in a real terminal (tmux, on a private
# server). Start it, step, override, undo, save, export DOT and a trace, quit;
# resume the saved episode; resize; a SIGTERM autosaves, restores the
# terminal, says where it saved and exits 143, as Ctrl-C (130), SIGINT and SIGHUP do; a fault (SIGSEGV) and the signals that
# end a program by default (SIGUSR1, SIGALRM) restore it too. Checks the captured screen and the files. Prints
# "tmux: N passed, M failed" (skips, passing nothing, when tmux is missing).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

# shellcheck source=tests/cli/lib_tmux.sh
. tests/cli/lib_tmux.sh
if [ "$tmux_ok" -eq 0 ]; then
    echo "tmux: not installed, end-to-end test skipped"
    echo "tmux: 0 passed, 0 failed"
    exit 0
fi
g=$(pwd)/graphs/toy/crown.json

start "$g" --devices 2
check "opens" "toy_crown on 2x K80"
check "panes" "Timeline"
tm send-keys -t e2e Space Space
check "step" "step 2/18"
tm send-keys -t e2e Down 1
check "override" "(aside)"
tm send-keys -t e2e u
check "undo" "undo:"
tm send-keys -t e2e U
check "redo" "redo:"
tm send-keys -t e2e '?'
check "help" "Keys"
tm send-keys -t e2e Escape
tm send-keys -t e2e d
check "export DOT" "wrote crown.placement.dot"
tm send-keys -t e2e t
check "export trace" "wrote crown.trace.json"
tm send-keys -t e2e s
check "save" "saved crown.episode.json"
tm resize-window -t e2e -x 80 -y 24
sleep 0.3
check "resize" "Graph"
tm send-keys -t e2e q
check "quit" "EXITED 0"
for f in crown.placement.dot crown.trace.json crown.episode.json; do
    if [ -s "$tmp/$f" ]; then pass; else fail "file $f" "missing after the session"; fi
done

start --resume crown.episode.json
check "resume" "resumed crown.episode.json: step 2 of 18"
tm send-keys -t e2e Space
check "step after resume" "step 3/18"
# a SIGTERM autosaves (there is an unsaved step) and restores the terminal
explorer_pid
if [ -n "$pid" ]; then kill -TERM "$pid"; fi
check "SIGTERM" "EXITED 143"
check "SIGTERM says where it saved" "autosaved to crown.episode.json.autosave"
if [ -s "$tmp/crown.episode.json.autosave" ]; then pass; else fail "autosave on SIGTERM" "no autosave file"; fi
# the shell's screen is back: no alternate screen, the cursor shown
if tm display -p -t e2e '#{alternate_on} #{cursor_flag}' | grep -q '^0 1$'; then
    pass
else
    cmd="tmux display"; rc=0; : > "$tmp/out"; : > "$tmp/err"
    fail "terminal restored" "alternate screen or hidden cursor left: $(tm display -p -t e2e '#{alternate_on} #{cursor_flag}')"
fi

# Ctrl-C: autosaves, says where once the terminal is restored, and exits 130
start "$g" --devices 2
check "start for Ctrl-C" "toy_crown on 2x K80"
tm send-keys -t e2e Space
check "step before Ctrl-C" "step 1/18"
tm send-keys -t e2e C-c
check "Ctrl-C exits 130" "EXITED 130"
check "Ctrl-C says where it autosaved" "interrupted by SIGINT (Ctrl-C); the episode was autosaved to crown.episode.json.autosave"

# SIGINT, SIGHUP, a fatal signal (SIGSEGV) and the signals whose default is
# to end the program (SIGUSR1, SIGALRM) also leave the terminal restored
for sig in INT HUP SEGV USR1 ALRM; do
    start "$g" --devices 2
    check "start for SIG$sig" "toy_crown on 2x K80"
    tm send-keys -t e2e Space
    check "step before SIG$sig" "step 1/18"
    explorer_pid
    if [ -n "$pid" ]; then kill -"$sig" "$pid"; fi
    # SIGUSR1 and SIGALRM go on to their default action: killed by the signal (128 + its number); SIGINT
    # and SIGHUP autosave and exit with that status too
    case $sig in USR1 | ALRM | INT | HUP) want="EXITED $((128 + $(kill -l "$sig")))" ;; *) want=EXITED ;; esac
    check "SIG$sig ends the explorer" "$want"
    if tm display -p -t e2e '#{alternate_on} #{cursor_flag}' | grep -q '^0 1$'; then
        pass
    else
        cmd="tmux display after SIG$sig"; rc=0; : > "$tmp/out"; : > "$tmp/err"
        fail "terminal restored after SIG$sig" "alternate screen or hidden cursor left"
    fi
done
if [ -s "$tmp/crown.episode.json.autosave" ]; then pass; else fail "autosave on SIGINT/SIGHUP" "no autosave file"; fi

echo "tmux: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
