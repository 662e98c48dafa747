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
