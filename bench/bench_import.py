#!/usr/bin/python3
"""make bench, part import: importing one's own small model against importing
PyTorch and torchvision alone, in one run (speed round 3, target 3x).

Times, each the best of --rounds runs (default 3) of a fresh interpreter:
  - `python3 -c "import torch, torchvision"`, the floor every import pays;
  - torch_graph.py --module on a small two-tower CNN (two 3-conv towers on
    3x128x128 images, a linear head, cross-entropy; 143 ops), the case of
    a user's own model;
  - torch_graph.py --model torchvision:mobilenet_v3_small (867 ops);
each with its ratio to the floor, and the phases (--verbose) of the last
run. Writes bench/results/import.json.

  /usr/bin/python3 bench/bench_import.py [--rounds N]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib  # noqa: E402

PY = "/usr/bin/python3"
TARGET = 3.0
TWO_TOWER = '''import torch
import torch.nn as nn


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()

        def tower():
            return nn.Sequential(
                nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
                nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.a = tower()
        self.b = tower()
        self.head = nn.Linear(256, 10)

    def forward(self, x, y):
        return self.head(torch.cat([self.a(x), self.b(y)], 1))


def make_model():
    return TwoTower()
'''


def timed(argv, rounds):
    best, err = None, ""
    for _ in range(rounds):
        t0 = time.monotonic()
        r = subprocess.run(argv, capture_output=True, text=True, check=True)
        dt = time.monotonic() - t0
        best = dt if best is None else min(best, dt)
        err = r.stderr
    phases = [l.split(": ", 1)[1] for l in err.splitlines() if ": phases: " in l]
    return best, phases[0] if phases else ""


def main():
    rounds = 3
    args = sys.argv[1:]
    if args[:1] == ["--rounds"]:
        rounds = int(args[1])
    tool = os.path.join(lib.ROOT, "graphs", "import", "torch_graph.py")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        mod = os.path.join(tmp, "two_tower.py")
        with open(mod, "w") as f:
            f.write(TWO_TOWER)
        floor, _ = timed([PY, "-c", "import torch, torchvision"], rounds)
        print("import    import torch, torchvision            %6.1f s (the floor)" % floor, flush=True)
        cases = [("--module two_tower.py (143 ops)",
                  ["--module", mod + ":make_model", "--input", "x=3,128,128", "--input", "y=3,128,128",
                   "--loss", "ce:10"]),
                 ("torchvision:mobilenet_v3_small (867 ops)", ["--model", "torchvision:mobilenet_v3_small"])]
        for name, how in cases:
            secs, phases = timed([PY, tool, "-q", "-v", "-o", os.path.join(tmp, "g.json")] + how, rounds)
            ratio = secs / floor
            rows.append({"case": name, "seconds": secs, "floor_seconds": floor, "ratio": ratio, "phases": phases})
            print("import    %-36s %6.1f s  %.1fx the floor (target %.0fx) %s; %s" % (
                name, secs, ratio, TARGET, "ok" if ratio <= TARGET else "MISSED", phases), flush=True)
    lib.write_result(os.path.join(lib.RESULTS, "import.json"), rows)


if __name__ == "__main__":
    main()
