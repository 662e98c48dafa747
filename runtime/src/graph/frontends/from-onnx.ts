// FromOnnx: converts an ONNX model into a raf-op graph through the generated ONNX mappings (one per spec with `onnx:`).

import { CPU, type Device } from '../../device.ts';
import { invoke } from '../../dispatch.ts';
import type { DType } from '../../dtype.ts';
import { Tensor, tensor } from '../../tensor.ts';
import { ONNX_MAPPINGS } from '../../generated/onnx/index.ts';
import { mkVar, type Graph, type Var } from '../ir.ts';
import { ONNX_CONVERSION_RULES } from '../onnx/convert.ts';
import type { OnnxMapping } from '../onnx/mapping.ts';
import { decodeOnnx, type OnnxAttr, type OnnxModel, type OnnxNode, type OnnxTensor } from '../onnx/proto.ts';
import { Recorder } from '../trace.ts';

export interface FromOnnxOptions {
  readonly device?: Device;
  /** Concrete sizes for symbolic input dims (`batch`), by input name. */
  readonly shapes?: Readonly<Record<string, readonly number[]>>;
}

/**
 * The mappings that may import a node, best first: consts must match, and the newest opset the model
 * reaches wins; several ops may share an ONNX op (MatMul is matmul and batch_matmul), so callers try each.
 */
function mappingsFor(node: OnnxNode, opset: number, where: string): OnnxMapping[] {
  const named = ONNX_MAPPINGS.filter((m): m is OnnxMapping => m !== null && m.onnxOp === node.opType);
  if (!named.length)
    throw new Error(
      `FromOnnx ${where}: no raf-op spec maps ONNX op '${node.opType}' (add an onnx: mapping to the op's spec)`,
    );
  const all = named.filter((m) =>
    Object.entries(m.consts).every(([k, v]) => node.attrs.find((a) => a.name === k)?.value === v),
  );
  if (!all.length) {
    const wants = named.map((m) => `raf.op.${m.op.name} needs ${JSON.stringify(m.consts)}`).join('; ');
    throw new Error(`FromOnnx ${where}: this ${node.opType} has attributes no mapping takes (${wants})`);
  }
  const usable = all.filter((m) => m.opset <= opset).sort((a, b) => b.opset - a.opset);
  if (!usable.length) {
    throw new Error(
      `FromOnnx ${where}: ${node.opType} is mapped for opset ${all.map((m) => m.opset).join('/')}, the model imports opset ${opset}`,
    );
  }
  return usable;
}

/** ONNX element type codes a `dtype` arg can take (Cast's `to`). */
const ONNX_DTYPES: Readonly<Record<number, DType>> = {
  1: 'float32',
  6: 'int32',
  9: 'bool',
  10: 'float16',
  11: 'float64',
};

function onnxDType(code: number, where: string): DType {
  const d = ONNX_DTYPES[code];
  if (!d) throw new Error(`FromOnnx ${where}: ONNX element type ${code} has no raf-op dtype`);
  return d;
}

function constTensor(t: OnnxTensor): Tensor {
  // int64 tensors that reach a tensor arg are narrowed to int32, the widest integer dtype the runtime has.
  return tensor(t.values, { dtype: t.dtype === 'int64' ? 'int32' : t.dtype, shape: t.shape });
}

/** Converts ONNX bytes (or a decoded model) to a graph whose params are the model's non-initializer inputs. */
export function fromOnnx(model: Uint8Array | OnnxModel, opts: FromOnnxOptions = {}): Graph {
  const m = model instanceof Uint8Array ? decodeOnnx(model) : model;
  const device = opts.device ?? CPU;
  const rec = new Recorder();
  const consts = new Map<string, OnnxTensor>(m.initializers.map((t) => [t.name, t]));
  const values = new Map<string, Tensor>();
  const params: Var[] = [];
  for (const input of m.inputs) {
    if (consts.has(input.name)) continue;
    const shape = opts.shapes?.[input.name] ?? input.shape;
    if (!shape || shape.some((d) => typeof d !== 'number')) {
      throw new Error(
        `FromOnnx: input '${input.name}' has shape [${input.shape?.join(', ') ?? '?'}]; pass concrete sizes in opts.shapes`,
      );
    }
    if (!input.dtype || input.dtype === 'int64')
      throw new Error(`FromOnnx: input '${input.name}' has dtype ${input.dtype ?? 'unknown'}`);
    const v = mkVar({ shape: shape as number[], dtype: input.dtype }, device, input.name.replace(/\W/g, '_'));
    params.push(v);
    values.set(input.name, rec.tensorOf(v));
  }

  rec.run(() => {
    m.nodes.forEach((node, k) => {
      const where = `node ${k} (${node.name || node.opType})`;
      if (node.opType === 'Constant') {
        const v = node.attrs.find((a) => a.name === 'value');
        if (!v || typeof v.value !== 'object' || Array.isArray(v.value))
          throw new Error(`FromOnnx ${where}: Constant without a tensor 'value'`);
        consts.set(node.outputs[0]!, v.value);
        return;
      }
      const errors: string[] = [];
      for (const map of mappingsFor(node, m.opset, where)) {
        try {
          const result = invoke(map.op, [], argsFor(node, map, values, consts, where)) as Tensor | readonly Tensor[];
          // A tuple op (Split) gives one tensor per node output.
          const outs = result instanceof Tensor ? [result] : result;
          if (outs.length < node.outputs.length)
            throw new Error(`raf.op.${map.op.name} gives ${outs.length} outputs, the node has ${node.outputs.length}`);
          node.outputs.forEach((o, i) => o && values.set(o, outs[i]!));
          return;
        } catch (e) {
          errors.push((e as Error).message);
        }
      }
      throw new Error(`FromOnnx ${where}: ${errors.join('; ')}`);
    });
  });
  const outputs = m.outputs.map((o) => {
    const t = values.get(o.name) ?? (consts.has(o.name) ? constTensor(consts.get(o.name)!) : undefined);
    if (!t) throw new Error(`FromOnnx: graph output '${o.name}' is never computed`);
    return rec.atomOf(t);
  });
  return { params, nodes: rec.nodes, outputs };
}

