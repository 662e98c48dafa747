"""Writes test/fixtures/train/cnn-images.json: a small CNN trained for 40 steps on a generated 8x8 image task in
float64 with SGD (momentum, weight decay) and with Adam, by NumPy with a hand-written backward (convolution through
patches, max pooling through the first maximum of each window) and optim_rules.py. The fixture holds the images,
the labels, every step's batch, the initial weights, every step's loss and the final parameters, so raf-op's test
replays the same run.

The task: 8x8 single-channel images of four classes drawn at a random place on a noisy background (seeded):
  0 a horizontal bar (one row, 5 to 8 pixels long), 1 a vertical bar (one column, 5 to 8 long),
  2 a cross (a 5-long horizontal and vertical bar through the same centre), 3 a filled 3x3 square.
The fixture stores every pixel as an integer: 10 to 15 on the shape, 0 to 4 on the background; the network sees
value / 8 (exact in float32 and float64).

The model (parameters named as in the fixture):
  conv2d 3x3 (1 -> 4 channels, padding 1) + bias c1w/c1b -> relu -> max_pool2d 2x2 stride 2 (8x8 -> 4x4)
  -> conv2d 3x3 (4 -> 8 channels, no padding) + bias c2w/c2b -> relu (2x2) -> flatten (32, row-major)
  -> dense 32 -> 4 (fw/fb) -> mean softmax cross-entropy.

Run from the repository root:
    python3 scripts/train-reference/cnn_images.py
Needs python3 and numpy only; the tests read the committed fixture and never run this."""

import json
import os

import numpy as np

from optim_rules import adam_step, sgd_step

SIZE = 8
CLASSES = ["hbar", "vbar", "cross", "square"]
PER_CLASS = 32
STEPS = 40
BATCH = 16
RUNS = {
    "sgd": ("sgd", {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.001}),
    "adam": ("adam", {"lr": 0.02}),
}
SHAPES = {"c1w": (4, 1, 3, 3), "c1b": (4,), "c2w": (8, 4, 3, 3), "c2b": (8,), "fw": (4, 32), "fb": (4,)}
NAMES = list(SHAPES)


def make_images(rs):
    """PER_CLASS images of each class, shuffled: (integer pixels [n, 8, 8], labels [n])."""
    images, labels = [], []
    for label in range(len(CLASSES)):
        for _ in range(PER_CLASS):
            img = rs.randint(0, 5, (SIZE, SIZE))
            ink = np.zeros((SIZE, SIZE), dtype=bool)
            if label == 0:
                length = rs.randint(5, SIZE + 1)
                r, c = rs.randint(0, SIZE), rs.randint(0, SIZE - length + 1)
                ink[r, c:c + length] = True
            elif label == 1:
                length = rs.randint(5, SIZE + 1)
                r, c = rs.randint(0, SIZE - length + 1), rs.randint(0, SIZE)
                ink[r:r + length, c] = True
            elif label == 2:
                r, c = rs.randint(2, SIZE - 2), rs.randint(2, SIZE - 2)
                ink[r, c - 2:c + 3] = True
                ink[r - 2:r + 3, c] = True
            else:
                r, c = rs.randint(0, SIZE - 2), rs.randint(0, SIZE - 2)
                ink[r:r + 3, c:c + 3] = True
            img[ink] = rs.randint(10, 16, int(ink.sum()))
            images.append(img)
            labels.append(label)
    order = rs.permutation(len(images))
    return np.array(images)[order], np.array(labels)[order]


def init_params(rs):
    # torch.nn.Conv2d's and nn.Linear's default: weight and bias uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)].
    params = {}
    for w, b in [("c1w", "c1b"), ("c2w", "c2b"), ("fw", "fb")]:
        fan_in = int(np.prod(SHAPES[w][1:]))
        bound = 1 / np.sqrt(fan_in)
        params[w] = rs.uniform(-bound, bound, SHAPES[w])
        params[b] = rs.uniform(-bound, bound, SHAPES[b])
    return params


def conv_patches(x, kh, kw, pad):
    """P[n, c, a, b, i, j] = xpad[n, c, i + a, j + b] (stride 1)."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = xp.shape[2] - kh + 1, xp.shape[3] - kw + 1
    p = np.empty(x.shape[:2] + (kh, kw, oh, ow))
    for a in range(kh):
        for b in range(kw):
            p[:, :, a, b] = xp[:, :, a:a + oh, b:b + ow]
    return p


def conv_forward(x, w, bias, pad):
    p = conv_patches(x, w.shape[2], w.shape[3], pad)
    return np.einsum("ncabij,ocab->noij", p, w) + bias[None, :, None, None], p


def conv_backward(dy, p, w, x_shape, pad):
    """Gradients of conv_forward's output sum(dy * y) for x, w and the bias."""
    dw = np.einsum("ncabij,noij->ocab", p, dy)
    db = dy.sum(axis=(0, 2, 3))
    n, c, h, wd = x_shape
    dxp = np.zeros((n, c, h + 2 * pad, wd + 2 * pad))
    oh, ow = dy.shape[2], dy.shape[3]
    for a in range(w.shape[2]):
        for b in range(w.shape[3]):
            dxp[:, :, a:a + oh, b:b + ow] += np.einsum("noij,oc->ncij", dy, w[:, :, a, b])
    return dxp[:, :, pad:pad + h, pad:pad + wd], dw, db


