// ort regions (RAF's FuseDialect for a library backend): maximal connected regions of calls that onnxruntime can run
// become one ONNX model and one session each, run as one call; the rest of the graph stays on raf-op's kernels.

import { CPU } from '../../device.ts';
import { OpError } from '../../errors.ts';
import { allDialectOps, enabledDialects, registerDialectOps, type AnyDialectOp } from '../../dialect.ts';
import {
  buildNode,
  expressible,
  ortOpSpec,
  ortType,
  work as callWork,
  type OrtNode,
} from '../../dialects/ort/kernel.ts';
import '../../dialects/ort/index.ts';
import { ortMissing } from '../../dialects/ort/load.ts';
import { ORT_DIALECT, ORT_HEAVY_LEVEL, ortMinWork } from '../../dialects/ort/policy.ts';
import { openRegion, type OrtRegionRunner, type RegionNode, type RegionValue } from '../../dialects/ort/region.ts';
import type { DType } from '../../dtype.ts';
import type { AnyOpDef } from '../../registry.ts';
import { Tensor, type TensorType } from '../../tensor.ts';
import { allNodes, mapBranches } from '../control.ts';
import { execute } from '../executor.ts';
import {
  definedVars,
  eliminateDeadCode,
  isAtom,
  mkVar,
  nodeInputs,
  typeOfAtom,
  type Atom,
  type CallNode,
  type Graph,
  type Node,
  type Var,
} from '../ir.ts';
import { Recorder } from '../trace.ts';

/** What an ort region call carries: its calls as a primitive function over its inputs, and its session. */
export interface OrtRegion {
  readonly kind: 'ort_region';
  /** The region's calls over params standing for its inputs (printed by printGraph; run call by call unpinned). */
  readonly fn: Graph;
  /** Base ops of the region's calls, in order. */
  readonly ops: readonly string[];
  readonly outTypes: readonly TensorType[];
  readonly runner: OrtRegionRunner;
  /** Elements its calls read and write. */
  readonly work: number;
}

export const ORT_REGION_OP_NAME = 'ort_region';

interface RegionArgs {
  readonly inputs: readonly Tensor[];
  readonly region: OrtRegion;
}

/**
 * The op of a region call: `ort_region(inputs, region)`, a tuple of the region's outputs. It is no base op (not in the
 * registry); the ort dialect serves it, and a cpu dialect op runs the region's calls one by one where ort is not enabled.
 */
export const ORT_REGION_OP: AnyOpDef = {
  name: ORT_REGION_OP_NAME,
  doc: 'Calls run as one onnxruntime session (an ort region).',
  schema: {
    fields: [],
    parse: (_op: string, positional: readonly unknown[]): RegionArgs => ({
      inputs: positional[0] as Tensor[],
      region: positional[1] as OrtRegion,
    }),
  },
  tensorArgs: ['inputs'],
  type: (a: RegionArgs) => ({
    args: a,
    out: a.region.outTypes.length === 1 ? a.region.outTypes[0]! : a.region.outTypes,
  }),
  declare: (a: RegionArgs) => {
    const device = a.inputs[0]?.device ?? CPU;
    const outs = a.region.outTypes;
    return outs.length === 1
      ? { kind: 'tensor', args: a, out: outs[0]!, device }
      : { kind: 'tuple', args: a, outs, device };
  },
  fusion: 'opaque',
  cast: null,
  // No gradient through onnxruntime: a backward reaching a region says so instead of treating it as a constant.
  grad: {
    saves: [],
    inputs: ['inputs'],
    fn: () => {
      throw new OpError(
        ORT_REGION_OP_NAME,
        'an ort region has no gradient: differentiate the graph before ortRegions, or leave the regions out',
      );
    },
  },
  source: 'runtime/src/graph/passes/ort-regions.ts',
};

const regionBridge = {
  inputs: (a: RegionArgs) => ({ inputs: a.inputs }),
  attrs: (a: RegionArgs) => a.region,
  key: () => 'region',
};

/** A region call's result: its one output, or the list of them. */
const result = (region: OrtRegion, outs: Tensor[]): Tensor | Tensor[] =>
  region.outTypes.length === 1 ? outs[0]! : outs;

