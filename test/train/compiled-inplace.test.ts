// The compiled training step runs forward, backward and the optimizer update as one graph: unfused, bit for bit what
// the eager path (trainStep: the tape, then opt.step's op calls) computes, itself checked against torch.optim and NumPy
// in optim.test.ts and mlp-iris.test.ts; fused (the default), within rounding of it; the new parameters and state land
// in the optimizer's own tensors (same objects, same storage); and after the first steps a step takes no new wasm
// memory.

import { describe, expect, it } from 'vitest';
import { ops, tensor, train, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { wasmHeap } from '../../runtime/src/dialects/wasm/module.ts';
import { WasmStorage } from '../../runtime/src/dialects/wasm/storage.ts';
import { execute, trace } from '../../runtime/src/graph/index.ts';
import { batch, initParams, irisData, mlpLoss, type Params } from './mlp.ts';

const data = irisData();
const STEPS = 12;

type Make = (p: Params) => train.Optimizer;
const OPTIMIZERS: Record<string, Make> = {
  'sgd momentum, dampening': (p) => train.sgd(p, { lr: 0.05, momentum: 0.9, dampening: 0.1 }),
  'sgd nesterov, weight decay': (p) => train.sgd(p, { lr: 0.05, momentum: 0.8, nesterov: true, weightDecay: 0.01 }),
  adam: (p) => train.adam(p, { lr: 0.01, weightDecay: 0.001 }),
  'adam amsgrad': (p) => train.adam(p, { lr: 0.01, amsgrad: true }),
  adamw: (p) => train.adamw(p, { lr: 0.01 }),
  lans: (p) => train.lans(p, { lr: 0.01 }),
};

const bits = (t: Tensor): number[] => Array.from(t.dataSync() as Float64Array);

function stateOf(opt: train.Optimizer): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [n, p] of Object.entries(opt.params)) out[n] = bits(p);
  for (const [b, ts] of Object.entries(opt.state.buffers))
    for (const [n, t] of Object.entries(ts)) out[`${b}.${n}`] = bits(t);
  return out;
}

describe.each(['float64', 'float32'] as const)('compiled step (unfused) = eager step, bit for bit, %s', (dtype) => {
  it.each(Object.keys(OPTIMIZERS))('%s', (name) => {
    const make = OPTIMIZERS[name]!;
    const eager = make(initParams(dtype));
    const compiled = make(initParams(dtype));
    const first = batch(data, 0, dtype);
    const step = train.compileTrainStep((p, x, y) => mlpLoss(p, x!, y!), compiled, [first.x, first.y], {
      fuse: false,
    });
    const eagerLosses: number[] = [];
    const compiledLosses: number[] = [];
    for (let k = 0; k < STEPS; k++) {
      // Hyperparameters may change between steps, in both paths (the compiled one traces its graph again).
      if (k === 6) for (const o of [eager, compiled]) (o.options as { lr: number }).lr *= 0.5;
      const { x, y } = batch(data, k, dtype);
      const le = train.trainStep((p) => mlpLoss(p, x, y), eager);
      const lc = step([x, y]);
      eagerLosses.push(le.item());
      compiledLosses.push(lc.item());
      for (const t of [le, lc, x, y]) t.dispose();
    }
    expect(compiledLosses).toEqual(eagerLosses);
    // The losses move: the steps did train (not two copies of a no-op).
    expect(eagerLosses[STEPS - 1]).not.toBe(eagerLosses[0]);
    expect(compiled.state.step).toBe(STEPS);
    expect(stateOf(compiled)).toEqual(stateOf(eager));
    for (const t of [eager, compiled, first.x, first.y]) t.dispose();
  });
});

describe('compiled step updates in place', () => {
  it.each([['default'], ['cpu'], ['wasm', 'cpu']])('tensors and storage kept across steps (dialects %s)', (...pin) => {
    const run = () => {
      const opt = train.adam(initParams('float32'), { lr: 0.01 });
      const eager = train.adam(initParams('float32'), { lr: 0.01 });
      const b0 = batch(data, 0, 'float32');
      const step = train.compileTrainStep((p, x, y) => mlpLoss(p, x!, y!), opt, [b0.x, b0.y], { fuse: false });
      const tensors = stateTensors(opt);
      const storages = tensors.map((t) => t.storage);
      const w1 = opt.params.w1!;
      for (let k = 0; k < 3; k++) {
        step([b0.x, b0.y]).dispose();
        train.trainStep((p) => mlpLoss(p, b0.x, b0.y), eager).dispose();
      }
      stateTensors(opt).forEach((t, i) => {
        expect(t).toBe(tensors[i]);
        expect(t.storage).toBe(storages[i]);
      });
      // A reference taken before the steps reads the current values (eager mode's old tensors are disposed instead).
      expect(bits(w1)).toEqual(bits(eager.params.w1!));
      for (const t of [opt, eager, b0.x, b0.y]) t.dispose();
    };
    return pin[0] === 'default' ? run() : withDialect(pin, run);
  });
});

