// FromRelay: converts a Relay module (or RAF's IR text) into a raf-op graph. Conversion evaluates the program on
// symbolic tensors: calls go through the generated Relay converters (runtime/src/relay.ts), closures and global
// functions are inlined where they are called, `if` on a value known while converting picks its branch and on a
// graph value becomes `where`, and literals and metatable constants enter the graph as constants.

import { CPU, type Device } from '../../device.ts';
import { call, invoke } from '../../dispatch.ts';
import { DTYPES, isDType, type DType } from '../../dtype.ts';
import { getOp } from '../../registry.ts';
import { convertRelayCall } from '../../relay.ts';
import { scalar, Tensor } from '../../tensor.ts';
import { execute } from '../executor.ts';
import { mkVar, type Graph, type Var } from '../ir.ts';
import { isSymbolic, Recorder } from '../trace.ts';
import { decodeRelayMetadata } from './relay-metadata.ts';
import {
  parseRelay,
  RelayParseError,
  type Pos,
  type RelayAttr,
  type RelayExpr,
  type RelayFunction,
  type RelayModule,
  type RelayType,
} from './relay-parser.ts';

interface Lit {
  readonly kind: 'lit';
  readonly value: number;
  readonly dtype: string;
  readonly pos: Pos;
}
interface Raw {
  readonly kind: 'raw';
  readonly value: RelayAttr;
}
interface Closure {
  readonly kind: 'closure';
  readonly fn: RelayFunction;
  readonly env: Env;
}
type Value = Tensor | Lit | Raw | Closure | readonly Value[];

class Env {
  private readonly vals = new Map<string, Value>();
  constructor(private readonly up: Env | null) {}
  get(name: string): Value | undefined {
    return this.vals.get(name) ?? this.up?.get(name);
  }
  set(name: string, v: Value): void {
    this.vals.set(name, v);
  }
}

export class FromRelayError extends Error {
  override readonly name = 'FromRelayError';
  constructor(
    message: string,
    readonly pos: Pos,
  ) {
    super(`FromRelay ${pos.line}:${pos.col}: ${message}`);
  }
}

export interface FromRelayOptions {
  /** Where the graph's parameters live (default CPU). */
  readonly device?: Device;
  /**
   * Metatable entries by kind, for programs that read `meta[relay.Constant][k]` without a `#[metadata]` section:
   * `{ 'relay.Constant': [w0, w1, ...] }`. Given entries win over the section's.
   */
  readonly meta?: Readonly<Record<string, readonly Tensor[]>>;
  /** Sizes for `?` dimensions of @main's parameters, by parameter name (`{ x: [4, 3] }`). */
  readonly shapes?: Readonly<Record<string, readonly number[]>>;
}

/** How deep inlined calls may nest: a recursion that depends on graph values never ends while converting. */
const MAX_DEPTH = 64;

/** RAF ops whose positional order differs from raf-op's: RAF's order → raf-op's argument names. */
const RAF_ORDER: Readonly<Record<string, readonly string[]>> = {
  nll_loss: ['target', 'x'],
};

function isTensor(v: unknown): v is Tensor {
  return v instanceof Tensor;
}
function isLit(v: unknown): v is Lit {
  return typeof v === 'object' && v !== null && (v as Lit).kind === 'lit';
}
function isClosure(v: unknown): v is Closure {
  return typeof v === 'object' && v !== null && (v as Closure).kind === 'closure';
}

function runtimeDtype(d: string, what: string, pos: Pos): DType {
  if (isDType(d)) return d;
  throw new FromRelayError(
    `${what} has dtype '${d}', which raf-op's runtime does not have (it has ${DTYPES.join(', ')})`,
    pos,
  );
}

function litTensor(l: Lit): Tensor {
  return scalar(l.value, runtimeDtype(l.dtype, `the literal ${l.value}`, l.pos));
}

/** Parses Relay text and converts @main (or the bare fn) into a graph whose params live on `device`. */
export function fromRelay(src: string, opts: FromRelayOptions = {}): Graph {
  const mod = parseRelay(src);
  return convertModule(mod, opts);
}