if (!ortMissing())
  registerDialectOps([
    {
      op: ORT_REGION_OP_NAME,
      dialect: ORT_DIALECT,
      level: ORT_HEAVY_LEVEL,
      bridge: regionBridge,
      build: () => (ins: { inputs: readonly Tensor[] }, region: OrtRegion) => {
        if (region.runner.released) return result(region, region.runner.run(ins.inputs)); // says it was released
        try {
          return result(region, region.runner.run(ins.inputs));
        } catch {
          // onnxruntime refused the values (an index out of range, a shape a Reshape cannot take): the region's calls
          // run again one by one on raf-op's kernels, whose error names the op and the argument; where they succeed,
          // their result stands.
          return result(region, execute(region.fn, ins.inputs));
        }
      },
    },
    {
      op: ORT_REGION_OP_NAME,
      dialect: 'cpu',
      level: 0,
      bridge: regionBridge,
      build: () => (ins: { inputs: readonly Tensor[] }, region: OrtRegion) =>
        result(region, execute(region.fn, ins.inputs)),
    },
  ] as AnyDialectOp[]);

/**
 * Releases the onnxruntime sessions of `g`'s regions (a session shared with another graph's region stays open until
 * that one is released too); `g`'s regions then refuse to run. Returns how many regions it released.
 */
export function releaseOrtRegions(g: Graph): number {
  let n = 0;
  for (const node of allNodes(g))
    if (isOrtRegion(node)) {
      node.args[1].runner.dispose();
      n++;
    }
  return n;
}

/** Whether `n` is an ort region's call (its region in `args[1]`). */
export function isOrtRegion(n: Node): n is CallNode & { readonly args: readonly [readonly Atom[], OrtRegion] } {
  return n.kind === 'call' && n.op === ORT_REGION_OP;
}

export interface OrtRegionOptions {
  /**
   * Keep every region of two or more calls, whatever its work (default: only where ort is pinned at the pass, by
   * `withDialect(['ort', ...])`); otherwise a region is kept when the calls of ops with a work threshold (policy.ts)
   * reach it together: their works, each as a share of its op's threshold, sum to 1 or more.
   */
  readonly all?: boolean;
  /**
   * Where the region's float constants (weights) go: `'initializers'` (default) writes them into the model, so
   * onnxruntime folds them (batch norm into conv) and pre-packs them, at the cost of a model (and a session key) as
   * large as the weights; `'inputs'` feeds them to the session every run, as graph inputs (a smaller model, 4–5×
   * slower on ppocr-cls-mobile-v2, where onnxruntime reworks the weights each run).
   */
  readonly weights?: 'inputs' | 'initializers';
}

/**
 * Element types a region takes and returns: those onnxruntime has. int64 (stored as float64) is converted on the way
 * in and out, a copy of what are small tensors in practice (token ids, masks, shapes); inside a region it stays int64.
 */
const passes = (d: DType): boolean => ortType(d) !== undefined;

interface Candidate {
  readonly node: CallNode;
  readonly built: OrtNode;
  readonly outputs: readonly string[];
  readonly work: number;
  /** The call's work as a share of its op's threshold (policy.ts), 0 for an op without one. */
  readonly share: number;
}

/**
 * How many of its heavy ops' thresholds a region's calls reach together: a region is kept at 1 or more, when the
 * matmuls, convolutions and recurrences in it do as much work as one call that onnxruntime takes alone. One session run
 * then stands for many calls, so calls below their threshold, each of which would lose to wasm on its own (onnxruntime's
 * per-call cost), win together: BERT at sequence 128, whose dense layers are 128×128 (a third of matmul's threshold
 * each), runs as one region (docs/performance.md).
 */
function heavyShare(cs: readonly Candidate[]): number {
  return cs.reduce((s, c) => s + c.share, 0);
}

/**
 * Forms ort regions in `g`: maximal connected sets of calls whose ops have an ONNX mapping the ort dialect can build
 * (float and narrow integer types, on the CPU), with no path leaving a region and coming back into it, each becoming
 * one call of a model with several nodes. Does nothing where the ort dialect is unavailable (a browser, no
 * onnxruntime-node, RAF_OP_ORT=0). A call onnxruntime refuses inside a model splits its region around it.
 */
export function ortRegions(g: Graph, opts: OrtRegionOptions = {}): Graph {
  if (ortMissing() || !allDialectOps(ORT_REGION_OP_NAME).length) return g;
  // The branches of `if` calls (graph/control.ts) form their own regions.
  return mapBranches(regionsOf(g, opts), (b) => regionsOf(b, opts));
}

