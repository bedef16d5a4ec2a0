#!/usr/bin/env python3
"""bench/gdp_torch.py: the GDP placer's network and PPO update in PyTorch,
the speed reference of bench/gdp_speed.sh.

The same network as core/agents/gdp/gdp.h (default architecture: h = 128,
4 heads, 2 GraphSAGE layers with max aggregation, the superposition, one
post-norm Transformer block over segments of 256 rows attending to
[memory; segment], the memory being the previous segment's block input with
no gradient through it, the head), on the network input that
`build/placeto-bench --gdp-input GRAPH DEVICES OUT` writes (the features and
neighbour lists of gdp_input_new), and the same update as gdp_train.c: one
forward draws K placements from the same per-node probabilities, then E
epochs of PPO (a clipped surrogate per node, the entropy bonus, the loss
(1/K) sum_s [L_s - beta mean_v H_v]), each with one forward (the first
epoch's is the sampling forward, kept with its graph), one backward, the
global norm clipped and one Adam step. The rewards are random: no simulator
here (the C figure includes its K simulations).

  gdp_torch.py INPUT.json [--samples K] [--epochs E] [--updates N] [--threads T]
      prints {"updates_per_second": ..., "seconds_per_update": ...} (JSON)
  gdp_torch.py INPUT.json --check POLICY
      loads a gdp policy's weights and compares its probabilities with the
      "probs" the C forward wrote into INPUT.json (the same network)
"""
import argparse
import json
import math
import sys
import time
import warnings

import torch
import torch.nn.functional as Fn

LN_EPS = 1e-5
warnings.filterwarnings("ignore", message="scatter_reduce")


