"""Writes test/fixtures/train/bert-finetune.json: the BERT of ../shared/onnx-tx/bert-ts.onnx (2 layers, hidden 128,
4 heads of 32, intermediate 512, GELU by erf, LayerNorm eps 1e-12, as Hugging Face's BertModel computes and the
TorchScript exporter wrote it) fine-tuned in float64 with a linear head (2 classes) on the first token's last hidden
state, softmax cross-entropy, Adam (optim_rules.py), on fixed batches of token ids < 1000 with attention masks.

The model is written here from its architecture in NumPy, with a small tape autodiff of its own; the exporter's ties
are kept: every zero bias of width 128 is the one initializer 'm.embeddings.LayerNorm.bias', every LayerNorm weight
'm.embeddings.LayerNorm.weight', both layers' intermediate bias 'm.encoder.layer.0.intermediate.dense.bias', and the
projections are the 'onnx::MatMul_*' initializers ([in, out]) in the exporter's order (q, k, v, attention output,
intermediate, output; layer 0 then layer 1). The word embeddings and the pooler weight are frozen (the pooler does not
reach this loss).

The initializers come from a safetensors file written by bert_dump_initializers.ts (this machine has no onnx package):
    npx tsx scripts/train-reference/bert_dump_initializers.ts /tmp/bert-ts-initializers.safetensors
    python3 scripts/train-reference/bert_finetune.py /tmp/bert-ts-initializers.safetensors
Needs python3, numpy and scipy (erf); the tests read the committed fixture and never run this."""

import json
import math
import sys

import numpy as np
from scipy.special import erf

from optim_rules import adam_step

STEPS = 50
BATCH, SEQ, VOCAB = 2, 8, 1000
HEADS, HEAD_DIM = 4, 32
LR = 1e-4
# The model's constants as the exporter stored them (float32 values): q and k are each scaled by 32^-1/4, GELU
# divides by sqrt(2).
QK_SCALE = 0.4204482138156891
SQRT2 = 1.4142135381698608
LN_EPS = 9.999999960041972e-13
FROZEN = ["m.embeddings.word_embeddings.weight", "m.pooler.dense.weight"]
BIAS = "m.embeddings.LayerNorm.bias"
LNW = "m.embeddings.LayerNorm.weight"
IBIAS = "m.encoder.layer.0.intermediate.dense.bias"
MATMULS = [["onnx::MatMul_335", "onnx::MatMul_342", "onnx::MatMul_343", "onnx::MatMul_349", "onnx::MatMul_350",
            "onnx::MatMul_351"],
           ["onnx::MatMul_352", "onnx::MatMul_359", "onnx::MatMul_360", "onnx::MatMul_366", "onnx::MatMul_367",
            "onnx::MatMul_368"]]


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", info
        a, b = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + a:8 + n + b], dtype="<f4").astype(np.float64).reshape(info["shape"])
    return out


class V:
    """A value on the tape: its array, its gradient, and how to send the gradient to its inputs."""
    tape = []

    def __init__(self, value, parents=(), back=None):
        self.value, self.parents, self.back, self.grad = value, parents, back, None
        if parents:
            V.tape.append(self)

    def add_grad(self, g):
        self.grad = g if self.grad is None else self.grad + g


def unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, s in enumerate(shape):
        if s == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


def add(a, b):
    def back(g):
        a.add_grad(unbroadcast(g, a.value.shape))
        b.add_grad(unbroadcast(g, b.value.shape))
    return V(a.value + b.value, (a, b), back)


def matmul(a, w):
    # a [..., n] @ w [n, m]
    def back(g):
        a.add_grad(g @ w.value.T)
        w.add_grad(np.tensordot(a.value, g, axes=(list(range(a.value.ndim - 1)), list(range(g.ndim - 1)))))
    return V(a.value @ w.value, (a, w), back)


def gather(table, idx):
    def back(g):
        d = np.zeros_like(table.value)
        np.add.at(d, idx, g)
        table.add_grad(d)
    return V(table.value[idx], (table,), back)


def layer_norm(x, w, b):
    mu = x.value.mean(axis=-1, keepdims=True)
    xc = x.value - mu
    rstd = 1 / np.sqrt((xc * xc).mean(axis=-1, keepdims=True) + LN_EPS)
    xh = xc * rstd

    def back(g):
        w.add_grad((g * xh).reshape(-1, xh.shape[-1]).sum(axis=0))
        b.add_grad(g.reshape(-1, g.shape[-1]).sum(axis=0))
        gx = g * w.value
        x.add_grad(rstd * (gx - gx.mean(axis=-1, keepdims=True) - xh * (gx * xh).mean(axis=-1, keepdims=True)))
    return V(xh * w.value + b.value, (x, w, b), back)


def gelu(x):
    u = x.value / SQRT2
    e = erf(u)

    def back(g):
        x.add_grad(g * (0.5 * (1 + e) + 0.5 * x.value * (2 / math.sqrt(math.pi)) * np.exp(-u * u) / SQRT2))
    return V(0.5 * (x.value * (1 + e)), (x,), back)


