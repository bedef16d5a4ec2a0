#!/usr/bin/env bash
# The guided tour (placeto demo), headless: every stage at 80x24 and
# 120x40 compared byte for byte with tests/data/golden/tour_N_WxH.txt
# (`PLACETO_UPDATE_GOLDEN=1 bash tests/cli/cli_tour.sh` rewrites them);
# per stage, the caption's claims checked against the screen (the feature
# rows' relations, the sets' sizes, moved or kept, the History rows named,
# the table's rows and numbers, the agents present, one zero-shot number
# across stages) and the stage's subject still on the screen beside the
# caption (the /GPU:0 lane and the axis, the table's header and best rows,
# the History row); the tour's keys: a jump by digits and --stage, back
# restoring a stage, Esc closing dialogs only, q then D, a tour-aware ?,
# r pausing the timer, the busy sign of a slow stage, --loop's usage; the
# race (stage 12): the lanes its caption names and who it says is ahead
# against the chart's legend, before and after its end, and the race
# closed when the stage is left, as it was when it is back.
# Prints "tour: N passed, M failed" (tests/run.sh reads a word of letters).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
g=graphs/toy/crown.json
policy=none
# shellcheck source=tests/cli/lib_explore.sh
. tests/cli/lib_explore.sh

tour_limit=120
case "$wrap" in *valgrind*) tour_limit=1800 ;; esac
n_stages=16
race_stage=12

# tour NAME SIZE ARGS...: a headless tour in $tmp, the last screen in $tmp/NAME
tour() {
    local name=$1 size=$2
    shift 2
    cmd="placeto demo --headless --size $size $*"
    # shellcheck disable=SC2086
    (cd "$tmp" && timeout "$tour_limit" $wrap "$absprog" demo --headless --size "$size" "$@") \
        > "$tmp/$name" 2> "$tmp/err" < /dev/null
    rc=$?
    cp "$tmp/$name" "$tmp/out"
}

# caption FILE: the caption box's text (its rows between the borders), joined
caption() {
    awk '/^\+- Tour [0-9]+\/[0-9]+/ {on = 1; next} on && /^\+-/ {on = 0} on {sub(/^\| /, ""); sub(/ *\|$/, ""); printf "%s ", $0}' "$1"
}

# check NAME PYTHON-CONDITION FILE: FILE's screen (s) and caption (c) meet it
check() {
    local name=$1 code=$2 file=$3
    if "$py" - "$file" "$(caption "$file")" > "$tmp/pyout" 2>&1 <<EOF
import re, sys
s = open(sys.argv[1]).read()
c = re.sub(r" +", " ", sys.argv[2])
$code
EOF
    then pass; else fail "$name" "$(head -c 600 "$tmp/pyout")"; fi
}

# ---- every stage at both sizes: goldens, and the subject beside the caption ----
for size in 80x24 120x40; do
    for ((k = 1; k <= n_stages; k++)); do
        keys=()
        [ "$k" -eq "$race_stage" ] && keys=(--keys wait) # the race to its end (headless it runs there anyway)
        tour "s${k}_$size" "$size" --stage "$k" ${keys[@]+"${keys[@]}"}
        expect_rc "stage $k at $size" 0 || continue
        golden_file "tour_${k}_$size" "tests/data/golden/tour_${k}_$size.txt" "$tmp/s${k}_$size" "the screen"
        has "stage $k at $size: its caption" "Tour $k/$n_stages:"
    done
done

for size in 80x24 120x40; do
    f=$tmp/s2_$size
    check "stage 2 at $size: the /GPU:0 lane, its critical marks and the axis are not under the caption" '
rows = s.splitlines()
cap = [i for i, r in enumerate(rows) if "- Tour 2/" in r][0]
lane = [i for i, r in enumerate(rows) if r.startswith("|/GPU:0 ")]
axis = [i for i, r in enumerate(rows) if re.match(r"^\|\s+0\s+\S", r)]
assert lane and axis and lane[0] < cap and axis[0] < cap, (lane, axis, cap)
assert "^" in rows[lane[0] + 1], rows[lane[0] + 1]
assert "the critical path" in c' "$f"
    for k in 9 10 11; do
        check "stage $k at $size: the table's header and its best rows beside the caption" '