/** ortRegions over `g`'s own calls. */
function regionsOf(g: Graph, opts: OrtRegionOptions): Graph {
  const keepAll = opts.all ?? enabledDialects()?.includes(ORT_DIALECT) ?? false;
  const sym = new Recorder();
  const names = new Map<Tensor, string>();
  const tensorOf = (a: Atom): Tensor => {
    const t = a.kind === 'var' ? sym.tensorOf(a) : a.value;
    if (!names.has(t)) names.set(t, `v${names.size}`);
    return t;
  };
  const value = (a: unknown): unknown =>
    isAtom(a) ? tensorOf(a) : Array.isArray(a) && a.some(isAtom) ? a.map(value) : a;
  // Every node's outputs, fused groups included: a path through one counts as a path through the outside.
  const producer = new Map<Var, Node>();
  for (const n of g.nodes) for (const v of definedVars(n)) producer.set(v, n);
  for (const p of g.params) tensorOf(p);

  const candidates = new Map<CallNode, Candidate>();
  for (const n of g.nodes) {
    if (n.kind !== 'call') continue;
    for (const v of definedVars(n)) tensorOf(v);
    const c = candidate(n, value, (v) => names.get(sym.tensorOf(v))!, names);
    if (c) candidates.set(n, c);
  }
  if (candidates.size < 2) return g;

  // Readers of each var (nodes, and the graph's outputs as null).
  const readers = new Map<Var, Set<Node | null>>();
  for (const n of g.nodes)
    for (const a of nodeInputs(n)) if (a.kind === 'var') (readers.get(a) ?? readers.set(a, new Set()).get(a)!).add(n);
  for (const a of g.outputs) if (a.kind === 'var') (readers.get(a) ?? readers.set(a, new Set()).get(a)!).add(null);

  const excluded = new Set<CallNode>();
  let built: { members: CallNode[]; region: OrtRegion; inputs: Atom[]; outputs: Var[] }[] = [];
  for (let attempt = 0; attempt < 8; attempt++) {
    // The last attempt's regions are released after this one is built, so the sessions of regions built again
    // (the same model bytes) are taken from the cache rather than opened again.
    const previous = built;
    built = [];
    let failed = false;
    for (const members of grow(g, candidates, excluded, producer)) {
      const cs = members.map((n) => candidates.get(n)!);
      if (!keepAll && heavyShare(cs) < 1) continue;
      const io = regionIO(members, readers, false, opts.weights !== 'inputs');
      if (!io.outputs.length) continue;
      try {
        built.push({ members, inputs: io.inputs, outputs: io.outputs, region: makeRegion(cs, io, names, sym) });
      } catch {
        // Some call onnxruntime refuses in a model (a type it has no kernel for): each is tried alone, and those that
        // fail are left out; where none fails alone, the region's calls stay as they are.
        failed = true;
        let alone = 0;
        for (const n of members) {
          try {
            makeRegion([candidates.get(n)!], regionIO([n], readers, true), names, sym).runner.dispose();
          } catch {
            excluded.add(n);
            alone++;
          }
        }
        if (!alone) for (const n of members) excluded.add(n);
      }
    }
    for (const b of previous) b.region.runner.dispose();
    if (!failed) break;
  }
  if (!built.length) return g;
  return placeRegions(g, built);
}

/** A call the ort dialect can build as a node of a region: its node, output names and work. */
function candidate(
  n: CallNode,
  value: (a: unknown) => unknown,
  outName: (v: Var) => string,
  names: ReadonlyMap<Tensor, string>,
): Candidate | null {
  const spec = ortOpSpec(n.op.name);
  if (!spec || !allDialectOps(n.op.name).some((d) => d.dialect === ORT_DIALECT)) return null;
  const outs = definedVars(n);
  if (outs.some((v) => v.device.kind !== 'cpu' || !passes(v.type.dtype))) return null;
  try {
    const decl = n.op.declare(n.op.schema.parse(n.op.name, n.args.map(value)));
    if (decl.kind === 'value') return null;
    const args = decl.args as Record<string, unknown>;
    if (spec.flatten && args[spec.flatten] === null) return null;
    const ins: Record<string, Tensor | readonly Tensor[] | null> = {};
    for (const t of spec.tensors) {
      const v = args[t] ?? null;
      for (const x of v === null ? [] : v instanceof Tensor ? [v] : (v as Tensor[]))
        if (!(x instanceof Tensor) || !names.has(x) || !passes(x.dtype) || x.device.kind !== 'cpu') return null;
      ins[t] = v as Tensor | Tensor[] | null;
    }
    if (!expressible(spec, args, ins)) return null;
    const outputs = outs.map(outName);
    const node = buildNode(
      spec,
      ins,
      args,
      (t) => {
        const name = names.get(t)!;
        return [name, name];
      },
      `${outputs[0]}_c`,
    );
    const x = node.opType === 'Reshape' ? ins[spec.mapping.inputs[0]!] : null;
    const built =
      x instanceof Tensor && decl.kind === 'tensor' ? reshapeAnyLength(node, x.shape, decl.out.shape) : node;
    const work = callWork(ins, decl.kind === 'tuple' ? decl.outs : decl.out);
    const min = ortMinWork(n.op.name);
    return { node: n, built, outputs, work, share: min === undefined ? 0 : work / min };
  } catch {
    return null;
  }
}

