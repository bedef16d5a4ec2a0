"""Model definitions for torch_graph.py: torchvision classifiers, a GNMT-style
translation model, NASNet-A, a BERT-base encoder, and the generated families
(ENAS convolutional and recurrent cells, NMT variants). Each entry makes
(module returning the loss, example inputs, input names, description); with
--inference, (the network without its loss, its inputs, their names,
description) through Spec.make_inference."""
import math
import random

import families
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classify(nn.Module):
    """model(x) -> cross-entropy loss against labels y."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x, y):
        return F.cross_entropy(self.net(x), y)


def image_inputs(batch, size, classes=1000):
    return [torch.randn(batch, 3, size, size), torch.randint(0, classes, (batch,))], ["data", "labels"]


# ---- BERT-base (Devlin et al., 2019), from torch.nn pieces ----

class BertLayer(nn.Module):
    """One post-norm transformer encoder layer as in BERT: multi-head
    self-attention (separate query, key and value projections, scaled dot
    product, softmax, output projection), residual and LayerNorm, then the
    GELU feed-forward network, residual and LayerNorm. Dropout 0.1 (off in
    eval mode)."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn_in = nn.Linear(hidden, ffn)
        self.ffn_out = nn.Linear(ffn, hidden)
        self.ffn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        b, s, h = x.shape
        d = h // self.heads

        def split(t):   # batch x heads x sequence x head size
            return t.view(b, s, self.heads, d).transpose(1, 2)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d)
        ctx = torch.matmul(self.drop(F.softmax(scores, -1)), v).transpose(1, 2).reshape(b, s, h)
        x = self.attn_norm(x + self.drop(self.attn_out(ctx)))
        return self.ffn_norm(x + self.drop(self.ffn_out(F.gelu(self.ffn_in(x)))))


