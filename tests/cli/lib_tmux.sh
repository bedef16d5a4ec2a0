# Shared by the scripts that run the real explorer in a real terminal (tmux,
# on a private server): cli_tmux.sh, cli_race.sh and cli_record.sh. Sourced from the
# repository root after lib_cli.sh; tmux_ok is 0 when tmux is missing (the
# caller then skips its terminal checks).
tmux_ok=1
command -v tmux > /dev/null || tmux_ok=0
sock="placeto-e2e-$$"
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
e2e_pids=''
tm() { tmux -L "$sock" "$@"; }
# the server goes, and any explorer started here still alive (one that
# answers no signal) is killed
cleanup() {
    local p
    for p in $e2e_pids; do alive "$p" && kill -9 "$p" 2> /dev/null; done
    [ "$tmux_ok" -eq 1 ] && tm kill-server 2> /dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# screen: the visible pane as text
screen() { tm capture-pane -p -t e2e; }
# wait_for TEXT [SECONDS]: until the screen shows TEXT
wait_for() {
    local i
    for ((i = 0; i < ${2:-10} * 10; i++)); do
        if screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
    done
    return 1
}
# check NAME TEXT [SECONDS]: the screen shows TEXT soon
check() {
    cmd="tmux screen of: $1"
    rc=0
    if wait_for "$2" "${3:-10}"; then pass; else screen > "$tmp/out"; : > "$tmp/err"; fail "$1" "the screen never showed '$2'"; fi
}
# alive PID: the process is there and not a zombie
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat" 2> /dev/null; }
# a session that lives as long as the test, so that killing the explorer's
# session never stops the server while the next one is being created
[ "$tmux_ok" -eq 1 ] && tm new-session -d -s keep "sleep 600"
start_prog() { # ARGS...: placeto ARGS in a fresh 100x30 session, in $tmp
    tm kill-session -t e2e 2> /dev/null
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    tm new-session -d -s e2e -x 100 -y 30 -c "$tmp" \
        "env TERM=xterm-256color LANG=C.UTF-8 $wrap $absprog $* ; echo EXITED \$?; sleep 30"
}
start() { start_prog explore "$@"; } # ARGS...: the explorer in that session
# explorer_pid: pid is the explorer of the session (its pane's child), remembered for cleanup
explorer_pid() {
    pid=$(pgrep -P "$(tm display -p -t e2e '#{pane_pid}')" | head -n 1)
    e2e_pids="$e2e_pids $pid"
}
