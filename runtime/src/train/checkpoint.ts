// Checkpoints of an optimizer (its parameters and state) in the safetensors format: tensors 'param/<name>' and
// '<buffer>/<name>' (exp_avg/w1), metadata with the optimizer kind and the step count.

import { placeOn, type Tensor } from '../tensor.ts';
import { formatShape } from '../shape.ts';
import { TrainError } from './errors.ts';
import type { Optimizer, OptimizerState } from './optim.ts';
import { loadSafetensors, saveSafetensors } from './safetensors.ts';
import type { Params } from './tensors.ts';

const FORMAT = 'raf-op-train-checkpoint/1';

/** The safetensors bytes of an optimizer's parameters and state. */
export function saveCheckpoint(opt: Optimizer): Promise<Uint8Array> {
  const tensors: Params = {};
  for (const [name, p] of Object.entries(opt.params)) tensors[`param/${name}`] = p;
  for (const b of opt.bufferNames)
    for (const [name, t] of Object.entries(opt.state.buffers[b]!)) tensors[`${b}/${name}`] = t;
  return saveSafetensors(tensors, { format: FORMAT, optimizer: opt.kind, step: String(opt.state.step) });
}

/**
 * Restores parameters and state saved by saveCheckpoint into `opt`, after checking the whole file against it: the
 * optimizer kind, and every tensor's presence, shape and dtype. A checkpoint that does not match is refused naming the
 * tensor, and nothing changes.
 */
export function loadCheckpoint(opt: Optimizer, bytes: Uint8Array): void {
  const where = 'loadCheckpoint';
  const { tensors, metadata } = loadSafetensors(bytes);
  // Copies placed on the optimizer's device (none on the CPU); load() copies them again, so all are freed after.
  const placed: Tensor[] = [];
  try {
    if (metadata.format !== FORMAT)
      throw new TrainError(
        where,
        `not a raf-op training checkpoint (format ${JSON.stringify(metadata.format)})`,
        'load plain tensors with loadSafetensors',
      );
    if (metadata.optimizer !== opt.kind)
      throw new TrainError(where, `the checkpoint is of a ${metadata.optimizer} optimizer, this one is ${opt.kind}`);
    const step = Number(metadata.step);
    if (!Number.isInteger(step) || step < 0)
      throw new TrainError(where, `metadata step ${JSON.stringify(metadata.step)} is not an integer >= 0`);
    const expected = new Map<string, string>();
    for (const name of Object.keys(opt.params)) {
      expected.set(`param/${name}`, name);
      for (const b of opt.bufferNames) expected.set(`${b}/${name}`, name);
    }
    for (const key of Object.keys(tensors))
      if (!expected.has(key))
        throw new TrainError(
          `${where}: tensor '${key}'`,
          'matches no parameter or state of this optimizer',
          `it has: ${[...expected.keys()].join(', ')}`,
        );
    for (const [key, name] of expected) {
      const t = tensors[key];
      const p = opt.params[name]!;
      if (!t) throw new TrainError(`${where}: tensor '${key}'`, 'is missing from the checkpoint');
      if (t.shape.length !== p.shape.length || t.shape.some((d, i) => d !== p.shape[i]))
        throw new TrainError(
          `${where}: tensor '${key}'`,
          `has shape ${formatShape(t.shape)}, the model's '${name}' has ${formatShape(p.shape)}`,
        );
      if (t.dtype !== p.dtype)
        throw new TrainError(`${where}: tensor '${key}'`, `has dtype ${t.dtype}, the model's '${name}' has ${p.dtype}`);
    }
    const device = Object.values(opt.params)[0]!.device;
    const onDevice = (t: Tensor): Tensor => {
      const d = placeOn(t, device);
      if (d !== t) placed.push(d);
      return d;
    };
    const params: Params = {};
    const state: OptimizerState = { step, buffers: {} };
    for (const name of Object.keys(opt.params)) params[name] = onDevice(tensors[`param/${name}`]!);
    for (const b of opt.bufferNames) {
      state.buffers[b] = {};
      for (const name of Object.keys(opt.params)) state.buffers[b]![name] = onDevice(tensors[`${b}/${name}`]!);
    }
    opt.load(params, state);
  } finally {
    for (const t of [...Object.values(tensors), ...placed]) t.dispose();
  }
}