class BertEncoder(nn.Module):
    """BERT's embeddings (word, position and token type, summed, LayerNorm)
    and its encoder: tokens [batch, sequence] -> hidden states [batch,
    sequence, hidden]. Every sequence is one segment with no padding, so
    there is no attention mask (BERT adds zeros then) and the token type is
    0 everywhere."""

    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, max_positions=512):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(max_positions, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.emb_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.drop = nn.Dropout(0.1)
        self.layers = nn.ModuleList([BertLayer(hidden, heads, ffn) for _ in range(layers)])

    def forward(self, tokens):
        s = tokens.shape[1]
        positions = torch.arange(s, device=tokens.device).unsqueeze(0)
        x = self.word(tokens) + self.position(positions) + self.token_type(torch.zeros_like(tokens))
        x = self.drop(self.emb_norm(x))
        for layer in self.layers:
            x = layer(x)
        return x


class BertClassifier(nn.Module):
    """The encoder, BERT's pooler (dense + tanh on the first token) and a
    classifier: the training graph's network (sequence classification)."""

    def __init__(self, classes=2):
        super().__init__()
        self.encoder = BertEncoder()
        self.pooler = nn.Linear(768, 768)
        self.classifier = nn.Linear(768, classes)

    def forward(self, tokens):
        return self.classifier(torch.tanh(self.pooler(self.encoder(tokens)[:, 0])))


BERT_SEQ = 128
BERT_ABOUT = ("BERT-base encoder (Devlin et al. 2019; torch.nn pieces, random weights): vocabulary 30522, "
              "12 layers, hidden 768, 12 heads, feed-forward 3072, sequence %d" % BERT_SEQ)


def bert_make(b, seed):
    torch.manual_seed(seed)
    m = Classify(BertClassifier(2))
    inputs = [torch.randint(0, 30522, (b, BERT_SEQ)), torch.randint(0, 2, (b,))]
    return m, inputs, ["tokens", "labels"], BERT_ABOUT + ", pooler and a 2-class classifier"


def bert_infer(b, seed):
    torch.manual_seed(seed)
    return BertEncoder(), [torch.randint(0, 30522, (b, BERT_SEQ))], ["tokens"], \
        BERT_ABOUT + ": embeddings and encoder, output the last hidden states"


# ---- GNMT-style sequence to sequence with attention ----

class Seq2Seq(nn.Module):
    """Embeddings, an LSTM encoder (first layer bidirectional, the two
    directions summed; residual connections above) and an LSTM
    decoder with Luong-style attention, unrolled over `steps` time steps with
    LSTM cells, projection to the vocabulary and the loss of every step."""

    def __init__(self, vocab, hidden, enc_layers, dec_layers, steps):
        super().__init__()
        self.steps, self.hidden = steps, hidden
        self.src_emb = nn.Embedding(vocab, hidden)
        self.tgt_emb = nn.Embedding(vocab, hidden)
        self.enc_fw = nn.LSTMCell(hidden, hidden)
        self.enc_bw = nn.LSTMCell(hidden, hidden)
        self.enc = nn.ModuleList([nn.LSTMCell(hidden, hidden) for i in range(enc_layers - 1)])
        self.dec = nn.ModuleList([nn.LSTMCell(2 * hidden if i == 0 else hidden, hidden) for i in range(dec_layers)])
        self.attn = nn.Linear(hidden, hidden, bias=False)
        self.combine = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def run(self, cell, xs, reverse=False):
        b = xs[0].shape[0]
        h = xs[0].new_zeros(b, self.hidden)
        c = xs[0].new_zeros(b, self.hidden)
        hs = [None] * len(xs)
        order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
        for t in order:
            h, c = cell(xs[t], (h, c))
            hs[t] = h
        return hs

    def forward(self, src, tgt, labels):
        xs = [self.src_emb(src[:, t]) for t in range(self.steps)]
        f = self.run(self.enc_fw, xs)
        bw = self.run(self.enc_bw, xs, reverse=True)
        hs = [a + b for a, b in zip(f, bw)]  # the two directions, summed
        for cell in self.enc:  # residual connections, as in GNMT
            hs = [a + b for a, b in zip(hs, self.run(cell, hs))]
        memory = torch.stack(hs, 1)  # batch x steps x hidden
        keys = self.attn(memory)
        b = src.shape[0]
        state = [(memory.new_zeros(b, self.hidden), memory.new_zeros(b, self.hidden)) for _ in self.dec]
        context = memory.new_zeros(b, self.hidden)
        loss = 0
        for t in range(self.steps):
            x = torch.cat([self.tgt_emb(tgt[:, t]), context], 1)
            for i, cell in enumerate(self.dec):
                h, c = cell(x, state[i])
                state[i] = (h, c)
                x = h if i == 0 else x + h
            scores = torch.bmm(keys, x.unsqueeze(2)).squeeze(2)
            weights = F.softmax(scores, 1)
            context = torch.bmm(weights.unsqueeze(1), memory).squeeze(1)
            att = torch.tanh(self.combine(torch.cat([x, context], 1)))
            loss = loss + F.cross_entropy(self.out(att), labels[:, t])
        return loss / self.steps


def seq2seq_inputs(batch, steps, vocab):
    return ([torch.randint(0, vocab, (batch, steps)), torch.randint(0, vocab, (batch, steps)),
             torch.randint(0, vocab, (batch, steps))], ["source_tokens", "target_tokens", "labels"])


# ---- NASNet-A (Zoph et al., 2018, figure 4 / appendix) ----

class SepConv(nn.Module):
    """relu, depthwise k x k, pointwise 1 x 1, BN, twice (NASNet's separable convolution)."""

    def __init__(self, c, k, stride=1):
        super().__init__()
        layers = []
        for i in range(2):
            s = stride if i == 0 else 1
            layers += [nn.ReLU(), nn.Conv2d(c, c, k, s, k // 2, groups=c, bias=False),
                       nn.Conv2d(c, c, 1, bias=False), nn.BatchNorm2d(c)]
        self.op = nn.Sequential(*layers)

    def forward(self, x):
        return self.op(x)


def make_op(kind, c, stride):
    if kind.startswith("sep"):
        return SepConv(c, int(kind[3]), stride)
    if kind == "avg3":
        return nn.AvgPool2d(3, stride, 1, count_include_pad=False)
    if kind == "max3":
        return nn.MaxPool2d(3, stride, 1)
    if kind == "id":
        return nn.Identity() if stride == 1 else FactorizedReduce(c)
    raise ValueError(kind)


class FactorizedReduce(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = nn.Conv2d(c, c // 2, 1, 2, bias=False)
        self.b = nn.Conv2d(c, c - c // 2, 1, 2, bias=False)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        return self.bn(torch.cat([self.a(F.relu(x)), self.b(F.relu(x[:, :, 1:, 1:]))], 1))


class Cell(nn.Module):
    """A cell of B blocks; each block applies two ops to two earlier states
    (0 = the cell before the previous one, 1 = the previous one, 2.. = earlier
    blocks) and adds them; unused states are concatenated and projected."""

    def __init__(self, blocks, c_prev_prev, c_prev, c, reduction, reduce_prev):
        super().__init__()
        self.pre0 = FactorizedReduce_to(c_prev_prev, c) if reduce_prev else ReLUConvBN(c_prev_prev, c)
        self.pre1 = ReLUConvBN(c_prev, c)
        self.blocks = blocks
        self.ops = nn.ModuleList()
        for (i1, op1, i2, op2) in blocks:
            self.ops.append(make_op(op1, c, 2 if reduction and i1 < 2 else 1))
            self.ops.append(make_op(op2, c, 2 if reduction and i2 < 2 else 1))
        used = {i for (i1, _, i2, _) in blocks for i in (i1, i2)}
        self.concat = [i for i in range(2, 2 + len(blocks)) if i not in used]
        self.c_out = c * len(self.concat)

    def forward(self, s0, s1):
        states = [self.pre0(s0), self.pre1(s1)]
        for k, (i1, _, i2, _) in enumerate(self.blocks):
            states.append(self.ops[2 * k](states[i1]) + self.ops[2 * k + 1](states[i2]))
        return torch.cat([states[i] for i in self.concat], 1)


class ReLUConvBN(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.ReLU(), nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))


class FactorizedReduce_to(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.a = nn.Conv2d(cin, cout // 2, 1, 2, bias=False)
        self.b = nn.Conv2d(cin, cout - cout // 2, 1, 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.bn(torch.cat([self.a(F.relu(x)), self.b(F.relu(x[:, :, 1:, 1:]))], 1))


# NASNet-A normal and reduction cells (the published architecture): blocks as
# (input, op, input, op) with 0 = h[i-1], 1 = h[i], 2.. = earlier blocks.
NASNET_NORMAL = [(1, "sep3", 1, "id"), (0, "sep3", 1, "sep5"), (1, "avg3", 0, "id"),
                 (0, "avg3", 0, "avg3"), (0, "sep5", 0, "sep3")]
NASNET_REDUCE = [(0, "sep7", 1, "sep5"), (1, "max3", 0, "sep7"), (1, "avg3", 0, "sep5"),
                 (1, "max3", 2, "sep3"), (2, "avg3", 3, "id")]


class CellNet(nn.Module):
    """Stem, then `stages` stages of `repeats` normal cells with a reduction
    cell between stages, global pooling and a classifier."""

    def __init__(self, normal, reduce, c, stages, repeats, classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c))
        cells, cpp, cp, reduce_prev = [], c, c, False
        for s in range(stages):
            if s > 0:
                c *= 2
                cell = Cell(reduce, cpp, cp, c, True, reduce_prev)
                cells.append(cell)
                cpp, cp, reduce_prev = cp, cell.c_out, True
            for _ in range(repeats):
                cell = Cell(normal, cpp, cp, c, False, reduce_prev)
                cells.append(cell)
                cpp, cp, reduce_prev = cp, cell.c_out, False
        self.cells = nn.ModuleList(cells)
        self.fc = nn.Linear(cp, classes)

    def forward(self, x):
        s0 = s1 = self.stem(x)
        for cell in self.cells:
            s0, s1 = s1, cell(s0, s1)
        return self.fc(F.adaptive_avg_pool2d(F.relu(s1), 1).flatten(1))


# ---- ENAS search spaces (Pham et al., 2018) ----

# How a seed maps to a configuration, for every family, is in families.py
# (no PyTorch needed): enas_cell, enas_rnn_arch and NMT_VARIANTS live there.
ENAS_CONV_OPS = families.ENAS_CONV_OPS
enas_cell = families.enas_cell


class ENASRNN(nn.Module):
    """An ENAS recurrent cell of `nodes` nodes (each reads one earlier node,
    applies a linear map and an activation; the cell output averages the
    loose ends), unrolled over `steps` steps of a language model."""

    ACTS = families.ENAS_RNN_ACTS

    def __init__(self, rng, vocab, hidden, nodes, steps):
        super().__init__()
        self.steps, self.hidden = steps, hidden
        self.emb = nn.Embedding(vocab, hidden)
        self.w_in = nn.Linear(2 * hidden, 2 * hidden)
        self.arch = families.enas_rnn_arch(rng, nodes)
        self.w = nn.ModuleList([nn.Linear(hidden, 2 * hidden, bias=False) for _ in range(nodes)])
        used = {p for p, _ in self.arch}
        self.loose = [k + 1 for k in range(nodes) if k + 1 not in used]
        self.out = nn.Linear(hidden, vocab)

    def act(self, name, x):
        return {"tanh": torch.tanh, "relu": F.relu, "sigmoid": torch.sigmoid, "identity": lambda v: v}[name](x)

    def forward(self, tokens, labels):
        b = tokens.shape[0]
        h = self.emb.weight.new_zeros(b, self.hidden)
        loss = 0
        for t in range(self.steps):
            x = self.emb(tokens[:, t])
            c, hh = torch.sigmoid(self.w_in(torch.cat([x, h], 1))).chunk(2, 1)
            s = [h + c * (torch.tanh(hh) - h)]
            for k, (p, a) in enumerate(self.arch):
                c, hh = self.w[k](s[p]).chunk(2, 1)
                c = torch.sigmoid(c)
                s.append(s[p] + c * (self.act(a, hh) - s[p]))
            h = sum(s[i] for i in self.loose) / len(self.loose)
            loss = loss + F.cross_entropy(self.out(h), labels[:, t])
        return loss / self.steps


# the default batch of a zoo model's --inference graph, unless its Spec sets
# another (bert_base: 1, one request of 128 tokens; see torch_graph.py --help)
INFERENCE_BATCH = 8


class Spec:
    """A zoo entry: its training batch, the maker of its training step, its
    name, and for --inference its forward-only maker (None: the network of a
    Classify, fed the images alone; internal: the loss is computed inside the
    model's forward, so there is no forward-only form)."""

    def __init__(self, batch, make, name=None, infer=None, internal_loss=False, infer_batch=INFERENCE_BATCH):
        self.batch, self._make, self._name = batch, make, name
        self._infer, self.internal_loss, self.infer_batch = infer, internal_loss, infer_batch

    def make(self, batch, seed):
        return self._make(batch, seed)

    def make_inference(self, batch, seed):
        """(network, inputs, input names, description) of the forward pass alone."""
        if self._infer is not None:
            return self._infer(batch, seed)
        model, inputs, names, about = self._make(batch, seed)
        return model.net, inputs[:1], names[:1], about

    def name(self, batch, seed):
        return self._name(batch, seed) if callable(self._name) else self._name


def torchvision_spec(fn, size, batch, label, **kw):
    def make(b, seed):
        import torchvision.models as tvm
        torch.manual_seed(seed)
        net = getattr(tvm, fn)(**kw)
        inputs, names = image_inputs(b, size)
        return Classify(net), inputs, names, "torchvision %s (%s), %dx%d images" % (fn, label, size, size)
    return Spec(batch, make, fn)


def nmt_make(b, seed):
    torch.manual_seed(seed)
    vocab, hidden, layers, steps = 80000, 1024, 2, 30
    m = Seq2Seq(vocab, hidden, layers, layers, steps)
    inputs, names = seq2seq_inputs(b, steps, vocab)
    return m, inputs, names, ("GNMT-style NMT: vocabulary %d, hidden %d, %d-layer LSTM encoder (first layer "
                              "bidirectional) and %d-layer decoder with attention, %d unrolled steps"
                              % (vocab, hidden, layers, layers, steps))


def nasnet_make(b, seed):
    torch.manual_seed(seed)
    m = Classify(CellNet(NASNET_NORMAL, NASNET_REDUCE, 32, 3, 4, 10))
    inputs, names = image_inputs(b, 32, 10)
    return m, inputs, names, ("NASNet-A (Zoph et al. 2018, normal and reduction cells of the paper), "
                              "CIFAR-10 layout: 3 stages of 4 normal cells, 2 reduction cells, 32 filters, 32x32 images")


def enas_cifar_make(b, seed):
    # families.enas_cifar10(seed): the same draws
    rng = random.Random(seed)
    torch.manual_seed(seed)
    normal, reduce = enas_cell(rng, 5), enas_cell(rng, 5)
    m = Classify(CellNet(normal, reduce, 20, 3, 1, 10))
    inputs, names = image_inputs(b, 32, 10)
    return m, inputs, names, ("ENAS convolutional cells (Pham et al. 2018 search space), seed %d: normal %s, "
                              "reduction %s; 3 stages of 1 normal cell, 2 reduction cells, 20 filters, CIFAR-10" % (seed, normal, reduce))


def enas_ptb_make(b, seed):
    # families.enas_ptb(seed): the same draws
    rng = random.Random(seed)
    torch.manual_seed(seed)
    m = ENASRNN(rng, 10000, 256, 8, 10)
    inputs = [torch.randint(0, 10000, (b, 10)), torch.randint(0, 10000, (b, 10))]
    return m, inputs, ["tokens", "labels"], ("ENAS recurrent cell (Pham et al. 2018 search space), seed %d: "
                                             "8 nodes %s, hidden 256, PTB vocabulary 10000, 10 unrolled steps"
                                             % (seed, m.arch))


# Every (layers, hidden, steps) of the NMT family, in one fixed shuffled
# order (families.NMT_VARIANTS): seed s takes entry s mod 75, so seeds 0-74
# give distinct graphs and s and s + 75 the same one; the bundled members
# are seeds 0-31, so only seeds with s mod 75 in 32..74 are fresh
# (families.py seed nmt_variant S says which bundled member S repeats).
NMT_VARIANTS = families.NMT_VARIANTS


def nmt_variant_make(b, seed):
    torch.manual_seed(seed)
    layers, hidden, steps = families.nmt_variant(seed)
    vocab = 8000
    m = Seq2Seq(vocab, hidden, layers, layers, steps)
    inputs, names = seq2seq_inputs(b, steps, vocab)
    return m, inputs, names, ("NMT variant, seed %d: vocabulary %d, hidden %d, %d encoder and decoder layers, "
                              "%d steps" % (seed, vocab, hidden, layers, steps))


MODELS = {
    "inception_v3": torchvision_spec("inception_v3", 299, 64, "Szegedy et al. 2016", aux_logits=False,
                                     init_weights=False),
    "resnet50": torchvision_spec("resnet50", 224, 64, "He et al. 2016"),
    "googlenet": torchvision_spec("googlenet", 224, 64, "Szegedy et al. 2015", aux_logits=False,
                                  init_weights=False),
    "vgg16": torchvision_spec("vgg16", 224, 64, "Simonyan and Zisserman 2015"),
    "mobilenet_v2": torchvision_spec("mobilenet_v2", 224, 64, "Sandler et al. 2018"),
    "bert_base": Spec(32, bert_make, "bert_base", infer=bert_infer, infer_batch=1),
    "nmt": Spec(128, nmt_make, "nmt", internal_loss=True),
    "nasnet": Spec(64, nasnet_make, "nasnet"),
    "enas_cifar10": Spec(32, enas_cifar_make, lambda b, s: "enas_cifar10_%02d" % s),
    "enas_ptb": Spec(32, enas_ptb_make, lambda b, s: "enas_ptb_%02d" % s, internal_loss=True),
    "nmt_variant": Spec(64, nmt_variant_make, lambda b, s: "nmt_variant_%02d" % s, internal_loss=True),
}
