"""Writes test/fixtures/train/optim-steps.json: five steps of each optimizer configuration on one random parameter
with random gradients, in float64, by optim_rules.py. Run from the repository root:
    python3 scripts/train-reference/optim_steps.py
Needs python3 and numpy only; the tests read the committed fixture and never run this."""

import json
import os

import numpy as np

from optim_rules import adam_step, lans_step, sgd_step

CONFIGS = [
    ("sgd", {"lr": 0.1}),
    ("sgd", {"lr": 0.1, "momentum": 0.9}),
    ("sgd", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.01}),
    ("sgd", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("adam", {"lr": 0.01}),
    ("adam", {"lr": 0.01, "weight_decay": 0.1}),
    ("adam", {"lr": 0.02, "beta1": 0.5, "beta2": 0.9, "eps": 1e-6, "amsgrad": True}),
    ("adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("adam", {"lr": 0.01, "weight_decay": 0.05, "decoupled_weight_decay": True, "amsgrad": True}),
    # LANS last, so the random draws of the cases above are unchanged.
    ("lans", {"lr": 0.01}),
    ("lans", {"lr": 0.02, "weight_decay": 0.1, "mode": False}),
    ("lans", {"lr": 0.01, "beta1": 0.5, "beta2": 0.9, "eps": 1e-4, "grad_averaging": False, "bias_correction": False}),
    ("lans", {"lr": 0.01, "weight_decay": 0, "normalize_grad": False}),
]
STEPS = 5
SHAPE = (3, 4)


def main():
    rs = np.random.RandomState(43)
    cases = []
    for op, cfg in CONFIGS:
        p = rs.uniform(-1, 1, SHAPE)
        # Gradients of changing size, so amsgrad's maximum differs from the second moment.
        grads = [rs.uniform(-1, 1, SHAPE) * (2.0 if k % 2 == 0 else 0.25) for k in range(STEPS)]
        state = {"b": np.zeros(SHAPE), "m": np.zeros(SHAPE), "v": np.zeros(SHAPE), "vmax": np.zeros(SHAPE)}
        params = []
        cur = p
        for k, g in enumerate(grads):
            t = k + 1
            if op == "sgd":
                cur = sgd_step(cur, g, state, t, **cfg)
            elif op == "lans":
                cur = lans_step(cur, g, state, t, **cfg)
            else:
                kw = dict(cfg)
                kw["decoupled"] = kw.pop("decoupled_weight_decay", False)
                cur = adam_step(cur, g, state, t, **kw)
            params.append(cur.ravel().tolist())
        case = {"op": op, "config": cfg, "shape": list(SHAPE), "param": p.ravel().tolist(),
                "grads": [g.ravel().tolist() for g in grads], "params_after_each_step": params}
        if op == "sgd" and cfg.get("momentum", 0) != 0:
            case["momentum_buffer"] = state["b"].ravel().tolist()
        if op == "lans":
            case["exp_avg"] = state["m"].ravel().tolist()
            case["exp_avg_sq"] = state["v"].ravel().tolist()
        if op == "adam":
            case["exp_avg"] = state["m"].ravel().tolist()
            case["exp_avg_sq"] = state["v"].ravel().tolist()
            if cfg.get("amsgrad"):
                case["max_exp_avg_sq"] = state["vmax"].ravel().tolist()
        cases.append(case)
    out = os.path.join("test", "fixtures", "train", "optim-steps.json")
    with open(out, "w") as f:
        json.dump({"generator": "scripts/train-reference/optim_steps.py", "numpy": np.__version__, "cases": cases}, f)
        f.write("\n")
    print(f"wrote {out}: {len(cases)} cases x {STEPS} steps")


if __name__ == "__main__":
    main()
