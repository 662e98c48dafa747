// Prints a graph in the seeds' Relay-like text: `%1 = raf.op.softmax(%x, -1);`, fused groups as primitive functions.

import type { DType } from '../dtype.ts';
import type { TensorType } from '../tensor.ts';
import { IF_OP_NAME, type IfBranches } from './control.ts';
import type { OrtRegion } from './passes/ort-regions.ts';
import { isAtom, type Atom, type Graph, type Node, type TupleOut, type Var } from './ir.ts';

const SUFFIX: { [D in DType]: string } = {
  float16: 'f16',
  float32: 'f',
  float64: 'f64',
  int64: 'i64',
  int32: 'i',
  int8: 'i8',
  uint8: 'u8',
  bool: 'b',
  bfloat16: 'bf16',
  int16: 'i16',
  uint16: 'u16',
  uint32: 'u32',
  uint64: 'u64',
};

export function formatType(t: TensorType): string {
  return `Tensor[(${t.shape.join(', ')}${t.shape.length === 1 ? ',' : ''}), ${t.dtype}]`;
}

export function formatTupleType(ts: readonly TensorType[]): string {
  return `(${ts.map(formatType).join(', ')}${ts.length === 1 ? ',' : ''})`;
}

/** Text of a graph; `types: true` annotates every binding with its inferred type. */
export function printGraph(g: Graph, opts: { types?: boolean } = {}): string {
  return new Printer(opts.types ?? false).fn(g, '', {});
}

class Printer {
  private next = 0;
  constructor(private readonly types: boolean) {}

  fn(g: Graph, indent: string, attrs: Readonly<Record<string, string | number>>, primitive = false): string {
    const names = new Map<Var, string>();
    const params = g.params.map((p, i) => {
      // Primitive functions name their params %p0, %p1, ... as RAF prints them.
      const name = primitive ? `%p${i}` : `%${p.hint ?? `p${i}`}`;
      names.set(p, name);
      return `${name}: ${formatType(p.type)}`;
    });
    const extra = Object.entries(attrs).map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : v}`);
    const lines = [`fn (${[...params, ...extra].join(', ')}) {`];
    const inner = `${indent}  `;
    for (const n of g.nodes) lines.push(...this.node(n, inner, names));
    const outs = g.outputs.map((a) => this.atom(a, names));
    lines.push(`${inner}${outs.length === 1 ? outs[0] : `(${outs.join(', ')})`}`);
    lines.push(`${indent}}`);
    return lines.join('\n');
  }

  private node(n: Node, indent: string, names: Map<Var, string>): string[] {
    const ty = this.types
      ? ` /* ${n.out.kind === 'tuple' ? formatTupleType(n.out.items.map((v) => v.type)) : formatType(n.out.type)} */`
      : '';
    if (n.kind === 'call' && n.op.name === 'ort_region') {
      // An ort region (passes/ort-regions.ts): printed as a fused group of dialect ort, with its ops listed.
      const [inputs, region] = n.args as [readonly Atom[], OrtRegion];
      const attrs = { Primitive: 1, Dialect: 'ort', PatternName: 'ort_region', Ops: region.ops.join(',') };
      const fnName = `%${this.next++}`;
      const text = this.fn(region.fn, indent, attrs, true);
      const args = inputs.map((a) => this.atom(a, names)).join(', ');
      return [`${indent}${fnName} = ${text};`, `${indent}${this.bind(n.out, names)} = ${fnName}(${args});${ty}`];
    }
    if (n.kind === 'call' && n.op.name === IF_OP_NAME) {
      // An `if` call (graph/control.ts): its two branches printed as functions first, then the call naming them.
      const [cond, inputs, branches] = n.args as [Atom, readonly Atom[], IfBranches];
      const [yes, no] = [`%${this.next++}`, `%${this.next++}`];
      const args = inputs.map((a) => this.atom(a, names)).join(', ');
      return [
        `${indent}${yes} = ${this.fn(branches.then, indent, { Branch: 'then' })};`,
        `${indent}${no} = ${this.fn(branches.else, indent, { Branch: 'else' })};`,
        `${indent}${this.bind(n.out, names)} = raf.op.if(${this.atom(cond, names)}, [${args}], ${yes}, ${no});${ty}`,
      ];
    }
    if (n.kind === 'call') {
      const args = n.args.map((a) => this.arg(a, names)).join(', ');
      return [`${indent}${this.bind(n.out, names)} = raf.op.${n.op.name}(${args});${ty}`];
    }
    const o = n.origin;
    const attrs: Record<string, string | number> = { Primitive: 1, Dialect: o.dialect };
    if (o.pattern) attrs.PatternName = o.pattern;
    const fnName = `%${this.next++}`;
    const text = this.fn(n.fn, indent, attrs, true);
    const args = n.inputs.map((a) => this.atom(a, names)).join(', ');
    return [`${indent}${fnName} = ${text};`, `${indent}${this.bind(n.out, names)} = ${fnName}(${args});${ty}`];
  }

  /** Names a node's result; a tuple's elements are Relay's projections of it, `%3.0`, `%3.1`, ... */
  private bind(out: Var | TupleOut, names: Map<Var, string>): string {
    const name = `%${this.next++}`;
    if (out.kind === 'var') names.set(out, name);
    else out.items.forEach((v, i) => names.set(v, `${name}.${i}`));
    return name;
  }

  private atom(a: Atom, names: Map<Var, string>): string {
    if (a.kind === 'var') return names.get(a) ?? '%<free>';
    const t = a.value;
    if (t.size === 1 && t.storage.readSync) return `${formatNumber(t.item())}${SUFFIX[t.dtype]}`;
    return `meta[Constant](${formatType(t)})`;
  }

  private arg(a: unknown, names: Map<Var, string>): string {
    if (isAtom(a)) return this.atom(a, names);
    if (a === null || a === undefined) return 'None';
    if (typeof a === 'boolean') return a ? 'True' : 'False';
    if (typeof a === 'string') return JSON.stringify(a);
    if (Array.isArray(a)) return `[${a.map((x) => this.arg(x, names)).join(', ')}]`;
    return formatNumber(a as number);
  }
}

const formatNumber = (v: number): string => String(v);