class Gdp(torch.nn.Module):
    def __init__(self, F, n, h=128, heads=4, gnn_layers=2, blocks=1, segment=256, superposition=True):
        super().__init__()
        self.h, self.heads, self.segment, self.sup = h, heads, segment, superposition
        P = torch.nn.Parameter

        def glorot(r, c):
            a = math.sqrt(6.0 / (r + c))
            return P(torch.empty(r, c).uniform_(-a, a))

        self.inW, self.inb = glorot(F, h), P(torch.zeros(h))
        self.gnn = torch.nn.ParameterList()
        for _ in range(gnn_layers):
            self.gnn.extend([glorot(h, h), P(torch.zeros(h)), glorot(2 * h, h), P(torch.zeros(h))])
        self.blk = torch.nn.ParameterList()
        for _ in range(blocks):
            if superposition:
                self.blk.extend([glorot(h, h), P(torch.ones(h))])
            self.blk.extend([glorot(h, h), glorot(h, h), glorot(h, h), glorot(h, h), P(torch.ones(h)),
                             P(torch.zeros(h)), glorot(h, 4 * h), P(torch.zeros(4 * h)), glorot(4 * h, h),
                             P(torch.zeros(h)), P(torch.ones(h)), P(torch.zeros(h))])
        self.headW, self.headb = glorot(h, n), P(torch.zeros(n))
        self.gnn_layers, self.blocks = gnn_layers, blocks

    def ordered(self):
        """The tensors in gdp.h's registration order (a policy file's)."""
        out = [self.inW, self.inb] + list(self.gnn) + list(self.blk) + [self.headW, self.headb]
        return out

    def attention(self, xb, Wq, Wk, Wv):
        G, h, H = xb.shape[0], self.h, self.heads
        dh = h // H
        q, k, v = xb @ Wq, xb @ Wk, xb @ Wv
        S = self.segment
        km = vm = None
        if G > S:  # the memory: the previous segment's block input, a constant
            xm = xb[:(G - 1) // S * S].detach()
            km, vm = xm @ Wk, xm @ Wv
        outs = []
        for start in range(0, G, S):
            end = min(G, start + S)
            lo = start - S if start else start
            qs = q[start:end].view(end - start, H, dh).transpose(0, 1)
            ks, vs = k[start:end], v[start:end]
            if start:
                ks, vs = torch.cat([km[lo:start], ks]), torch.cat([vm[lo:start], vs])
            ks = ks.reshape(end - lo, H, dh).transpose(0, 1)
            vs = vs.reshape(end - lo, H, dh).transpose(0, 1)
            a = torch.softmax(qs @ ks.transpose(1, 2) / math.sqrt(dh), dim=-1)
            outs.append((a @ vs).transpose(0, 1).reshape(end - start, h))
        return torch.cat(outs)

    def forward(self, x, src, dst):
        """Logits (G x n). src, dst: the neighbour pairs (u in nb(v): src u, dst v)."""
        G, h = x.shape[0], self.h
        H = torch.relu(x @ self.inW + self.inb)
        for l in range(self.gnn_layers):
            Wa, ba, Wf, bf = self.gnn[4 * l:4 * l + 4]
            P = torch.relu(H @ Wa + ba)
            m = torch.zeros(G, h).scatter_reduce(0, dst.unsqueeze(1).expand(-1, h), P[src], reduce="amax",
                                                 include_self=False)
            H = torch.relu(torch.cat([H, m], 1) @ Wf + bf)
        gmean = H.mean(0)
        X = H
        per = 14 if self.sup else 12
        for l in range(self.blocks):
            t = list(self.blk[per * l:per * l + per])
            if self.sup:
                U, sb = t[:2]
                t = t[2:]
                X = X * (gmean @ U + sb)
            Wq, Wk, Wv, Wo, g1, c1, W1, b1, W2, b2, g2, c2 = t
            X = Fn.layer_norm(X + self.attention(X, Wq, Wk, Wv) @ Wo, (h,), g1, c1, LN_EPS)
            X = Fn.layer_norm(X + torch.relu(X @ W1 + b1) @ W2 + b2, (h,), g2, c2, LN_EPS)
        return X @ self.headW + self.headb


def load_input(path):
    d = json.load(open(path))
    x = torch.tensor(d["x"], dtype=torch.float32)
    off, nb = d["nb_off"], d["nb"]
    dst = torch.tensor([v for v in range(d["G"]) for _ in range(off[v], off[v + 1])], dtype=torch.long)
    src = torch.tensor(nb, dtype=torch.long)
    return d, x, src, dst


def update(net, opt, x, src, dst, K, E, beta=0.01, eps=0.2, clip=1.0, gen=None):
    """One PPO update: one forward samples K placements, then E epochs."""
    logits = net(x, src, dst)
    with torch.no_grad():
        p = torch.softmax(logits, 1)
        a = torch.multinomial(p, K, replacement=True, generator=gen).t()  # K x G
        lp_old = torch.log_softmax(logits, 1).gather(1, a.t()).t()
        r = torch.rand(K, generator=gen)  # no simulator: random rewards
        adv = (r - r.mean()) / (r.std(unbiased=False) + 1e-12)
    for e in range(E):
        if e > 0:
            logits = net(x, src, dst)
        lsm = torch.log_softmax(logits, 1)
        lp = lsm.gather(1, a.t()).t()  # K x G
        ent = -(lsm.exp() * lsm).sum(1)  # G
        ratio = torch.exp(lp - lp_old)
        surr = torch.min(ratio * adv[:, None], ratio.clamp(1 - eps, 1 + eps) * adv[:, None])
        loss = (-surr.mean(1) - beta * ent.mean()).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        opt.step()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--updates", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--check")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    d, x, src, dst = load_input(a.input)
    net = Gdp(d["F"], d["n_devices"])
    if a.check:
        pol = json.load(open(a.check))
        arch = pol["architecture"]
        net = Gdp(d["F"], d["n_devices"], arch["hidden"], arch["heads"], arch["gnn_layers"], arch["blocks"],
                  arch["segment"], arch["superposition"])
        with torch.no_grad():
            for t, rec in zip(net.ordered(), pol["parameters"]):
                t.copy_(torch.tensor(rec["data"], dtype=torch.float32).view(t.shape))
            p = torch.softmax(net(x, src, dst), 1)
        ref = torch.tensor(d["probs"])
        err = (p - ref).abs().max().item()
        print(json.dumps({"max_abs_prob_difference": err}))
        sys.exit(0 if err < 1e-4 else 1)
    opt = torch.optim.Adam(net.parameters(), lr=3e-4)
    gen = torch.Generator().manual_seed(1)
    update(net, opt, x, src, dst, a.samples, a.epochs, gen=gen)  # warm-up
    t0 = time.perf_counter()
    for _ in range(a.updates):
        update(net, opt, x, src, dst, a.samples, a.epochs, gen=gen)
    el = time.perf_counter() - t0
    print(json.dumps({"graph": d["graph"], "groups": d["G"], "samples": a.samples, "epochs": a.epochs,
                      "threads": torch.get_num_threads(), "torch": torch.__version__,
                      "updates_per_second": a.updates / el, "seconds_per_update": el / a.updates}))


if __name__ == "__main__":
    main()
