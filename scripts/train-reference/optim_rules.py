"""torch.optim's documented SGD and Adam/AdamW updates, written out in NumPy float64 from the algorithm boxes of
https://pytorch.org/docs/stable/generated/torch.optim.SGD.html and .../torch.optim.Adam.html (AdamW.html).

The reference that raf-op's optimizer ops are checked against; it shares no code with raf-op. Not run by tests."""

import numpy as np


def sgd_step(p, g, state, t, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
    """One SGD step on p with gradient g (t is the 1-based step); state holds 'b', the momentum buffer."""
    if weight_decay != 0:
        g = g + weight_decay * p
    if momentum != 0:
        if t > 1:
            b = momentum * state["b"] + (1 - dampening) * g
        else:
            b = g.copy()
        state["b"] = b
        if nesterov:
            g = g + momentum * b
        else:
            g = b
    return p - lr * g


def adam_step(p, g, state, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, amsgrad=False,
              decoupled=False):
    """One Adam step (AdamW's when decoupled); state holds m, v and vmax (zeros before the first step)."""
    if weight_decay != 0:
        if decoupled:
            p = p - lr * weight_decay * p
        else:
            g = g + weight_decay * p
    m = beta1 * state["m"] + (1 - beta1) * g
    v = beta2 * state["v"] + (1 - beta2) * g * g
    state["m"], state["v"] = m, v
    m_hat = m / (1 - beta1 ** t)
    if amsgrad:
        state["vmax"] = np.maximum(state["vmax"], v)
        v_hat = state["vmax"] / (1 - beta2 ** t)
    else:
        v_hat = v / (1 - beta2 ** t)
    return p - lr * m_hat / (np.sqrt(v_hat) + eps)


def lans_step(p, g, state, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.01, bias_correction=True,
              grad_averaging=True, mode=True, normalize_grad=True):
    """One LANS step as RAF defines it (Zheng et al. 2020, arXiv:2006.13484: Adam-style moments of the per-tensor
    normalized gradient, then two trust-ratio-scaled directions, one from the momentum and one from the gradient).
    mode True: decoupled weight decay added to both directions; False: L2 added to the normalized gradient.
    state holds m and v (zeros before the first step)."""
    g_norm = np.linalg.norm(g.ravel())
    p_norm = np.linalg.norm(p.ravel())
    s = g / (g_norm + eps) if (normalize_grad and g_norm != 0) else g
    if not mode:
        s = s + weight_decay * p
    b3 = (1 - beta1) if grad_averaging else 1.0
    m = beta1 * state["m"] + b3 * s
    v = beta2 * state["v"] + (1 - beta2) * s * s
    state["m"], state["v"] = m, v
    c1 = (1 - beta1 ** t) if bias_correction else 1.0
    c2 = (1 - beta2 ** t) if bias_correction else 1.0
    denom = np.sqrt(v / c2) + eps
    dir_m = (m / c1) / denom
    dir_g = s / denom
    if mode:
        dir_m = dir_m + weight_decay * p
        dir_g = dir_g + weight_decay * p

    def trust(d):
        d_norm = np.linalg.norm(d.ravel())
        return p_norm / d_norm if (p_norm != 0 and d_norm != 0) else 1.0

    return p - lr * beta1 * trust(dir_m) * dir_m - lr * b3 * trust(dir_g) * dir_g
