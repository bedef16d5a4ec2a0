#!/usr/bin/python3
"""The headline metric per agent and paper case, from results already
made (no simulation here): the placements simulated to come within 5 % of
a 50 000-placement ILS run, and the quality at 100, 1 000 and 10 000
placements.

  the searches (lsearch, its untrained control, ils, anneal) and the
      zero-shot placers given each budget (the one-shot policy lsched and
      Placeto's general policy from the best heuristic, placeto-refine, each
      with its control): from bench/results/search_budget.json (runs at a
      grid of budgets);
  the learned placers trained from scratch (Placeto, the RNN placer, GDP):
      from the best-so-far curves of their Table 1 runs in
      bench/results/table1.json (10 000 placements each; made on an earlier
      version, when Placeto's placements also counted its no-op proposals),
      the best placement training had simulated by then.

Writes bench/results/headline.md.

    /usr/bin/python3 bench/headline.py
"""
import os

import lib  # bench/lib.py: write_result, read_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(name):
    return lib.read_result(os.path.join(ROOT, "bench/results", name))


def at(curve, budget):
    """The best runtime simulated within budget placements (None before the first point)."""
    best = None
    for placements, runtime in curve:
        if placements > budget:
            break
        best = runtime
    return best


def main():
    sb, t1 = load("search_budget.json"), load("table1.json")
    ref = {(r["graph"], r["devices"]): r for r in sb["rows"]}
    lines = ["# Placements to come within 5 % of a 50 000-placement search", "",
             "`/usr/bin/python3 bench/headline.py`, from bench/results/search_budget.json (the searches and the "
             "zero-shot placers at each budget, mean of "
             "seeds 1-%d, the first budget of the grid %s within 5 %%) and bench/results/table1.json (the learned "
             "placers' Table 1 training runs from scratch, 10 000 placements, seed 1: the first point of the "
             "best-so-far curve within 5 %%; Placeto's counts there include its no-op proposals, made before they "
             "stopped counting). Runtime / lower bound at 100, 1 000 and 10 000 placements (—: nothing simulated "
             "yet, or not within 5 %% by the end)." % (sb["seeds"], ", ".join(map(str, sb["grid"]))), "",
             "| graph | devices | 50k ILS | agent | to 5 % | 100 | 1 000 | 10 000 |", "|---|---|---|---|---|---|---|---|"]
    for row in t1["rows"]:
        g, d = row["path"], row["devices"]
        r = ref.get((g, d))
        if not r:
            continue
        lb, target = r["lower_bound_us"], 1.05 * r["reference_us"]
        for m in ("lsearch", "lsearch-untrained", "ils", "anneal", "lsched", "lsched-untrained", "placeto-refine",
                  "placeto-refine-untrained"):
            if m not in r:
                continue
            x = r[m]
            lines.append("| %s | %d | %.3f | %s | %s | %.3f | %.3f | %.3f |" % (
                g, d, r["reference_us"] / lb, m, x["to_5pct"] or "—", x["quality"]["100"], x["quality"]["1000"],
                x["quality"]["10000"]))
        for a in ("placeto", "rnn", "gdp"):
            if a not in row:
                continue
            curve = row[a]["curve"]
            first = next((p for p, rt in curve if rt <= target), None)
            q = [at(curve, b) for b in (100, 1000, 10000)]
            lines.append("| %s | %d | %.3f | %s (training) | %s | %s |" % (
                g, d, r["reference_us"] / lb, a, first or "—",
                " | ".join("%.3f" % (v / lb) if v else "—" for v in q)))
    with lib.open_result(os.path.join(ROOT, "bench/results/headline.md")) as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


main()