rows = s.splitlines()
hdr = [i for i, r in enumerate(rows) if re.search(r"\| method +runtime", r)]
assert hdr, "no header"
body = [r for r in rows[hdr[0] + 1:] if re.search(r"\| \S.* ms +[0-9.]+x", r)]
assert len(body) >= 3, body
cap = [i for i, r in enumerate(rows) if "- Tour " in r][0]
assert cap < hdr[0], "the caption is not above the table"' "$tmp/s${k}_$size"
    done
    check "stage 8 at $size: the History rows the caption names are on the screen" '
m = re.search(r"History row (\d+), shown as yours\), and the policy took the next step \(row (\d+): it (kept|moved) (\S+)\)", c)
assert m, c
you, pol, verb, grp = m.groups()
assert re.search(r"\|\s*%s +[0-9.]+ ms you moved" % you, s), "row %s" % you
assert re.search(r"\|\s*%s +[0-9.]+ ms policy %s" % (pol, verb), s), "row %s" % pol' "$tmp/s8_$size"
    for k in 13 14 15; do
        check "stage $k at $size: the Policy pane and its why beside the caption" '
assert re.search(r"Policy greedy", s) and "why: " in s, "no Policy pane"' "$tmp/s${k}_$size"
    done
    check "stage 3 at $size: the feature table's header and rows" '
assert re.search(r"group +is +cost bytes", s)
assert re.search(r"\| \S+ +current ", s)' "$tmp/s3_$size"
done

# every stage's subject (a key text of it) on rows the caption box does not take
subject=(
    [1]='Graph \d+ groups|\|data +d0\|'
    [2]='^\|/GPU:0 '
    [3]='group +is +cost bytes'
    [4]='Graph \d+ groups'
    [5]='@'
    [6]='step \d+/\d+: \S+|% <'
    [7]='last: policy|step \d+/\d+'
    [8]='History \d+ steps'
    [9]='\| method +runtime'
    [10]='\| method +runtime'
    [11]='\| method +runtime'
    [12]='^\+- Race on \S+, 2 devices'
    [13]='why: attention'
    [14]='why: attention'
    [15]='why: its learned cluster'
    [16]='Graph \d+ groups'
)
for size in 80x24 120x40; do
    for ((k = 1; k <= n_stages; k++)); do
        SUBJECT=${subject[$k]} check "stage $k at $size: its subject beside the caption" '
import os
rows = s.splitlines()
top = [i for i, r in enumerate(rows) if re.search(r"[+-]- Tour \d+/\d+", r)][0]
bottom = [i for i, r in enumerate(rows) if i > top and re.match(r"^\+- (space|i:|playing|go to)", r)][0]
pat = os.environ["SUBJECT"]
outside = [i for i, r in enumerate(rows) if re.search(pat, r) and not top <= i <= bottom]
if pat.startswith("group"): # the feature table: inside the caption, its subject
    outside = [i for i, r in enumerate(rows) if re.search(pat, r)]
assert outside, "no %r outside the caption (rows %d-%d)" % (pat, top, bottom)' "$tmp/s${k}_$size"
    done
done

