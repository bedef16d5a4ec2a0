#!/usr/bin/env bash
# make check-layers: the dependency rule of the source tree. Layers, lowest
# first:
#   core (util, jdoc) <- core/model <- core/sim <- core/place <- core/agent
#   <- layouts <- tui, and core/mpi (the MPI backend of core/agent's dist.h)
#   on core/agent
# A file may include ("x.h") headers of its own folder and of the layers
# below it, never one above it or beside it; core/ and layouts/ never include
# curses. tests/ and bench/ may include anything. Prints every offending
# include as FILE:LINE and exits 1 when there is one.
cd "$(dirname "$0")/.." || exit 1
layers=(core core/model core/sim core/place core/agent core/mpi layouts tui)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
# where each header lives
declare -A home
for d in "${layers[@]}"; do
  for h in "$d"/*.h; do [ -f "$h" ] && home[$(basename "$h")]=$d; done
done
bad=0
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
      hr=$(rank "$hd")
      if [ "$hd" != "$d" ] && [ "$hr" -gt "$r" ]; then
        echo "$f:$line: includes $hd/$h, a layer above $d"; bad=1
      fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):/\1:/')
  done
done
# curses only in tui/
if grep -rnE '#[[:space:]]*include[[:space:]]*[<"](n?curses|ncursesw/|panel|term)\.?h?' core layouts 2>/dev/null; then
  echo "core/ and layouts/ must not include curses (only tui/ may)"; bad=1
fi
[ $bad -eq 0 ] || { echo "check-layers: the dependency rule is broken (see above)"; exit 1; }
