// Places a graph on a device: parameters are typed for it and constants are uploaded once, as a VM loads a model's weights;
// ort regions, CPU-only, dissolve into their calls on the way to another device, and `if` calls compute both branches
// and select (a GPU's condition cannot be read synchronously).

import { device as toDevice, type Device, type DeviceKind } from '../device.ts';
import type { Tensor } from '../tensor.ts';
import { selectBranches } from './control.ts';
import { inferTypes, rebind } from './infer.ts';
import { isAtom, mkConst, mkVar, substitute, type Atom, type CallNode, type Graph, type Node, type Var } from './ir.ts';

/**
 * `g` with each ort region call (ortRegions, which loadOnnx applies on the CPU) replaced by the calls it stands for:
 * onnxruntime runs on the CPU only, so a graph leaving it takes its regions' calls along instead.
 */
export function dissolveOrtRegions(g: Graph): Graph {
  // By name, not by the op object, so moving a graph never loads the ort dialect (absent in a browser).
  const isRegion = (n: Node): n is CallNode => n.kind === 'call' && n.op.name === 'ort_region';
  if (!g.nodes.some(isRegion)) return g;
  return {
    ...g,
    nodes: g.nodes.flatMap((n): Node[] => {
      if (!isRegion(n)) return [n];
      const fn = (n.args[1] as { readonly fn: Graph }).fn;
      const inputs = n.args[0] as readonly Atom[];
      // The body's calls define the region call's own output vars, so readers after it need no change.
      const outer = new Map<Var, Atom>(fn.params.map((p, i) => [p, inputs[i]!]));
      return fn.nodes.map((b) => substitute(b, outer));
    }),
  };
}

export async function moveGraph(g: Graph, target: Device | DeviceKind): Promise<Graph> {
  const d = toDevice(target);
  // Branches first: the calls they inline may be ort regions.
  if (d.kind !== 'cpu') g = dissolveOrtRegions(selectBranches(g));
  const moved = new Map<Tensor, Atom>();
  const collect = (h: Graph): void => {
    for (const n of h.nodes) {
      if (n.kind === 'fused') collect(n.fn);
      const atoms =
        n.kind === 'fused'
          ? n.inputs
          : n.args.flatMap((a) => (isAtom(a) ? [a] : Array.isArray(a) ? a.filter(isAtom) : []));
      for (const a of atoms) if (a.kind === 'const' && a.value.device !== d) moved.set(a.value, a);
    }
    for (const a of h.outputs) if (a.kind === 'const' && a.value.device !== d) moved.set(a.value, a);
  };
  collect(g);
  await Promise.all([...moved.keys()].map(async (t) => moved.set(t, mkConst(await t.to(d)))));
  const sub = (a: Atom): Atom => (a.kind === 'const' ? (moved.get(a.value) ?? a) : a);
  const swap = (h: Graph): Graph => ({
    ...h,
    nodes: h.nodes.map((n): Node =>
      n.kind === 'fused'
        ? // Rule-formed groups belong to whichever dialect serves the device; pattern groups keep their dialect.
          {
            ...n,
            fn: swap(n.fn),
            inputs: n.inputs.map(sub),
            origin: n.origin.by === 'rules' ? { ...n.origin, dialect: d.kind } : n.origin,
          }
        : {
            ...n,
            args: n.args.map((a) =>
              isAtom(a) ? sub(a) : Array.isArray(a) && a.some(isAtom) ? a.map((x) => (isAtom(x) ? sub(x) : x)) : a,
            ),
          },
    ),
    outputs: h.outputs.map(sub),
  });
  const params = g.params.map((p) => mkVar(p.type, d, p.hint));
  // Re-running type inference gives every var the device its declare now computes.
  return inferTypes(rebind(swap(g), params));
}
