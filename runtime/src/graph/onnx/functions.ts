// Model-local functions (ONNX IR 8 and later): a ModelProto may carry FunctionProtos, named subgraphs that nodes of the
// function's domain call as if they were ops (torch's exporters write module boundaries and torchlib helpers this way).
// FromOnnx inlines every call before converting: the body's nodes take the call's inputs and outputs, its own values
// are renamed apart per call, attributes that refer to the call's (`ref_attr_name`) take the call's value or the
// function's default, and calls inside bodies (and inside If/Loop/Scan bodies) are expanded the same way.

import { isOnnxGraph, type OnnxAttr, type OnnxGraph, type OnnxNode } from './proto.ts';

export interface OnnxFunction {
  readonly name: string;
  readonly domain: string;
  readonly overload: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Every attribute the function declares, with or without a default. */
  readonly attributes: readonly string[];
  /** Declared attributes' default values (FunctionProto.attribute_proto). */
  readonly defaults: readonly OnnxAttr[];
  readonly nodes: readonly OnnxNode[];
  /** The default-domain opset the body's nodes follow. */
  readonly opset: number;
}

const keyOf = (domain: string, name: string, overload = '') =>
  `${domain === 'ai.onnx' ? '' : domain}\u0000${name}\u0000${overload}`;

/** `graph` with every call of one of `functions` replaced by the function's body (recursively). */
export function inlineFunctions(graph: OnnxGraph, functions: readonly OnnxFunction[]): OnnxGraph {
  const table = new Map(functions.map((fn) => [keyOf(fn.domain, fn.name, fn.overload), fn]));
  let calls = 0;
  const expandGraph = (g: OnnxGraph, stack: readonly string[]): OnnxGraph => ({
    ...g,
    nodes: g.nodes.flatMap((n) => expandNode(n, stack)),
  });
  const expandAttrs = (attrs: readonly OnnxAttr[], stack: readonly string[]): OnnxAttr[] =>
    attrs.map((a) =>
      isOnnxGraph(a.value)
        ? { ...a, value: expandGraph(a.value, stack) }
        : Array.isArray(a.value) && a.value.length && isOnnxGraph(a.value[0])
          ? { ...a, value: (a.value as OnnxGraph[]).map((sg) => expandGraph(sg, stack)) }
          : a,
    );
  const expandNode = (node: OnnxNode, stack: readonly string[]): OnnxNode[] => {
    const fn = table.get(keyOf(node.domain, node.opType, node.overload));
    if (!fn) return [{ ...node, attrs: expandAttrs(node.attrs, stack) }];
    const name = `${fn.domain ? `${fn.domain}.` : ''}${fn.name}`;
    const where = `FromOnnx node '${node.name || node.opType}' (a call of function '${name}')`;
    if (stack.includes(name))
      throw new Error(`${where}: the function calls itself (${[...stack, name].join(' -> ')}); ONNX forbids recursion`);
    if (node.inputs.length > fn.inputs.length || node.outputs.length > fn.outputs.length)
      throw new Error(
        `${where}: the node has ${node.inputs.length} inputs and ${node.outputs.length} outputs, the function ` +
          `declares ${fn.inputs.length} and ${fn.outputs.length}`,
      );
    for (const a of node.attrs)
      if (!fn.attributes.includes(a.name))
        throw new Error(
          `${where}: attribute '${a.name}' is not one the function declares (${fn.attributes.join(', ') || 'none'})`,
        );
    const call = ++calls;
    const prefix = `${node.name || fn.name}#${call}/`;
    // Formal inputs and outputs become the call's values ('' where the call omits an optional one); every other name
    // in the body (its intermediates, and everything inside its subgraphs) is renamed apart for this call.
    const bound = new Map<string, string>();
    fn.inputs.forEach((formal, i) => bound.set(formal, node.inputs[i] ?? ''));
    fn.outputs.forEach((formal, i) => bound.set(formal, node.outputs[i] ?? ''));
    const rename = (v: string) => (v === '' ? '' : (bound.get(v) ?? `${prefix}${v}`));
    const given = new Map(node.attrs.map((a) => [a.name, a]));
    const defaults = new Map(fn.defaults.map((a) => [a.name, a]));
    const bindAttrs = (attrs: readonly OnnxAttr[]): OnnxAttr[] =>
      attrs.flatMap((a): OnnxAttr[] => {
        if (a.ref !== undefined) {
          // An attribute the call leaves out and the function gives no default for is left out too (ONNX's rule).
          const value = given.get(a.ref) ?? defaults.get(a.ref);
          return value ? [{ name: a.name, value: value.value }] : [];
        }
        if (isOnnxGraph(a.value)) return [{ ...a, value: renameGraph(a.value) }];
        if (Array.isArray(a.value) && a.value.length && isOnnxGraph(a.value[0]))
          return [{ ...a, value: (a.value as OnnxGraph[]).map(renameGraph) }];
        return [a];
      });
    const renameNode = (n: OnnxNode): OnnxNode => ({
      ...n,
      name: `${node.name || fn.name}/${n.name || n.opType}`,
      inputs: n.inputs.map(rename),
      outputs: n.outputs.map(rename),
      attrs: bindAttrs(n.attrs),
      opset: fn.opset,
    });
    const renameGraph = (g: OnnxGraph): OnnxGraph => ({
      ...g,
      nodes: g.nodes.map(renameNode),
      initializers: g.initializers.map((t) => ({ ...t, name: rename(t.name) })),
      inputs: g.inputs.map((v) => ({ ...v, name: rename(v.name) })),
      outputs: g.outputs.map((v) => ({ ...v, name: rename(v.name) })),
    });
    return fn.nodes.map(renameNode).flatMap((n) => expandNode(n, [...stack, name]));
  };
  return expandGraph(graph, []);
}
