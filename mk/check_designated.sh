#!/usr/bin/env bash
# Part of make check-layers (check_layers.sh runs it): the descriptors are
# initialised with designators, never by position. A descriptor is
#   const AgentKind NAME = {...}        every field named (.name = ...), and
#                                       its sub-tables .file, .place and
#                                       .train each field named too;
#   const AgentActorOps / PolicyFileKind / CliCmd NAME = {...}
#                                       every field named;
#   const Binding NAME[] = {...}        (the explorer's key tables) every
#                                       row's fields named (.doc, .fn, ...);
#   const TourStage NAME[] = {...}      (the tour's stages) every row's
#                                       fields named, and those of its .pub;
#   const AgentOpt / CliOpt NAME[] = {...}  (the option tables) every row's
#                                       fields named (a row may be a macro,
#                                       CLI_PROBLEM_OPTS, and {0} ends it).
# Values inside a named field (a string array, a {keys, help, section}
# row) stay positional. Every
# agent agents.c lists must be defined as `const AgentKind agent_X = {` so
# that this check sees it. Prints each descriptor with a positional field
# as FILE:LINE (its first) and exits 1 when there is one.
cd "$(dirname "$0")/.." || exit 1
dirs=()
for d in core layouts tui tests/agent; do [ -d "$d" ] && dirs+=("$d"); done
mapfile -t files < <(find "${dirs[@]}" -name '*.c' | sort)
out=$(awk -f mk/check_designated.awk "${files[@]}" 2>&1)
rc=$?
# every registered agent is one the check saw (an AgentKind written any
# other way would escape it)
for a in $(sed -n 's/^extern const AgentKind \(.*\);/\1/p' core/agents/agents.c | tr ',' ' '); do
    grep -qE "^const AgentKind $a = \{" core/agents/*/*.c ||
        { out+="${out:+$'\n'}core/agents/agents.c: $a is defined in no core/agents/*/*.c as 'const AgentKind $a = {'"; rc=1; }
done
[ -n "$out" ] && echo "$out"
[ $rc -eq 0 ] || { echo "check-layers: a descriptor names each field it sets (.field = ...; see above, docs/architecture.md)"; exit 1; }