function convertModule(mod: RelayModule, opts: FromRelayOptions): Graph {
  const device = opts.device ?? CPU;
  const main = mod.main;
  let metadata: Readonly<Record<string, readonly Tensor[]>> | null = null;
  const metaOf = (kind: string, index: number, pos: Pos): Tensor => {
    const given = opts.meta?.[kind]?.[index];
    if (given) return given;
    if (mod.metadata !== null && metadata === null) {
      try {
        metadata = decodeRelayMetadata(mod.metadata);
      } catch (e) {
        throw new FromRelayError(`the #[metadata] section: ${(e as Error).message}`, pos);
      }
    }
    const fromSection = metadata?.[kind]?.[index];
    if (fromSection) return fromSection;
    throw new FromRelayError(
      kind === 'relay.Constant'
        ? `meta[${kind}][${index}] is not supplied: pass it in opts.meta['${kind}'] or keep the program's #[metadata] section`
        : `meta[${kind}][${index}] is not supported here: raf-op reads only relay.Constant entries as values`,
      pos,
    );
  };

  const params: Var[] = main.params.map((p) => {
    const ty = p.type;
    if (!ty || ty.kind !== 'tensor')
      throw new FromRelayError(
        `@main's parameter %${p.name} must have a tensor type (it is ${ty ? describeType(ty) : 'untyped'})`,
        p.pos,
      );
    const dtype = runtimeDtype(ty.dtype, `parameter %${p.name}`, ty.pos);
    const given = opts.shapes?.[p.name];
    const shape = ty.shape.map((d, i) => {
      if (d !== null) {
        if (given && given[i] !== d)
          throw new FromRelayError(`opts.shapes.${p.name} gives ${given[i]} for dimension ${i}, which is ${d}`, p.pos);
        return d;
      }
      if (!given || given.length !== ty.shape.length || !(given[i]! >= 0))
        throw new FromRelayError(
          `parameter %${p.name} has a '?' dimension: give its size in opts.shapes.${p.name} (a raf-op graph has static shapes), or run the program with loadRelay, which converts it once per set of sizes`,
          ty.pos,
        );
      return given[i]!;
    });
    return mkVar({ shape, dtype }, device, p.name);
  });

  const rec = new Recorder();
  let depth = 0;

  const apply = (f: Closure, args: readonly Value[], pos: Pos): Value => {
    if (args.length !== f.fn.params.length)
      throw new FromRelayError(`the function takes ${f.fn.params.length} arguments, got ${args.length}`, pos);
    if (++depth > MAX_DEPTH)
      throw new FromRelayError(
        `calls nest deeper than ${MAX_DEPTH}: a recursion whose end depends on graph inputs cannot be unrolled (a raf-op graph has no loops)`,
        pos,
      );
    try {
      const env = new Env(f.env);
      f.fn.params.forEach((p, i) => env.set(p.name, args[i]!));
      return evaluate(f.fn.body, env);
    } finally {
      depth--;
    }
  };

  /** A value as an op argument: tensors, numbers for literals, arrays for tuples. */
  const operand = (v: Value, pos: Pos, materialize: boolean): unknown => {
    if (isTensor(v)) return v;
    if (isLit(v)) return materialize ? litTensor(v) : v.value;
    if (Array.isArray(v)) return v.map((x) => operand(x, pos, true));
    if (isClosure(v)) throw new FromRelayError('a function value cannot be an op argument', pos);
    return (v as Raw).value;
  };

  const evaluate = (e: RelayExpr, env: Env): Value => {
    switch (e.kind) {
      case 'var': {
        const v = env.get(e.name);
        if (v === undefined) throw new FromRelayError(`unbound variable %${e.name}`, e.pos);
        return v;
      }
      case 'global': {
        const f = mod.functions.get(e.name);
        if (!f) throw new FromRelayError(`no global function @${e.name}`, e.pos);
        return { kind: 'closure', fn: f, env: new Env(null) };
      }
      case 'const':
        return { kind: 'lit', value: e.value, dtype: e.dtype, pos: e.pos };
      case 'meta':
        return metaOf(e.meta, e.index, e.pos);
      case 'list':
        return { kind: 'raw', value: e.value };
      case 'tuple':
        return e.items.map((i) => evaluate(i, env));
      case 'item': {
        const t = evaluate(e.tuple, env);
        if (!Array.isArray(t) || e.index >= t.length)
          throw new FromRelayError(`.${e.index} of a value that is not a tuple of more than ${e.index} items`, e.pos);
        return (t as readonly Value[])[e.index]!;
      }
      case 'fn':
        return { kind: 'closure', fn: e.fn, env };
      case 'apply': {
        const f = evaluate(e.callee, env);
        if (!isClosure(f)) throw new FromRelayError('calling a value that is not a function', e.pos);
        return apply(
          f,
          e.args.map((a) => evaluate(a, env)),
          e.pos,
        );
      }
      case 'let': {
        const inner = new Env(env);
        for (const b of e.bindings) inner.set(b.name, evaluate(b.value, inner));
        return evaluate(e.body, inner);
      }
      case 'if':
        return branch(e, env);
      case 'call':
        return callOp(e, env);
    }
  };

  const branch = (e: Extract<RelayExpr, { kind: 'if' }>, env: Env): Value => {
    const c = evaluate(e.cond, env);
    if (isLit(c)) return evaluate(c.value ? e.then : e.else, env);
    if (!isTensor(c)) throw new FromRelayError("the condition of 'if' must be a bool tensor", e.pos);
    if (c.shape.length !== 0)
      throw new FromRelayError(`the condition of 'if' must be a scalar, not shape [${c.shape}]`, e.pos);
    // Known while converting: the branch is chosen now.
    if (!isSymbolic(c)) return evaluate((c as Tensor).dataSync()[0] ? e.then : e.else, env);
    // A graph value: both branches become graph values and `where` picks (a graph has no control flow).
    const merge = (a: Value, b: Value): Value => {
      if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.map((x, i) => merge(x, b[i]!));
      const ta = isLit(a) ? litTensor(a) : a;
      const tb = isLit(b) ? litTensor(b) : b;
      if (!isTensor(ta) || !isTensor(tb))
        throw new FromRelayError(
          "both branches of an 'if' on a graph value must give tensors or tuples of them",
          e.pos,
        );
      return call('where', [c, ta, tb]) as Tensor;
    };
    return merge(evaluate(e.then, env), evaluate(e.else, env));
  };

  const callOp = (e: Extract<RelayExpr, { kind: 'call' }>, env: Env): Value => {
    const vals = e.args.map((a) => evaluate(a, env));
    if (e.op === 'call_lowered') {
      const [f, tuple] = vals;
      if (!isClosure(f) || !Array.isArray(tuple))
        throw new FromRelayError('call_lowered takes a function and a tuple of its arguments', e.pos);
      return apply(f, tuple as Value[], e.pos);
    }
    // With no tensor among the args, literals become tensors of their own dtype (`add(1, 1)` is int32);
    // beside a tensor, a literal takes the call's dtype as Relay's type inference gives it.
    const anyTensor = vals.some((v) => isTensor(v) || (Array.isArray(v) && v.length > 0));
    const raf = e.op.startsWith('raf.op.');
    // RAF's text passes attrs positionally: True/False there are bools, not bool tensors.
    const args = vals.map((v) =>
      raf && isLit(v) && v.dtype === 'bool' ? v.value !== 0 : operand(v, e.pos, !anyTensor && !raf),
    );
    const attrs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e.attrs)) attrs[k] = v;
    try {
      if (raf) return rafCall(e.op.slice('raf.op.'.length), args, attrs) as Value;
      return convertRelayCall(e.op, args, attrs) as Value;
    } catch (err) {
      if (err instanceof FromRelayError) throw err;
      const msg = (err as Error).message.replace(/^FromRelay: /, '');
      throw new FromRelayError(msg.startsWith(e.op) || msg.includes(`'${e.op}'`) ? msg : `${e.op}: ${msg}`, e.pos);
    }
  };

  const outputs = rec.run(() => {
    const env = new Env(null);
    main.params.forEach((p, i) => env.set(p.name, rec.tensorOf(params[i]!)));
    const flat: Tensor[] = [];
    const collect = (v: Value): void => {
      if (Array.isArray(v)) v.forEach(collect);
      else if (isTensor(v)) flat.push(v);
      else if (isLit(v)) flat.push(litTensor(v));
      else
        throw new FromRelayError(
          `@main returns a function (or a non-tensor value): a raf-op graph returns tensors or tuples of tensors`,
          main.pos,
        );
    };
    collect(evaluate(main.body, env));
    return flat;
  });
  return { params, nodes: rec.nodes, outputs: outputs.map((o) => rec.atomOf(o)) };
}