def attention(q, k, v, mask):
    """Heads of q, k, v [B, S, 128]; mask [B, S] (0: padding key). Softmax((q s)(k s)^T + mask) v, merged heads."""
    split = lambda t: t.reshape(BATCH, SEQ, HEADS, HEAD_DIM).transpose(0, 2, 1, 3)
    qh, kh, vh = split(q.value), split(k.value), split(v.value)
    qs, ks = qh * QK_SCALE, kh * QK_SCALE
    s = qs @ ks.transpose(0, 1, 3, 2) + np.where(mask[:, None, None, :] != 0, 0.0, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    o = p @ vh
    merge = lambda t: t.transpose(0, 2, 1, 3).reshape(BATCH, SEQ, HEADS * HEAD_DIM)

    def back(g):
        go = split(g)
        gp = go @ vh.transpose(0, 1, 3, 2)
        gv = p.transpose(0, 1, 3, 2) @ go
        gs = p * (gp - (gp * p).sum(axis=-1, keepdims=True))
        gq = gs @ ks * QK_SCALE
        gk = gs.transpose(0, 1, 3, 2) @ qs * QK_SCALE
        q.add_grad(merge(gq))
        k.add_grad(merge(gk))
        v.add_grad(merge(gv))
    return V(merge(o), (q, k, v), back)


def first_token_logits(h, w, b):
    # h [B, S, 128] -> h[:, 0] @ w.T + b, w [2, 128]
    h0 = h.value[:, 0, :]

    def back(g):
        gh = np.zeros_like(h.value)
        gh[:, 0, :] = g @ w.value
        h.add_grad(gh)
        w.add_grad(g.T @ h0)
        b.add_grad(g.sum(axis=0))
    return V(h0 @ w.value.T + b.value, (h, w, b), back)


def cross_entropy(logits, labels):
    z = logits.value - logits.value.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    n = labels.shape[0]

    def back(g):
        d = np.exp(logp)
        d[np.arange(n), labels] -= 1
        logits.add_grad(g * d / n)
    return V(np.array(-logp[np.arange(n), labels].mean()), (logits,), back)


def loss_of(P, ids, mask, types, labels):
    x = add(add(gather(P["m.embeddings.word_embeddings.weight"], ids), gather(P["m.embeddings.token_type_embeddings.weight"], types)),
            gather(P["m.embeddings.position_embeddings.weight"], np.arange(SEQ)))
    h = layer_norm(x, P[LNW], P[BIAS])
    for mq, mk, mv, mo, mi, mout in MATMULS:
        q = add(P[BIAS], matmul(h, P[mq]))
        k = add(P[BIAS], matmul(h, P[mk]))
        v = add(P[BIAS], matmul(h, P[mv]))
        a = add(add(P[BIAS], matmul(attention(q, k, v, mask), P[mo])), h)
        h1 = layer_norm(a, P[LNW], P[BIAS])
        f = add(add(P[BIAS], matmul(gelu(add(P[IBIAS], matmul(h1, P[mi]))), P[mout])), h1)
        h = layer_norm(f, P[LNW], P[BIAS])
    return cross_entropy(first_token_logits(h, P["head.weight"], P["head.bias"]), labels)


def main():
    weights = read_safetensors(sys.argv[1] if len(sys.argv) > 1 else "/tmp/bert-ts-initializers.safetensors")
    rs = np.random.RandomState(43)
    # The head as torch.nn.Linear(128, 2) initializes it: uniform in +-1/sqrt(128), weight [out, in].
    bound = 1 / math.sqrt(128)
    head = {"head.weight": rs.uniform(-bound, bound, (2, 128)), "head.bias": rs.uniform(-bound, bound, (2,))}
    # float32-exact initial head values, so the float32 run starts from the same numbers.
    head = {k: v.astype(np.float32).astype(np.float64) for k, v in head.items()}
    batches = []
    for _ in range(4):
        ids = rs.randint(1, VOCAB, (BATCH, SEQ))
        lengths = rs.randint(4, SEQ + 1, (BATCH,))
        mask = (np.arange(SEQ)[None, :] < lengths[:, None]).astype(np.int64)
        ids = ids * mask
        types = ((np.arange(SEQ)[None, :] >= lengths[:, None] // 2) * mask).astype(np.int64)
        labels = rs.randint(0, 2, (BATCH,))
        batches.append({"input_ids": ids.tolist(), "attention_mask": mask.tolist(), "token_type_ids": types.tolist(),
                        "labels": labels.tolist()})
    params = {k: V(v.copy()) for k, v in {**weights, **head}.items()}
    trainable = [k for k in params if k not in FROZEN]
    state = {k: {"m": np.zeros_like(params[k].value), "v": np.zeros_like(params[k].value)} for k in trainable}
    losses = []
    for t in range(1, STEPS + 1):
        b = batches[(t - 1) % len(batches)]
        V.tape = []
        for p in params.values():
            p.grad = None
        loss = loss_of(params, np.array(b["input_ids"]), np.array(b["attention_mask"]), np.array(b["token_type_ids"]),
                       np.array(b["labels"]))
        loss.grad = np.array(1.0)
        for node in reversed(V.tape):
            if node.grad is not None:
                node.back(node.grad)
        losses.append(float(loss.value))
        for k in trainable:
            params[k].value = adam_step(params[k].value, params[k].grad, state[k], t, lr=LR)
    final = {k: {"first": params[k].value.reshape(-1)[:8].tolist(), "sum": float(params[k].value.sum()),
                 "sumsq": float((params[k].value ** 2).sum())} for k in trainable}
    fixture = {
        "source": "scripts/train-reference/bert_finetune.py (NumPy float64, own tape autodiff)",
        "model": "../shared/onnx-tx/bert-ts.onnx",
        "config": {"steps": STEPS, "lr": LR, "optimizer": "adam", "frozen": FROZEN},
        "head": {k: v.reshape(-1).tolist() for k, v in head.items()},
        "batches": batches,
        "losses": losses,
        "final": final,
    }
    with open("test/fixtures/train/bert-finetune.json", "w") as f:
        json.dump(fixture, f, indent=1)
    print("losses", losses[0], "...", losses[-1])


if __name__ == "__main__":
    main()