# ---- the captions' claims, stage by stage (120x40) ----
S=$tmp/s1_120x40
check "stage 1: the group and op counts are the graph's" '
n = re.search(r"Graph (\d+) groups", s).group(1)
assert "here %s groups remain" % n in c, c
assert "(387 ops)" in c and "100-200" not in c' "$S"
check "stage 2: the runtime in the caption is the timeline's" '
rt = re.search(r"Timeline runtime ([0-9.]+ ms)", s).group(1)
assert "placement, %s, is when" % rt in c, (rt, c)' "$tmp/s2_120x40"
check "stage 3: every feature row labelled by its relation (the data node has children, no parents)" '
rows = re.findall(r"\| (\S+) +(current|parent|child|other) ", s)
roles = dict(rows)
assert roles.get("data") == "current", rows
assert "parent" not in roles.values(), rows
assert roles.get("bn1.weight") == "child", rows
assert "it has no parents" in c' "$tmp/s3_120x40"
check "stage 4: the message-passing rounds" 'assert "8 rounds" in c' "$tmp/s4_120x40"
check "stage 5: the sets the caption names are the legend's, and they cover the graph" '
an, de, pa = map(int, re.search(r"colours: @ the current node +(\d+) ancestors +(\d+) descendants +(\d+) parallel", c).groups())
n = int(re.search(r"Graph (\d+) groups", s).group(1))
assert an + de + pa == n - 1, (an, de, pa, n)
if pa == 0:
    assert "no parallel group" in c and "has %d ancestors and %d descendants" % (an, de) in c, c
else:
    assert "%d ancestors, %d descendants and %d parallel groups" % (an, de, pa) in c, c' "$tmp/s5_120x40"
check "stage 6: the probability named is the Policy pane's most likely device" '
d, p = re.search(r"it gives d(\d) ([0-9.]+)%", c).groups()
assert re.search(r"\|\|?\*?\s?%s #*[ .]*\s+%s%% <" % (d, p), s) or re.search(r"%s%% <" % p, s), (d, p)' "$tmp/s6_120x40"
check "stage 7: moved or kept as the History says, and the reward in full" '
m = re.search(r"The policy (kept|moved|tried) (\S+?)[ ;]", c)
assert m, c
verb, grp = m.groups()
msg = s.splitlines()[-1]
assert ("policy %s %s" % (verb, grp)) in msg, (verb, grp, msg)
assert re.search(r"reward [+-][0-9]+\.[0-9]{3} ms", c), c
assert "The group moved" not in c' "$tmp/s7_120x40"
check "stage 9: the winner and the numbers in the caption are the table's" '
rows = re.findall(r"\| (\S+) +([0-9.]+ ms) +[0-9.]+x", s)
best, best_t = rows[0]
assert "Here %s wins with %s" % (best, best_t) in c, (rows[0], c)
heft = dict(rows)["heft"]
assert "(HEFT %s)" % heft in c, c
now = re.search(r"this episode: ([0-9.]+ ms) now, best ([0-9.]+ ms)", s).groups()
assert "is at %s, its best %s" % now in c, (now, c)
assert "Enter starts an episode" not in c' "$tmp/s9_120x40"
check "stage 10: one zero-shot number, the episode's best, and a relative policy name" '
zs = re.search(r"zero-shot Placeto: ([0-9.]+ ms)", c).group(1)
best = re.search(r"this episode: [0-9.]+ ms now, best ([0-9.]+ ms)", s).group(1)
assert zs == best, (zs, best)
assert "/" not in re.sub(r"[0-9.]+ ms|/GPU|one-hot", "", c.split("zero-shot")[0]), c' "$tmp/s10_120x40"
check "stage 11: every learned agent in the table, the fastest row named, the zero-shot row agrees with stage 10" '
for kind in ("placeto", "rnn", "gdp", "hsdag"):
    assert re.search(r"\| %s \S+ (zero-shot|refine)" % kind, s), kind
assert "(Placeto, rnn, gdp, hsdag)" in c, c
rows = re.findall(r"\| ([a-z][\w.-]*(?: [\w().-]+)*?) +([0-9.]+ ms) +[0-9.]+x", s)
assert "The fastest row is %s, %s." % rows[0] in c, (rows[0], c)
assert "placeto family_nmt zero-shot" in dict(rows)' "$tmp/s11_120x40"
zs10=$(caption "$tmp/s10_120x40" | sed -E 's/.*zero-shot Placeto: ([0-9.]+ ms).*/\1/')
if grep -qE "placeto family_nmt zero-shot +$zs10" "$tmp/s11_120x40" || caption "$tmp/s11_120x40" | grep -qF "greedy episode ($zs10)"; then
    pass
