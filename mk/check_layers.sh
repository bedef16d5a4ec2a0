#!/usr/bin/env bash
# make check-layers: the dependency rule of the source tree. Layers, lowest
# first:
#   core (util, jdoc, data) <- core/model <- core/sim <- core/place
#   <- core/agent (the agent contract and the shared machinery)
#   <- core/agents/NAME (one folder per learned placer) <- core/agents (the
#   registry) <- layouts <- tui/explorer <- tui/cli, and core/mpi (the MPI
#   backend of core/agent's dist.h) on core/agent
# A file may include ("x.h") headers of its own folder and of the layers
# below it, never one above it or beside it. Besides:
#   - no agent includes a sibling's header, and the registry includes none
#     (agents.c names each AgentKind by its extern declaration alone);
#   - tui/ includes no agent's header but the explorer's Placeto's (it steps
#     Placeto natively); the commands (tui/cli) reach every agent through
#     agent.h alone;
#   - core/ and layouts/ never include curses.
# tests/ and bench/ may include anything. Prints every offending include as
# FILE:LINE and exits 1 when there is one. Then runs check_designated.sh:
# no descriptor (an AgentKind and its sub-tables, an actor table, a policy
# file kind, a command's CliCmd, a key table's rows, the tour's stages) is
# initialised by position.
cd "$(dirname "$0")/.." || exit 1
agents=()
for d in core/agents/*/; do [ -d "$d" ] && agents+=("${d%/}"); done
layers=(core core/model core/sim core/place core/agent "${agents[@]}" core/agents core/mpi layouts tui/explorer tui/cli)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
is_agent() { case $1 in core/agents/*) return 0 ;; *) return 1 ;; esac; }
# where each header lives (a name used twice is an error: includes name headers alone)
declare -A home
bad=0
for d in "${layers[@]}"; do
  for h in "$d"/*.h; do
    [ -f "$h" ] || continue
    b=$(basename "$h")
    if [ -n "${home[$b]:-}" ]; then
      echo "$h: a header of this name is also in ${home[$b]}; header names are unique in the tree"; bad=1
    fi
    home[$b]=$d
  done
done
for d in "${layers[@]}"; do
  r=$(rank "$d")
  for f in "$d"/*.c "$d"/*.h; do
    [ -f "$f" ] || continue
    while IFS=: read -r line inc; do
      h=$(echo "$inc" | sed -E 's/.*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/')
      hd=${home[$(basename "$h")]:-}
      if [ -z "$hd" ]; then
        echo "$f:$line: includes \"$h\", which is no header of the tree"; bad=1; continue
      fi
      if [ "$h" != "$(basename "$h")" ]; then
        echo "$f:$line: includes \"$h\" by a path; name the header alone (the build's include paths find it)"; bad=1; continue
      fi
      [ "$hd" = "$d" ] && continue
      if is_agent "$hd" && { is_agent "$d" || [ "$d" = core/agents ]; }; then
        echo "$f:$line: includes $hd/$h: an agent includes no sibling's header (shared code goes to core/agent)"; bad=1; continue
      fi
      if is_agent "$hd" && { [ "$hd" != core/agents/placeto ] || [ "$d" = tui/cli ]; } && [[ $d == tui/* ]]; then
        echo "$f:$line: includes $hd/$h: tui/ reaches the agents through the registry (agent.h)"; bad=1; continue
      fi
      hr=$(rank "$hd")
      if [ "$hr" -gt "$r" ]; then
        echo "$f:$line: includes $hd/$h, a layer above $d"; bad=1
      fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):/\1:/')
  done
done
# curses only in tui/
if grep -rnE '#[[:space:]]*include[[:space:]]*[<"](n?curses|ncursesw/|panel|term)\.?h?' core layouts 2>/dev/null; then
  echo "core/ and layouts/ must not include curses (only tui/ may)"; bad=1
fi
[ $bad -eq 0 ] || echo "check-layers: the dependency rule is broken (see above)"
# and the descriptors (AgentKind and its sub-tables, the commands' CliCmd,
# the key tables) name their fields: check_designated.sh
bash mk/check_designated.sh || bad=1
[ $bad -eq 0 ] || exit 1