/** One call of RAF's IR text, `raf.op.NAME(args...)`, on concrete values: what FromRelay runs for such a call. */
export function fromRafCall(name: string, args: readonly unknown[], attrs: Record<string, unknown> = {}): unknown {
  return rafCall(name, args, attrs);
}

/** RAF's IR text: `raf.op.NAME(args...)` passes every argument positionally, attrs included. */
function rafCall(name: string, args: readonly unknown[], attrs: Record<string, unknown>): unknown {
  let op;
  try {
    op = getOp(name);
  } catch {
    throw new Error(`raf.op.${name}: raf-op has no op '${name}'`);
  }
  const order = RAF_ORDER[name];
  if (order) {
    const kw: Record<string, unknown> = { ...attrs };
    order.forEach((n, i) => {
      if (i < args.length) kw[n] = args[i];
    });
    return invoke(op, args.slice(order.length), kw);
  }
  return invoke(op, args, attrs);
}

function describeType(t: RelayType): string {
  return t.kind === 'tuple' ? 'a tuple' : t.kind === 'other' ? `'${t.text}'` : 'a tensor';
}

export { RelayParseError };

/**
 * A Relay program parsed once and run at any sizes its `?` dimensions take: each run binds every `?` of @main's
 * parameters from the tensors given, converts @main once per set of sizes (dtype and shape of every input) and reuses
 * that graph, with its execution plan, at every later run of the same sizes.
 */