def pool_forward(x):
    """2x2 stride 2 max pooling; also the index (0..3, row-major) of each window's first maximum."""
    n, c, h, w = x.shape
    win = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
    arg = win.argmax(axis=-1)
    return np.take_along_axis(win, arg[..., None], -1)[..., 0], arg


def pool_backward(dy, arg, x_shape):
    n, c, h, w = x_shape
    dwin = np.zeros((n, c, h // 2, w // 2, 4))
    np.put_along_axis(dwin, arg[..., None], dy[..., None], -1)
    return dwin.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(x_shape)


def loss_and_grads(p, x, y):
    a1, p1 = conv_forward(x, p["c1w"], p["c1b"], 1)
    h1 = np.maximum(a1, 0)
    m1, arg = pool_forward(h1)
    a2, p2 = conv_forward(m1, p["c2w"], p["c2b"], 0)
    h2 = np.maximum(a2, 0)
    f = h2.reshape(len(x), -1)
    z = f @ p["fw"].T + p["fb"]
    zmax = z.max(axis=1, keepdims=True)
    logp = z - (zmax + np.log(np.exp(z - zmax).sum(axis=1, keepdims=True)))
    n = len(x)
    loss = -logp[np.arange(n), y].mean()
    onehot = np.zeros_like(z)
    onehot[np.arange(n), y] = 1
    dz = (np.exp(logp) - onehot) / n
    g = {"fw": dz.T @ f, "fb": dz.sum(axis=0)}
    da2 = (dz @ p["fw"]).reshape(h2.shape) * (a2 > 0)
    dm1, g["c2w"], g["c2b"] = conv_backward(da2, p2, p["c2w"], m1.shape, 0)
    da1 = pool_backward(dm1, arg, h1.shape) * (a1 > 0)
    _, g["c1w"], g["c1b"] = conv_backward(da1, p1, p["c1w"], x.shape, 1)
    return loss, g


def check_grads(p, x, y):
    """The hand-written backward against central differences (float64), before anything is written."""
    _, g = loss_and_grads(p, x, y)
    rs = np.random.RandomState(7)
    for k in NAMES:
        for _ in range(5):
            i = tuple(rs.randint(0, s) for s in p[k].shape)
            h = 1e-6
            q = {n: v.copy() for n, v in p.items()}
            q[k][i] += h
            up, _ = loss_and_grads(q, x, y)
            q[k][i] -= 2 * h
            down, _ = loss_and_grads(q, x, y)
            num = (up - down) / (2 * h)
            assert abs(num - g[k][i]) <= 1e-6 * max(1.0, abs(num)), (k, i, num, g[k][i])


def main():
    pixels, labels = make_images(np.random.RandomState(0))
    x_all = (pixels / 8.0)[:, None]
    init = init_params(np.random.RandomState(1))
    rs = np.random.RandomState(2)
    batches = []
    while len(batches) < STEPS:
        perm = rs.permutation(len(x_all))
        batches += [perm[i:i + BATCH].tolist() for i in range(0, len(x_all), BATCH)]
    batches = batches[:STEPS]
    check_grads(init, x_all[batches[0]], labels[batches[0]])
    runs = {}
    for name, (op, cfg) in RUNS.items():
        p = {k: v.copy() for k, v in init.items()}
        state = {k: {"b": np.zeros_like(v), "m": np.zeros_like(v), "v": np.zeros_like(v), "vmax": np.zeros_like(v)}
                 for k, v in init.items()}
        losses = []
        for t, idx in enumerate(batches, start=1):
            loss, g = loss_and_grads(p, x_all[idx], labels[idx])
            losses.append(float(loss))
            for k in NAMES:
                if op == "sgd":
                    p[k] = sgd_step(p[k], g[k], state[k], t, **cfg)
                else:
                    p[k] = adam_step(p[k], g[k], state[k], t, **cfg)
        final_loss, _ = loss_and_grads(p, x_all, labels)
        runs[name] = {"optimizer": op, "config": cfg, "losses": losses, "final_loss_all_data": float(final_loss),
                      "final": {k: p[k].ravel().tolist() for k in NAMES}}
        print(f"{name}: loss {losses[0]:.6f} -> {losses[-1]:.6f}, all data after {STEPS} steps {final_loss:.6f}")
    out = {
        "generator": "scripts/train-reference/cnn_images.py",
        "numpy": np.__version__,
        "data": "generated 8x8 images (see the script's docstring); the input pixel is value / 8",
        "classes": CLASSES,
        "images": pixels.reshape(len(pixels), -1).tolist(),
        "labels": labels.tolist(),
        "model": "conv2d 3x3 1->4 pad 1 + bias, relu, max_pool2d 2x2 stride 2, conv2d 3x3 4->8 + bias, relu, "
                 "flatten, dense 32->4, mean softmax cross-entropy",
        "batches": batches,
        "init": {k: {"shape": list(v.shape), "data": v.ravel().tolist()} for k, v in init.items()},
        "runs": runs,
    }
    path = os.path.join("test", "fixtures", "train", "cnn-images.json")
    with open(path, "w") as f:
        json.dump(out, f)
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