/**
 * A Reshape node whose target says what it can without the lengths it was built for: a dimension the input has at the
 * same place becomes 0 (ONNX: copy the input's) and one other becomes -1 (the rest), the first that is not 1. The
 * node is the same at this shape; at another sequence length or batch the target is often the same too, so the region's
 * model and session serve that graph as well (region.ts). Zero-size shapes keep their target as it is.
 */
function reshapeAnyLength(n: OrtNode, from: readonly number[], to: readonly number[]): OrtNode {
  const name = n.nodeInputs[1];
  const c = name ? n.consts[name] : undefined;
  if (!c || from.includes(0) || to.includes(0)) return n;
  const target = to.map((d, k) => (k < from.length && from[k] === d ? 0 : d));
  const rest = target.findIndex((d) => d > 1);
  if (rest >= 0) target[rest] = -1;
  else if (target.includes(1)) target[target.indexOf(1)] = -1;
  return { ...n, consts: { ...n.consts, [name!]: { ...c, data: target } }, key: `${n.key};any-length` };
}

/**
 * Maximal connected regions of candidate calls, in graph order. A call joins the regions of the calls feeding it unless
 * a path from one of them reaches it through a call outside that region (joining would make a cycle through the
 * outside); two regions merge through a call only when neither reaches the other from outside.
 */
function grow(
  g: Graph,
  candidates: ReadonlyMap<CallNode, Candidate>,
  excluded: ReadonlySet<CallNode>,
  producer: ReadonlyMap<Var, Node>,
): CallNode[][] {
  const parent: number[] = [];
  const find = (r: number): number => {
    while (parent[r] !== r) r = parent[r] = parent[parent[r]!]!;
    return r;
  };
  const members: CallNode[][] = [];
  /** Per region: regions that reach one of its calls through the outside. */
  const badOf: Set<number>[] = [];
  const regionOf = new Map<Node, number>();
  /** Per node: regions it depends on (strict ancestors), and those it depends on through the outside. */
  const deps = new Map<Node, Set<number>>();
  const bad = new Map<Node, Set<number>>();
  const reaches = (from: number, into: number): boolean => [...badOf[into]!].some((x) => find(x) === from);
  for (const n of g.nodes) {
    const d = new Set<number>();
    const b = new Set<number>();
    const feeding = new Set<number>();
    for (const a of nodeInputs(n)) {
      const u = a.kind === 'var' ? producer.get(a) : undefined;
      if (!u) continue;
      const ru = regionOf.get(u);
      const own = ru === undefined ? undefined : find(ru);
      for (const r of bad.get(u)!) b.add(find(r));
      for (const r of deps.get(u)!) {
        const fr = find(r);
        d.add(fr);
        if (fr !== own) b.add(fr);
      }
      if (own !== undefined) {
        d.add(own);
        feeding.add(own);
      }
    }
    deps.set(n, d);
    bad.set(n, b);
    if (n.kind !== 'call' || !candidates.has(n) || excluded.has(n)) continue;
    const joined: number[] = [];
    for (const r of feeding) if (!b.has(r) && joined.every((s) => !reaches(r, s) && !reaches(s, r))) joined.push(r);
    let root: number;
    if (!joined.length) {
      root = parent.length;
      parent.push(root);
      members.push([]);
      badOf.push(new Set());
    } else {
      root = joined[0]!;
      for (const r of joined.slice(1)) {
        parent[r] = root;
        members[root]!.push(...members[r]!);
        members[r] = [];
        for (const x of badOf[r]!) badOf[root]!.add(x);
      }
    }
    members[root]!.push(n);
    for (const x of b) badOf[root]!.add(x);
    regionOf.set(n, root);
  }
  const order = new Map(g.nodes.map((n, i) => [n, i]));
  return members
    .filter((m, r) => find(r) === r && m.length > 1)
    .map((m) => m.sort((x, y) => order.get(x)! - order.get(y)!));
}

/** A constant a region may write into its model (weights, and index or mask constants). */
const bakeable = (a: Atom): boolean => a.kind === 'const' && passes(a.value.dtype) && a.value.device.kind === 'cpu';

interface RegionIO {
  /** Atoms the region reads from outside (vars and constants), in first-use order. */
  readonly inputs: Atom[];
  /** Vars it defines that are read outside it (or all it defines, with `all`). */
  readonly outputs: Var[];
}