/** Keyword args of the mapped op for one node: inputs by position, constant inputs as lists, attributes renamed. */
function argsFor(
  node: OnnxNode,
  map: OnnxMapping,
  values: ReadonlyMap<string, Tensor>,
  consts: ReadonlyMap<string, OnnxTensor>,
  where: string,
): Record<string, unknown> {
  const fields = map.op.schema.fields;
  const kw: Record<string, unknown> = {};
  // A Tensor[] arg takes every ONNX input beyond the other mapped ones (Concat's variadic inputs).
  const listAt = map.inputs.findIndex((a) => fields.find((f) => f.name === a)?.type === 'Tensor[]');
  const extra = Math.max(0, node.inputs.length - map.inputs.length);
  const argAt = (i: number) => (listAt < 0 || i < listAt ? i : i <= listAt + extra ? listAt : i - extra);
  node.inputs.forEach((name, i) => {
    if (!name) return;
    const arg = map.inputs[argAt(i)];
    if (!arg)
      throw new Error(
        `${node.opType} has ${node.inputs.length} inputs, raf.op.${map.op.name} maps ${map.inputs.length}`,
      );
    const field = fields.find((f) => f.name === arg)!;
    const c = consts.get(name);
    const conversion = map.convert?.[arg];
    if (field.type.startsWith('Tensor')) {
      const t = values.get(name) ?? (c ? constTensor(c) : undefined);
      if (!t) throw new Error(`input '${name}' is not computed before it is read`);
      if (field.type === 'Tensor[]') kw[arg] = [...((kw[arg] as Tensor[] | undefined) ?? []), t];
      else kw[arg] = t;
    } else if (conversion) {
      if (!c)
        throw new Error(`input '${name}' must be a constant, raf.op.${map.op.name} takes '${arg}' as ${field.type}`);
      kw[arg] = ONNX_CONVERSION_RULES[conversion].fromOnnx(c.values as number[], node.outputs.length);
    } else {
      // ONNX passes some of our non-tensor args as constant inputs (ReduceSum's axes, Reshape's shape).
      if (!c)
        throw new Error(`input '${name}' must be a constant, raf.op.${map.op.name} takes '${arg}' as ${field.type}`);
      kw[arg] = field.type.startsWith('int[]') || field.type === 'int|int[]' ? c.values : c.values[0];
    }
  });
  // An omitted input still has a value of ours (Split without sizes: as many equal sections as outputs).
  for (const [arg, conversion] of Object.entries(map.convert ?? {})) {
    if (!(arg in kw)) kw[arg] = ONNX_CONVERSION_RULES[conversion].fromOnnx(null, node.outputs.length);
  }
  // An omitted attribute means ONNX's default, not ours (ReduceSum keeps dims unless told otherwise).
  const given = new Set(node.attrs.map((a) => a.name));
  const omitted = Object.entries(map.defaults ?? {})
    .filter(([k]) => !given.has(k))
    .map(([name, value]) => ({ name, value }));
  for (const a of [...node.attrs, ...omitted]) {
    if (a.name in map.consts) continue;
    const arg = map.attrs[a.name];
    if (!arg)
      throw new Error(
        `${node.opType} attribute '${a.name}' has no raf.op.${map.op.name} arg; mapped: ${Object.keys(map.attrs).join(', ') || 'none'}`,
      );
    const field = fields.find((f) => f.name === arg)!;
    kw[arg] =
      field.type === 'bool'
        ? Boolean(a.value)
        : field.type.startsWith('dtype') && typeof a.value === 'number'
          ? onnxDType(a.value, where)
          : a.value;
  }
  return kw;
}