else
    fail "stage 10 and 11: one zero-shot number" "stage 10 says $zs10; stage 11 neither shows it nor names the difference"
fi
for k in 13 14 15; do
    check "stage $k: the agent and the graph the caption names are the status line's" '
kind = {"13": "gdp", "14": "rnn", "15": "hsdag"}[sys.argv[1].split("/s")[-1].split("_")[0]]
status = " ".join(s.splitlines()[:2])
assert "%s policy" % kind in status, status
graph = re.search(r"placeto tour +(\S+) on", status).group(1)
assert "Here on %s (" % graph in c, (graph, c)
steps = re.search(r"step (\d+)/", status).group(1)
assert "%s greedy steps" % steps in c, (steps, c)' "$tmp/s${k}_120x40"
done
check "stage 15: the cluster count is the graph pane's" '
n = re.search(r"Graph \d+ groups, (\d+) learned clusters", s).group(1)
assert "It made %s clusters" % n in c, c' "$tmp/s15_120x40"

# ---- the race (stage 12): its caption against its chart, leaving it, coming back ----
# py helpers: us(TEXT) the microseconds of "24.204 ms"; lanes(s) the legend's
# (name, kind, value, line) rows, kind "final" or "best"
race_py='
T = r"[0-9.]+ (?:ms|us|s)"
def us(t):
    v, u = t.split()
    return float(v) * {"s": 1e6, "ms": 1e3, "us": 1.0}[u]
def lanes(s):
    return re.findall(r"^\|  \S (\S.*?) {2,}(final|best|waiting|failed)(?: (" + T + r"))?(.*)$", s, re.M)
'
for size in 80x24 120x40; do
    check "stage $race_stage at $size: the chart (axes, legend) below the caption, the race finished" "$race_py"'
rows = s.splitlines()
cap = [i for i, r in enumerate(rows) if re.match(r"^\+- (space|i:|playing)", r)][0]
box = [i for i, r in enumerate(rows) if r.startswith("+- Race on ")]
assert box and box[0] == cap + 1, (box, cap)
assert "(finished)" in rows[box[0]] or "(finis" in rows[box[0]], rows[box[0]]
axis = [i for i, r in enumerate(rows) if re.match(r"^\| +\+-{10}", r)]
legend = [i for i, r in enumerate(rows) if re.match(r"^\|  \S \S.* final ", r)]
assert axis and axis[0] > box[0] and len(legend) == 8 and legend[0] > axis[0], (axis, legend)
assert [i for i, r in enumerate(rows) if re.match(r"^\| +[0-9.]+ ms \|", r)], "no y axis label"
bottom = [i for i, r in enumerate(rows) if i > box[0] and r.startswith("+-")][0]
assert bottom > legend[-1] and bottom >= len(rows) - 3, (bottom, len(rows))' "$tmp/s${race_stage}_$size"
done
R=$tmp/s${race_stage}_120x40
check "stage $race_stage: the caption names every lane of the legend, in its order" "$race_py"'
names = [l[0] for l in lanes(s)]
assert len(names) == 8, names
m = re.search(r"Lanes: (.*)\.\s*$", c)
assert m, c
assert re.split(r", | and ", m.group(1)) == names, (m.group(1), names)
assert "every learned placer whose bundled policy fits this graph (3)" in c, c' "$R"
check "stage $race_stage: who is ahead, by how much, is the legend's lowest final number" "$race_py"'
fin = {n: us(v) for n, k, v, rest in lanes(s) if k == "final" and "out of memory" not in rest}
assert len(fin) == 8, fin
best = min(fin.values())
lead = [n for n, k, v, rest in lanes(s) if n in fin and fin[n] == best]
m = re.search(r"Finished: (.+?) (?:is|are) ahead(?: together)? with (" + T + r"), (" + T + r") \(([0-9.]+)%\) less than the next, (.+?), at (" + T + r")\.", c)
assert m, c
who, t, d, pct, nxt, nt = m.groups()
assert re.split(r", | and ", who) == lead and us(t) == best, (who, t, lead, best)
second = min(v for v in fin.values() if v > best)
assert fin[nxt] == second and us(nt) == second, (nxt, nt, second)
assert abs(us(d) - (second - best)) < 1.5 and abs(float(pct) - 100 * (second - best) / second) < 0.06, (d, pct)' "$R"
check "stage $race_stage: each learned placer against its untrained control, the legend's numbers" "$race_py"'
fin = {n: us(v) for n, k, v, rest in lanes(s) if k == "final"}
pairs = re.findall(r"(\S+ \(\S+\)) (" + T + r"), its untrained control (" + T + r") \((the control is ahead, )?([0-9.]+)% less\)", c)
controls = [n for n in fin if "-untrained (" in n]
assert len(pairs) == len(controls) == 3, (pairs, controls)
for name, t, ct, ctl_ahead, pct in pairs:
    ctl = name.replace(" (", "-untrained (", 1)
    assert fin[name] == us(t) and fin[ctl] == us(ct), (name, t, ct)
    lo, hi = sorted((us(t), us(ct)))
    assert bool(ctl_ahead) == (us(ct) < us(t)), (name, ctl_ahead)
    assert abs(float(pct) - 100 * (hi - lo) / hi) < 0.06, (name, pct)