function regionIO(
  members: readonly CallNode[],
  readers: ReadonlyMap<Var, Set<Node | null>>,
  all = false,
  bake = false,
): RegionIO {
  const inside = new Set<Node>(members);
  const defined = new Set<Var>(members.flatMap((n) => definedVars(n)));
  const inputs: Atom[] = [];
  const seen = new Set<unknown>();
  for (const n of members)
    for (const a of nodeInputs(n)) {
      const key = a.kind === 'var' ? a : a.value;
      if ((a.kind === 'var' && defined.has(a)) || seen.has(key) || (bake && bakeable(a))) continue;
      seen.add(key);
      inputs.push(a);
    }
  const outputs = [...defined].filter(
    (v) => all || [...(readers.get(v) ?? [])].some((r) => r === null || !inside.has(r)),
  );
  return { inputs, outputs };
}

function makeRegion(
  cs: readonly Candidate[],
  io: RegionIO,
  names: ReadonlyMap<Tensor, string>,
  sym: Recorder,
): OrtRegion {
  const nameOfAtom = (a: Atom): string => names.get(a.kind === 'var' ? sym.tensorOf(a) : a.value)!;
  const nodes: RegionNode[] = cs.map((c) => ({ node: c.built, outputs: c.outputs }));
  const inputs: RegionValue[] = io.inputs.map((a) => ({ name: nameOfAtom(a), type: typeOfAtom(a) }));
  const outputs: RegionValue[] = io.outputs.map((v) => ({ name: nameOfAtom(v), type: v.type }));
  // Constants the region reads that are not among its inputs go into the model (weights: 'initializers').
  const fed = new Set<unknown>(io.inputs.map((a) => (a.kind === 'var' ? a : a.value)));
  const initializers = new Map<string, Tensor>();
  for (const c of cs)
    for (const a of nodeInputs(c.node))
      if (a.kind === 'const' && !fed.has(a.value)) initializers.set(nameOfAtom(a), a.value);
  const runner = openRegion(nodes, inputs, outputs, initializers);
  // The region's calls as a primitive function over its inputs, as applyGroups makes a fused group's.
  const params = new Map<unknown, Var>();
  for (const a of io.inputs)
    params.set(a.kind === 'var' ? a : a.value, mkVar(typeOfAtom(a), a.kind === 'var' ? a.device : CPU));
  const local = (a: Atom): Atom => {
    const p = params.get(a.kind === 'var' ? a : a.value);
    return p ?? a;
  };
  const body: CallNode[] = cs.map(({ node: n }) => ({
    ...n,
    args: n.args.map((a) =>
      isAtom(a) ? local(a) : Array.isArray(a) && a.some(isAtom) ? a.map((x) => (isAtom(x) ? local(x) : x)) : a,
    ),
  }));
  return {
    kind: 'ort_region',
    fn: { params: [...params.values()], nodes: body, outputs: io.outputs },
    ops: cs.map((c) => c.node.op.name),
    outTypes: io.outputs.map((v) => v.type),
    runner,
    work: cs.reduce((s, c) => s + c.work, 0),
  };
}

/** `g` with each region's calls replaced by its region call, placed so every value is made before it is read. */
function placeRegions(
  g: Graph,
  regions: readonly { members: CallNode[]; region: OrtRegion; inputs: Atom[]; outputs: Var[] }[],
): Graph {
  const unitOf = new Map<Node, Node>();
  for (const r of regions) {
    const call: CallNode = {
      kind: 'call',
      op: ORT_REGION_OP,
      args: [r.inputs, r.region],
      out: r.outputs.length === 1 ? r.outputs[0]! : { kind: 'tuple', items: r.outputs },
    };
    for (const n of r.members) unitOf.set(n, call);
  }
  // Units in graph order (a region at its first call), then emitted as soon as everything they read is made.
  const units: Node[] = [];
  const listed = new Set<Node>();
  for (const n of g.nodes) {
    const u = unitOf.get(n) ?? n;
    if (!listed.has(u)) {
      listed.add(u);
      units.push(u);
    }
  }
  const made = new Set<Var>(g.params);
  const ready = (u: Node) => nodeInputs(u).every((a) => a.kind === 'const' || made.has(a));
  const nodes: Node[] = [];
  const left = [...units];
  while (left.length) {
    const i = left.findIndex(ready);
    if (i < 0) throw new Error('ortRegions: a region would read a value made after it (a cycle through the outside)');
    const u = left.splice(i, 1)[0]!;
    nodes.push(u);
    for (const v of definedVars(u)) made.add(v);
  }
  return eliminateDeadCode({ ...g, nodes });
}
