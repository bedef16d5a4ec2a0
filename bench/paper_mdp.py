#!/usr/bin/python3
"""The paper's MDP made to learn (docs/results.md, "The paper's MDP at the
authors' settings"): Placeto trained with `--preset paper` (the authors'
code: a fixed random start per worker, every move kept, rewards in
seconds, the min-runtime return, 4 workers summed into one Adam step, the
learning rate 1e-3 -> 1e-4) on the six Table 1 cases, each beside its
untrained control (the same weights before training, placed the same way)
and ILS given the same placements, with learning curves: the policy's
greedy placement and the best runtime training found, against placements
simulated.

Variants (--variant, repeatable):
  paper        the preset as it is: beta 1, constant (the authors' default)
  paper-sched  the preset with an entropy schedule of the authors' code:
               beta 1 falling linearly to 0 over the first half of the
               updates (--entropy-schedule linear --entropy-steps U/2)
  paper-low    the preset with beta 0.01, constant

A case family:F:D trains on family F's graphs 00-23 and places the
held-out 24-27 zero-shot (means over the four; ILS given the placements
the policy's own placement simulated there).

Each run trains in --chunks pieces (train --resume continues bit-exactly)
and places with the policy after each: the learning curve's points.

    /usr/bin/python3 bench/paper_mdp.py [--prog ./placeto] [--budget N] [--seeds 1,2,3]
        [--cases inception_v3:2,...] [--variant V]... [--chunks K] [--jobs J] [--tag NAME]

Writes bench/results/paper_mdp[_TAG].{json,md}. The plain kernels
(PLACETO_KERNELS=plain), so the numbers are the same on another CPU.
"""
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

import lib  # bench/lib.py: write_result, read_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ["inception_v3:2", "inception_v3:4", "nasnet:2", "nasnet:4", "nmt:2", "nmt:4"]
ENV = dict(os.environ, PLACETO_KERNELS="plain")