assert "Trained against untrained: " in c' "$R"
check "stage $race_stage: anneal's and ils's final numbers are stage 11's table rows" "$race_py"'
fin = {n: v for n, k, v, rest in lanes(s)}
table = dict(re.findall(r"\| (\S+) +([0-9.]+ ms) +[0-9.]+x", open(sys.argv[1].replace("s12_", "s11_")).read()))
assert fin["anneal"] == table["anneal"] and fin["ils"] == table["ils"], (fin, table)
assert "2000 placements each (the baselines table" in c and "budget 2000 placements" in s, c' "$R"
tour race_run 120x40 --keys "1 2 tick tick"
check "the race before its end: the caption says it runs, and who leads so far, from the legend" "$race_py"'
assert "(finished)" not in s and "Tour 12/" in s
m = re.search(r"Running: the furthest lane has made (\d+) of about (\d+) simulations; so far (.+?) is ahead with (" + T + r")", c)
assert m, c
made, budget, who, t = m.groups()
ls = lanes(s)
vals = {n: us(v) for n, k, v, rest in ls if v}
assert min(vals.values()) == us(t) and vals[who] == us(t), (who, t, vals)
runs = [int(x) for x in re.findall(r" after (\d+) simulations", s)]
assert runs and max(runs) == int(made) and int(made) < 2000, (runs, made)
assert re.search(r"budget %s placements" % budget, s)' "$tmp/race_run"
# leaving mid-race (a full race is run only where its end is checked: valgrind runs this too)
tour race_fwd 120x40 --keys "1 2 tick space"
has "forward from the race: the next stage" "Tour 13/$n_stages:"
tour race_back 120x40 --keys "1 2 tick left"
has "back from the race: stage 11's table" "Tour 11/$n_stages:" "| method "
tour race_jump 120x40 --keys "1 2 tick 5"
has "a jump from the race" "Tour 5/$n_stages:"
tour race_q 120x40 --keys "1 2 tick q"
has "q from the race leaves the tour" "left the tour at stage 12"
for f in race_fwd race_back race_jump race_q; do
    if grep -q "Race on " "$tmp/$f"; then fail "$f: the race is closed after leaving its stage" "the race is still shown"; else pass; fi
