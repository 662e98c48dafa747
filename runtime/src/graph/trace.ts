// Tracing: runs a function on symbolic tensors and records every base-op call it makes into a graph.

import { CPU, device as toDevice, type Device, type DeviceKind } from '../device.ts';
import { setInvokeHook, type InvokeHook } from '../dispatch.ts';
import type { Storage } from '../dtype.ts';
import type { AnyOpDef } from '../registry.ts';
import { Tensor, type TensorStorage, type TensorType } from '../tensor.ts';
import { bindOut, mkConst, mkVar, type Atom, type Graph, type Node, type TupleOut, type Var } from './ir.ts';

/** Storage of a symbolic tensor: a device and no data. Reading it means a value was needed while tracing. */
class SymbolicStorage implements TensorStorage {
  readonly symbolic = true;
  constructor(readonly device: Device) {}
  read(): Promise<Storage> {
    throw new Error('trace: a traced value has no data yet; graph functions must not read tensors (use ops)');
  }
  readSync(): Storage {
    return this.read() as never;
  }
  dispose(): void {}
}

export function isSymbolic(t: unknown): t is Tensor {
  return t instanceof Tensor && t.storage instanceof SymbolicStorage;
}

/** A recording session: symbolic tensors ↔ graph vars, and the nodes recorded so far. */
export class Recorder {
  readonly nodes: Node[] = [];
  private readonly vars = new Map<Tensor, Var>();
  private readonly tensors = new Map<Var, Tensor>();

  /** The symbolic tensor standing for `v` while recording. */
  tensorOf(v: Var): Tensor {
    let t = this.tensors.get(v);
    if (!t) {
      t = new Tensor(v.type.shape, v.type.dtype, new SymbolicStorage(v.device));
      this.tensors.set(v, t);
      this.vars.set(t, v);
    }
    return t;
  }

  /** A graph atom for any value an op received: symbolic tensors are vars, others constants. */
  atomOf(t: Tensor): Atom {
    const v = this.vars.get(t);
    if (v) return v;
    if (isSymbolic(t)) throw new Error('trace: a symbolic tensor from another trace leaked into this one');
    return mkConst(t);
  }

  readonly hook: InvokeHook = (op, args) => {
    const a = args as Record<string, unknown>;
    const touches = op.tensorArgs.some((n) => {
      const v = a[n];
      return isSymbolic(v) || (Array.isArray(v) && v.some(isSymbolic));
    });
    // Calls on known tensors only run eagerly; their results enter the graph as constants.
    if (!touches) return null;
    const decl = op.declare(args);
    // Host ops (shape) answer from types alone, so their values are static in the graph.
    if (decl.kind === 'value') return { value: decl.value };
    if (decl.kind === 'tuple') {
      const items = decl.outs.map((t) => mkVar(t, decl.device));
      this.record(op, a, { kind: 'tuple', items });
      return { value: items.map((v) => this.tensorOf(v)) };
    }
    const out = mkVar(decl.out, decl.device);
    this.record(op, a, out);
    return { value: this.tensorOf(out) };
  };

  private record(op: AnyOpDef, a: Record<string, unknown>, out: Var | TupleOut): void {
    const args = op.schema.fields.map((f) => {
      const v = a[f.name];
      if (v instanceof Tensor) return this.atomOf(v);
      if (Array.isArray(v) && v.some((x) => x instanceof Tensor)) return v.map((x: Tensor) => this.atomOf(x));
      return v;
    });
    this.nodes.push({ kind: 'call', op, args, out });
  }

  /** Runs `fn` with this recorder answering calls on symbolic tensors. */
  run<R>(fn: () => R): R {
    const prev = setInvokeHook(this.hook);
    try {
      return fn();
    } finally {
      setInvokeHook(prev);
    }
  }
}

/** A parameter's type: an example tensor, or a shape and dtype (and device, default CPU). */
export type ParamSpec = Tensor | (TensorType & { readonly device?: Device | DeviceKind; readonly name?: string });

export function paramVar(p: ParamSpec, hint: string): Var {
  if (p instanceof Tensor) return mkVar(p, p.device, hint);
  return mkVar(p, p.device ? toDevice(p.device) : CPU, p.name ?? hint);
}

type Traceable = (...xs: Tensor[]) => Tensor | readonly Tensor[];

/**
 * Records `fn` as a graph over parameters typed like `params`. Parameter names follow the
 * function's own (`(x, w) => ...` gives `%x`, `%w`).
 */
export function trace(fn: Traceable, params: readonly ParamSpec[], opts: { names?: readonly string[] } = {}): Graph {
  const names = opts.names ?? paramNames(fn, params.length);
  const vars = params.map((p, i) => paramVar(p, names[i]!));
  const rec = new Recorder();
  const result = rec.run(() => fn(...vars.map((v) => rec.tensorOf(v))));
  const outs = result instanceof Tensor ? [result] : [...result];
  return { params: vars, nodes: rec.nodes, outputs: outs.map((t) => rec.atomOf(t)) };
}

/** Parameter names read from a function's source (minifiers may rename them; spec names win). */
export function paramNames(fn: Function, n: number): string[] {
  const src = fn.toString();
  const m = /^\s*(?:async\s*)?([\w$]+)\s*=>/.exec(src) ?? /^[^(]*\(([^)]*)\)/.exec(src);
  const listed = (m?.[1] ?? '')
    .split(',')
    .map((s) =>
      s
        .trim()
        .replace(/[=:].*$/, '')
        .trim(),
    )
    .filter((s) => /^[\w$]+$/.test(s));
  return Array.from({ length: n }, (_, i) => listed[i] ?? `p${i}`);
}

/** Re-runs a graph's calls inside `rec` on the given tensors (used by passes that build a bigger graph around one). */
export function replay(
  g: Graph,
  rec: Recorder,
  inputs: readonly Tensor[],
  invoke: (op: AnyOpDef, args: unknown[]) => unknown,
): Map<Var, Tensor> {
  return rec.run(() => replayCalls(g, inputs, invoke));
}

/**
 * Replays `g`'s calls through `invoke` under whatever hook is installed (eagerly, or into the trace being recorded):
 * a map from `g`'s vars to the values they took.
 */
export function replayCalls(
  g: Graph,
  inputs: readonly Tensor[],
  invoke: (op: AnyOpDef, args: unknown[]) => unknown,
): Map<Var, Tensor> {
  const env = new Map<Var, Tensor>();
  g.params.forEach((p, i) => env.set(p, inputs[i]!));
  const val = (a: unknown): unknown => {
    if (typeof a === 'object' && a !== null && !Array.isArray(a) && 'kind' in a) {
      const atom = a as Atom;
      return atom.kind === 'var' ? env.get(atom) : atom.value;
    }
    return Array.isArray(a) ? a.map(val) : a;
  };
  for (const n of g.nodes) {
    if (n.kind !== 'call') throw new Error('replay: run passes that differentiate before fusion');
    bindOut(env, n.out, invoke(n.op, n.args.map(val)) as Tensor | readonly Tensor[]);
  }
  return env;
}