export class RelayProgram {
  private readonly mod: RelayModule;
  private readonly graphs = new Map<string, Graph>();

  constructor(
    src: string,
    private readonly opts: Omit<FromRelayOptions, 'shapes'> = {},
  ) {
    this.mod = parseRelay(src);
  }

  /** @main's parameter names, in order. */
  get paramNames(): readonly string[] {
    return this.mod.main.params.map((p) => p.name);
  }

  /** Graphs converted so far: one per set of input sizes. */
  get specializations(): number {
    return this.graphs.size;
  }

  /** The graph for inputs like `xs` (in @main's parameter order), converted on first use. */
  graphFor(xs: readonly Tensor[]): Graph {
    const params = this.mod.main.params;
    if (xs.length !== params.length)
      throw new Error(`RelayProgram.run: @main takes ${params.length} inputs, got ${xs.length}`);
    const key = xs.map((x) => `${x.dtype}[${x.shape.join(',')}]`).join(';');
    let g = this.graphs.get(key);
    if (!g) {
      const shapes: Record<string, readonly number[]> = {};
      params.forEach((p, i) => {
        const declared = p.type?.kind === 'tensor' ? p.type.shape : null;
        const x = xs[i]!;
        if (declared && (x.shape.length !== declared.length || declared.some((d, k) => d !== null && d !== x.shape[k])))
          throw new FromRelayError(
            `parameter %${p.name} is (${declared.map((d) => d ?? '?').join(', ')}), the tensor given for it is ${x.toString()}`,
            p.pos,
          );
        shapes[p.name] = x.shape;
      });
      g = convertModule(this.mod, { ...this.opts, shapes });
      this.graphs.set(key, g);
    }
    return g;
  }

  /** Runs @main on `xs` (one tensor per parameter, in order): one output as a tensor, a tuple as an array. */
  run(...xs: Tensor[]): Tensor | Tensor[] {
    const g = this.graphFor(xs);
    const out = execute(g, xs);
    return out.length === 1 ? out[0]! : out;
  }
}

/** Parses a Relay program for running at any sizes of its `?` dimensions (see RelayProgram). */
export function loadRelay(src: string, opts: Omit<FromRelayOptions, 'shapes'> = {}): RelayProgram {
  return new RelayProgram(src, opts);
}