done
tour race_held 120x40 --keys "1 2 tick tick left wait tick right"
if diff <(head -n 38 "$tmp/race_held") <(head -n 38 "$tmp/race_run") > "$tmp/diff"; then pass; else fail "a race left mid-way does not run on, and comes back where it was" "$(head -c 400 "$tmp/diff")"; fi
tour race_again 120x40 --keys "1 2 tick tick space left tick tick"
if diff <(head -n 38 "$tmp/race_again") <(head -n 38 "$tmp/race_run") > "$tmp/diff"; then pass; else fail "back to the race from another graph: the same race again" "$(head -c 400 "$tmp/diff")"; fi
tour race_esc 120x40 --keys "1 2 tick tick esc"
has "Esc closes the race, the tour stays" "Tour 12/$n_stages:" "The race is closed"
if grep -q "Race on " "$tmp/race_esc"; then fail "Esc closes the race" "the race is still shown"; else pass; fi
tour race_esc_r 120x40 --keys "1 2 tick tick esc tick R"
if diff <(head -n 38 "$tmp/race_esc_r") <(head -n 38 "$tmp/race_run") > "$tmp/diff"; then pass; else fail "R shows the closed race again, as it was" "$(head -c 400 "$tmp/diff")"; fi
tour race_auto 80x24 --auto 0.5 --keys "1 2 wait"
has "--auto waits for the race to end (longer than its 0.5 s), then its delay" "Tour 12/$n_stages:" "| Finished: "

# the own graph: counts of its own, no backward pass claimed, a relative policy path
tour own 120x40 "$absg" --stage 1
check "own graph: stage 1 speaks of its groups, no backward pass" '
assert "here 18 groups remain" in c and "backward" not in c and "100-200" not in c, c' "$tmp/own"
run train "$g" --devices 2 --episodes 2 --seed 1 -o "$tmp/own_policy.json"
tour own10 120x40 "$absg" --policy "$tmp/own_policy.json" --stage 10
check "own graph: stage 10 names the policy file, not its path" '
assert "(own_policy)" in c and "/" not in c.split("placed this graph")[0].replace("one-hot", ""), c' "$tmp/own10"
tour own3 120x40 "$absg" --stage 3
check "own graph (crown): the feature rows' relations are the graph's edges" '
import json
rows = re.findall(r"\| (\S+) +(current|parent|child|other) ", s)
cur = [n for n, r in rows if r == "current"][0]
edges = json.load(open("'"$(pwd)"'/graphs/toy/crown.json"))["edges"]
pairs = set()
for e in edges:
    pairs.add((e["src"], e["dst"]))
for n, r in rows:
    if r == "parent": assert (n, cur) in pairs, (n, cur)
    if r == "child": assert (cur, n) in pairs, (n, cur)' "$tmp/own3"

# the own graph with another agent's policy: Placeto's stages say they are Placeto's
cmd="placeto demo graphs/toy/crown.json --policy (an rnn policy) --stage 4"
run train "$g" --agent rnn --devices 2 --hidden 8 --episodes 3 --seed 1 -o "$tmp/rnn.json"
tour rnn4 100x30 "$absg" --policy "$tmp/rnn.json" --stage 4
has "an rnn policy: the message-passing stage says it is Placeto's" "This is Placeto's network; the policy in use" \
    "here is the rnn placer's"
tour rnn14 100x30 "$absg" --policy "$tmp/rnn.json" --stage 14
check "an rnn policy on the own graph: its stage shows it, counts from the screen" '
status = " ".join(s.splitlines()[:2])
assert "rnn policy" in status and "Here on toy_crown (18 groups" in c, c' "$tmp/rnn14"

