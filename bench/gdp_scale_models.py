"""The two models of GDP's scale study (bench/gdp_scale.py), for the PyTorch
importer's --module FILE.py:FACTORY (graphs/import/torch_graph.py): an
8-layer GNMT and an 8-layer LSTM language model, each one training step
unrolled over a sequence long enough for over 50 000 ops.

  gnmt8    the zoo's GNMT-style Seq2Seq (graphs/import/models.py, the
           bundled nmt.json's network) with 8 encoder layers (the first
           bidirectional, residual connections above) and 8 decoder layers,
           attention, vocabulary 32 000, hidden 1 024; forward(source_tokens,
           target_tokens, labels) returns the mean cross-entropy of every step
  rnnlm8   embedding, 8 stacked LSTM cells (hidden 1 024) unrolled over the
           sequence, a projection to the vocabulary (10 000, PTB's) and the
           cross-entropy of every step; forward(tokens, labels)

The sequence length is the importer's --dim steps=T (bench/gdp_scale.py
gives the commands).

Both factories return their network on PyTorch's meta device, wrapped so
that the importer's CPU inputs are moved there first: the training step is
traced from shapes alone, nothing is computed (real tensors at hidden 1 024
take about 40 ms of this 2-core machine per traced op, about 35 minutes for
50 000 ops; on meta, about 3 ms). The ops, their costs and output sizes are
those of the same trace on real tensors (checked on rnnlm8 at 4 steps: the
same 1 299 (op, cost, bytes), plus one `_to_copy` per input, 10 us each:
the move to the meta device)."""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graphs", "import"))
import models  # noqa: E402

LAYERS, HIDDEN = 8, 1024
GNMT_VOCAB, LM_VOCAB = 32000, 10000


class OnMeta(nn.Module):
    """net on the meta device; forward moves its inputs there first."""

    def __init__(self, net):
        super().__init__()
        self.m = net.to("meta")

    def forward(self, *inputs):
        return self.m(*[x.to("meta") for x in inputs])


class Seq2SeqSteps(models.Seq2Seq):
    """models.Seq2Seq unrolled over the length of its inputs (the importer's --dim)."""

    def forward(self, src, tgt, labels):
        self.steps = src.shape[1]
        return super().forward(src, tgt, labels)


def gnmt8():
    torch.manual_seed(0)
    return OnMeta(Seq2SeqSteps(GNMT_VOCAB, HIDDEN, LAYERS, LAYERS, 1))


class RNNLM(nn.Module):
    """Embedding, L stacked LSTM cells unrolled over the tokens' length, the
    projection to the vocabulary and the loss of every step."""

    def __init__(self, vocab, hidden, layers):
        super().__init__()
        self.hidden = hidden
        self.emb = nn.Embedding(vocab, hidden)
        self.cells = nn.ModuleList([nn.LSTMCell(hidden, hidden) for _ in range(layers)])
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens, labels):
        b, steps = tokens.shape
        state = [(self.emb.weight.new_zeros(b, self.hidden), self.emb.weight.new_zeros(b, self.hidden))
                 for _ in self.cells]
        loss = 0
        for t in range(steps):
            x = self.emb(tokens[:, t])
            for i, cell in enumerate(self.cells):
                state[i] = cell(x, state[i])
                x = state[i][0]
            loss = loss + F.cross_entropy(self.out(x), labels[:, t])
        return loss / steps


def rnnlm8():
    torch.manual_seed(0)
    return OnMeta(RNNLM(LM_VOCAB, HIDDEN, LAYERS))