def run(args):
    r = subprocess.run(args, cwd=ROOT, env=ENV, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("paper_mdp: %s failed: %s" % (" ".join(args), r.stderr.strip()[-400:]))
    return r.stdout


def last_json(text):
    return json.loads([l for l in text.splitlines() if l.startswith("{")][-1])


def group_count(prog, graph, d):
    info = run([prog, "info", graph, "--devices", str(d)])
    for line in info.splitlines():
        if "groups" in line:
            for tok in line.replace(",", " ").split():
                if tok.isdigit():
                    return int(tok)
    sys.exit("paper_mdp: no group count in `info %s`" % graph)


def variant_args(v, updates):
    if v == "paper":
        return []
    if v == "paper-sched":
        return ["--entropy-schedule", "linear", "--entropy-steps", str(max(1, updates // 2))]
    if v == "paper-low":
        return ["--entropy", "0.01"]
    sys.exit("paper_mdp: unknown variant %s" % v)


def one(prog, case, seed, variant, budget, chunks, tmp):
    name, d = case.split(":")
    graph = "graphs/%s.json" % name
    groups = group_count(prog, graph, d)
    workers = 4
    episodes = max(workers, int(math.ceil(budget / groups / workers)) * workers)
    updates = episodes // workers
    per = max(workers, int(math.ceil(episodes / chunks / workers)) * workers)
    pol = os.path.join(tmp, "%s_%s_%s_%d.json" % (name, d, variant, seed))
    base = [prog, "train", graph, "--devices", d, "--preset", "paper", "--seed", str(seed), "--json"]
    base += variant_args(variant, updates)
    curve, done, sims = [], 0, 0
    while sims < budget:  # a uniform policy proposes a group's own device half the time: no simulation
        n = per
        args = base + ["--episodes", str(n), "-o", pol] + (["--resume", pol] if done else [])
        summ = last_json(run(args))
        done += n
        sims = summ["placements_simulated"]
        placed = json.loads(run([prog, "place", graph, "--devices", d, "--policy", pol, "--json"]))
        curve.append({"placements": summ["placements_simulated"], "greedy_us": placed["runtime_us"],
                      "best_us": summ["best_runtime_us"]})
    cmp = json.loads(run([prog, "compare", graph, "--devices", d, "--policy", pol, "--untrained",
                         "--methods", "single,expert,scotch", "--json"]))
    rows = {r["method"]: r for r in cmp["methods"]}
    sims = curve[-1]["placements"]
    ils = json.loads(run([prog, "place", graph, "--devices", d, "--method", "ils", "--budget", str(sims),
                         "--seed", str(seed), "--json"]))
    return {"case": case, "seed": seed, "variant": variant, "groups": groups, "episodes": done,
            "placements": sims, "curve": curve, "policy_us": curve[-1]["greedy_us"],
            "best_us": curve[-1]["best_us"],
            "untrained_us": rows["placeto-untrained"]["runtime_us"],
            "single_us": rows["single"]["runtime_us"], "single_oom": rows["single"]["oom"],
            "expert_us": rows["expert"]["runtime_us"], "scotch_us": rows["scotch"]["runtime_us"],
            "ils_us": ils["runtime_us"],
            "command": " ".join(base + ["--episodes", str(done), "-o", "p.json"])}


FAMILIES = {"nmt": "graphs/families/nmt/nmt_variant_%02d.json",
            "enas-cifar10": "graphs/families/enas-cifar10/enas_cifar10_%02d.json",
            "enas-ptb": "graphs/families/enas-ptb/enas_ptb_%02d.json"}


def one_family(prog, case, seed, variant, budget, chunks, tmp):
    """family:F:D: trained on F's graphs 00-23 for about `budget`
    placements, then zero-shot on the held-out 24-27: the policy's greedy
    placement, its untrained control, single/expert/Scotch and ILS given the
    placements the policy's own placement simulated (one episode)."""
    _, fam, d = case.split(":")
    train = [FAMILIES[fam] % i for i in range(24)]
    held = [FAMILIES[fam] % i for i in range(24, 28)]
    workers = 4
    groups = group_count(prog, train[0], d)
    per = max(workers, int(math.ceil(budget / groups / chunks / workers)) * workers)
    pol = os.path.join(tmp, "%s_%s_%s_%d.json" % (fam, d, variant, seed))
    base = [prog, "train"] + train + ["--devices", d, "--preset", "paper", "--seed", str(seed), "--json"]
    base += variant_args(variant, int(math.ceil(budget / groups / workers)))
    sims, done = 0, 0
    while sims < budget:
        summ = last_json(run(base + ["--episodes", str(per), "-o", pol] + (["--resume", pol] if done else [])))
        done += per
        sims = summ["placements_simulated"]
    out = {"case": case, "seed": seed, "variant": variant, "groups": groups, "episodes": done, "placements": sims,
           "curve": [], "graphs": [], "command": " ".join(base + ["--episodes", str(done), "-o", "p.json"])}
    for g in held:
        placed = json.loads(run([prog, "place", g, "--devices", d, "--policy", pol, "--json"]))
        cmp = json.loads(run([prog, "compare", g, "--devices", d, "--policy", pol, "--untrained",
                              "--methods", "single,expert,scotch", "--json"]))
        rows = {r["method"]: r for r in cmp["methods"]}
        ils = json.loads(run([prog, "place", g, "--devices", d, "--method", "ils", "--budget",
                              str(max(1, placed["placements"])), "--seed", str(seed), "--json"]))
        out["graphs"].append({"graph": g, "policy_us": placed["runtime_us"], "placements": placed["placements"],
                              "untrained_us": rows["placeto-untrained"]["runtime_us"],
                              "single_us": rows["single"]["runtime_us"], "single_oom": rows["single"]["oom"],
                              "expert_us": rows["expert"]["runtime_us"], "scotch_us": rows["scotch"]["runtime_us"],
                              "ils_us": ils["runtime_us"]})
    for k in ("policy_us", "untrained_us", "single_us", "expert_us", "scotch_us", "ils_us"):
        out[k] = sum(x[k] for x in out["graphs"]) / len(out["graphs"])
    out["single_oom"] = any(x["single_oom"] for x in out["graphs"])
    out["best_us"] = float("nan")
    return out


def mean_ci(xs):
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57}.get(len(xs), 2.0)
    return m, t * sd / math.sqrt(len(xs))


def table(res):
    out = ["| case | variant | placements | trained (greedy) | untrained control | trained vs control | best of single, expert, Scotch | trained vs that | ILS at the same placements | best seen in training |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(r["case"], r["variant"]) for r in res}, key=lambda k: (CASES.index(k[0]) if k[0] in CASES else 99, k[1]))
    wins = {}
    for case, v in keys:
        rs = [r for r in res if r["case"] == case and r["variant"] == v]
        gain_c = [100 * (r["untrained_us"] - r["policy_us"]) / r["untrained_us"] for r in rs]
        base = [min([x for x in (r["expert_us"], r["scotch_us"]) if x] + ([] if r["single_oom"] else [r["single_us"]])) for r in rs]
        gain_b = [100 * (b - r["policy_us"]) / b for r, b in zip(rs, base)]
        mc, cc = mean_ci(gain_c)
        mb, cb = mean_ci(gain_b)
        f = lambda xs: "%.1f ms" % (sum(xs) / len(xs) / 1e3)
        out.append("| %s | %s | %d | %s | %s | %+.1f %% ± %.1f | %s | %+.1f %% ± %.1f | %s | %s |" % (
            case, v, rs[0]["placements"], f([r["policy_us"] for r in rs]), f([r["untrained_us"] for r in rs]),
            mc, cc, f(base), mb, cb, f([r["ils_us"] for r in rs]), f([r["best_us"] for r in rs])))
        wins.setdefault(v, 0)
        wins[v] += int(mc >= 10 and mb > 0)
    out.append("")
    out.append("Seeds %s; ± is the 95 %% interval of the mean over the seeds (t distribution). "
               "Cases meeting the paper's claim (trained >= 10 %% better than its control and better than the best "
               "of single, expert and Scotch): %s." % (
                   ",".join(str(s) for s in sorted({r["seed"] for r in res})),
                   ", ".join("%s %d of %d" % (v, n, len({r['case'] for r in res if r['variant'] == v})) for v, n in sorted(wins.items()))))
    return "\n".join(out)


def main():
    a = sys.argv[1:]
    prog, budget, seeds, cases, variants, chunks, jobs, tag = "./placeto", 30000, [1, 2, 3], CASES, [], 5, 2, None
    while a:
        k = a.pop(0)
        if k == "--prog": prog = a.pop(0)
        elif k == "--budget": budget = int(a.pop(0))
        elif k == "--seeds": seeds = [int(x) for x in a.pop(0).split(",")]
        elif k == "--cases": cases = a.pop(0).split(",")
        elif k == "--variant": variants.append(a.pop(0))
        elif k == "--chunks": chunks = int(a.pop(0))
        elif k == "--jobs": jobs = int(a.pop(0))
        elif k == "--tag": tag = a.pop(0)
        else: sys.exit(__doc__)
    variants = variants or ["paper", "paper-sched"]
    res = []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = [ex.submit(one_family if c.startswith("family:") else one, prog, c, s, v, budget, chunks, tmp)
                for c in cases for v in variants for s in seeds]
        for f in futs:
            r = f.result()
            res.append(r)
            print("%s %s seed %d: trained %.1f ms, control %.1f ms, ILS %.1f ms (%d placements)" % (
                r["case"], r["variant"], r["seed"], r["policy_us"] / 1e3, r["untrained_us"] / 1e3, r["ils_us"] / 1e3,
                r["placements"]), flush=True)
    stem = os.path.join(ROOT, "bench", "results", "paper_mdp" + ("_" + tag if tag else ""))
    with lib.open_result(stem + ".json") as f:
        json.dump({"budget": budget, "seeds": seeds, "runs": res}, f, indent=1)
    md = table(res)
    with lib.open_result(stem + ".md") as f:
        f.write(md + "\n")
    print(md)


if __name__ == "__main__":
    main()