function stateTensors(opt: train.Optimizer): Tensor[] {
  return [...Object.values(opt.params), ...Object.values(opt.state.buffers).flatMap((b) => Object.values(b))];
}

describe('compiled step memory', () => {
  it.each([['default'], ['wasm', 'cpu']])(
    'after two steps a step takes one wasm block, its loss (dialects %s)',
    (...pin) => {
      const run = () => {
        const opt = train.adam(initParams('float32'), { lr: 0.01 });
        const b0 = batch(data, 0, 'float32');
        const step = train.compileTrainStep((p, x, y) => mlpLoss(p, x!, y!), opt, [b0.x, b0.y]);
        for (let k = 0; k < 2; k++) step([b0.x, b0.y]).dispose();
        const heap = wasmHeap();
        const [allocs, extent, live] = [heap.allocs, heap.extent, heap.liveBytes];
        const losses: Tensor[] = [];
        for (let k = 0; k < 5; k++) losses.push(step([b0.x, b0.y]));
        // Intermediates, new parameters and new moments lie in the plan's block; only each loss the caller owns is new.
        expect(heap.allocs - allocs).toBe(5);
        expect(heap.extent).toBe(extent);
        for (const l of losses) l.dispose();
        expect(heap.liveBytes).toBe(live);
        for (const t of [opt, b0.x, b0.y]) t.dispose();
      };
      return pin[0] === 'default' ? run() : withDialect(pin, run);
    },
  );
});

describe('execute with transient outputs', () => {
  it('keeps them in the plan memory, overwritten by the next run, values unchanged', () => {
    const g = trace(
      (x: Tensor) => [ops.add(ops.multiply(x, 2), 1), ops.exp(ops.multiply(x, 0.5))],
      [{ shape: [64], dtype: 'float64' }],
    );
    const input = (k: number) =>
      tensor(
        Array.from({ length: 64 }, (_, i) => (i - 30) / 16 + k),
        { dtype: 'float64' },
      );
    // Independent reference: the same formulas in JavaScript float64 (2x + 1 is exact; exp is within 1 ulp or so).
    const want = (k: number) => {
      const xs = Array.from({ length: 64 }, (_, i) => (i - 30) / 16 + k);
      return [xs.map((x) => 2 * x + 1), xs.map((x) => Math.exp(x / 2))];
    };
    const heap = wasmHeap();
    for (let k = 0; k < 4; k++) {
      const x = input(k);
      const before = heap.allocs;
      const [a, b] = execute(g, [x], { transient: new Set([0]) });
      expect(Array.from(a!.dataSync())).toEqual(want(k)[0]);
      Array.from(b!.dataSync()).forEach((v, i) => expect(v).toBeCloseTo(want(k)[1]![i]!, 12));
      // From the second run on, the transient output lies in the plan's block and takes no heap block; the other
      // output, the caller's, takes one.
      expect(a!.storage).toBeInstanceOf(WasmStorage);
      expect(b!.storage).toBeInstanceOf(WasmStorage);
      expect((b!.storage as WasmStorage).planned).toBe(false);
      if (k >= 1) {
        expect((a!.storage as WasmStorage).planned).toBe(true);
        expect(heap.allocs - before).toBe(1);
      }
      for (const t of [a!, b!, x]) t.dispose();
    }
    // Run without the option: its outputs are the caller's, outside the plan's memory, and still right.
    const x = input(9);
    const [a, b] = execute(g, [x]);
    const firstA = a!.dataSync();
    expect(Array.from(firstA)).toEqual(want(9)[0]);
    const [a2] = execute(g, [input(3)]);
    expect(Array.from(a!.dataSync())).toEqual(want(9)[0]);
    expect(Array.from(a2!.dataSync())).toEqual(want(3)[0]);
    for (const t of [a!, b!, a2!, x]) t.dispose();
  });
});