# ---- the keys ----
tour k12 80x24 --keys "1 2"
has "1 then 2 jumps to stage 12" "Tour 12/$n_stages:"
tour k1 80x24 --keys "5 1 enter"
has "1 then Enter: stage 1" "Tour 1/$n_stages:"
tour k7 120x40 --keys "7"
if cmp -s "$tmp/k7" "$tmp/s7_120x40"; then pass; else fail "a jump and --stage give the same screen" "$(diff "$tmp/k7" "$tmp/s7_120x40" | head -c 400)"; fi
tour back 120x40 --stage 9 --keys "left"
if diff <(head -n 38 "$tmp/back") <(head -n 38 "$tmp/s8_120x40") > "$tmp/diff"; then pass; else fail "back restores stage 8 as it was" "$(head -c 400 "$tmp/diff")"; fi
tour back10 120x40 --stage 11 --keys "left left"
if diff <(head -n 38 "$tmp/back10") <(head -n 38 "$tmp/s9_120x40") > "$tmp/diff"; then pass; else fail "back across the held-out graph restores stage 9" "$(head -c 400 "$tmp/diff")"; fi
tour fwd 120x40 --keys "space space space space space space space space left right"
if diff <(head -n 38 "$tmp/fwd") <(head -n 38 "$tmp/s9_120x40") > "$tmp/diff"; then pass; else fail "back and forth again: stage 9 as it was" "$(head -c 400 "$tmp/diff")"; fi
tour esc 80x24 --stage 9 --keys "esc"
has "Esc closes the table, the tour stays" "Tour 9/$n_stages:"
if grep -q "| method " "$tmp/esc"; then fail "Esc closes the table" "the table is still there"; else pass; fi
tour esc1 80x24 --keys "esc"
has "Esc without a dialog keeps the tour" "Tour 1/$n_stages:" "Esc closes dialogs; q leaves the tour"
tour qr 80x24 --stage 6 --keys "q D"
has "q then D re-enters the tour at the stage left" "Tour 6/$n_stages:" "back in the tour at stage 6"
tour qr9 100x30 --stage 9 --keys "q e y D"
has "D after a new episode: the stage on the episode as it is" "Tour 9/$n_stages:" "episode 2 step 0/100"
tour qr9b 100x30 --stage 9 --keys "q e y D left"
has "and back from there: the stage's steps taken on that episode" "Tour 8/$n_stages:" "episode 2 step 36/100"
tour q 80x24 --stage 6 --keys "q"
has "q leaves the tour" "left the tour at stage 6: D goes back to it"
if grep -q "Tour 6/" "$tmp/q"; then fail "q leaves the tour" "the caption is still drawn"; else pass; fi
tour help 80x24 --stage 2 --keys "?"
has "? lists the tour's keys first" "Tour (these keys come first while touring)" "jump to a stage"
if grep -q "Tour 2/$n_stages:" "$tmp/help"; then fail "? hides the caption" "the caption is drawn over the help"; else pass; fi
tour help2 80x24 --stage 2 --keys "? x"
has "a key closes the help, the tour stays at its stage" "Tour 2/$n_stages:"
tour pause 80x24 --auto 5 --keys "r"
has "r pauses the timer" "the tour is paused: r plays it on"
tour play 80x24 --keys "r"
has "r plays the tour without --auto" "the tour plays on its own, a stage every 7 s: r pauses it" "playing (r: pause)"
tour busy 100x30 --stage 8 --keys "space" --frames frames.txt
has "the slow stage is computed" "Tour 9/$n_stages: Compared with the baselines"
if grep -q "frame 1: space (computing)" "$tmp/frames.txt" && grep -q "Computing this stage" "$tmp/frames.txt"; then
    pass
else
    fail "a busy sign before the slow stage" "no busy frame in frames.txt"
fi
tour expand 80x24 --stage 14 --keys "i"
has "i shows the whole caption" "i: back" "greedy steps"
tour loop 80x24 --loop
expect_rc "--loop without --auto" 2 && pass
tour badstage 80x24 --stage $((n_stages + 1))
expect_rc "--stage out of range" 2 && pass
tour auto 80x24 --auto 0.5 --loop --stage $n_stages --keys "tick"
has "--auto --loop is accepted" "Tour $n_stages/$n_stages:"
tour loop2 80x24 --auto 30 --loop --stage $n_stages --keys "space"
has "--loop: after the last stage, the first (back on the tour's first graph)" "Tour 1/$n_stages:" "resnet18_b32"
tour end 80x24 --auto 30 --stage $n_stages --keys "space"
has "without --loop the tour ends after the last stage" "the tour is over"

echo "tour: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
