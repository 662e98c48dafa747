// Emitter: dialect bridges (schema args → kernel inputs and static attrs, plus the kernel cache key).

import type { Model, OpModel } from '../spec/model.ts';
import { addImport, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { isTensor, tsType, usesDType } from './types.ts';

export function emitBridges(model: Model): EmittedFile[] {
  return model.ops.filter((op) => op.out.shape.kind !== 'host').map(emitBridge);
}

function emitBridge(op: OpModel): EmittedFile {
  const path = paths.bridge(op.name);
  const n = names(op);
  const inputs = op.args.filter(isTensor);
  const attrs = op.args.filter((a) => !isTensor(a));
  return tsFile(path, 'bridge', sourceOf(op), (sf) => {
    addImport(sf, path, paths.runtime('dialect'), ['Bridge'], true);
    addImport(sf, path, paths.runtime('tensor'), ['Tensor', 'TensorType'], true);
    if (usesDType(attrs)) addImport(sf, path, paths.runtime('dtype'), ['DType'], true);
    addImport(sf, path, paths.schema(op.schema), [n.args], true);
    sf.addInterface({
      name: n.inputs,
      isExported: true,
      docs: [`Tensor inputs of raf.op.${op.name} kernels.`],
      properties: inputs.map((a) => ({ name: a.name, type: tsType(a.type), isReadonly: true })),
    });
    sf.addInterface({
      name: n.attrs,
      isExported: true,
      docs: [`Static attrs of raf.op.${op.name} kernels (already checked and normalized).`],
      properties: attrs.map((a) => ({ name: a.name, type: tsType(a.type), isReadonly: true })),
    });
    sf.addTypeAlias({
      name: n.kernelType,
      isExported: true,
      docs: [`The signature every dialect's raf.op.${op.name} kernel has.`],
      // A tuple op's kernel gets one output type per element and returns its tensors in that order.
      type: op.out.tuple
        ? `(inputs: ${n.inputs}, attrs: ${n.attrs}, outs: readonly TensorType[]) => readonly Tensor[]`
        : `(inputs: ${n.inputs}, attrs: ${n.attrs}, out: TensorType) => Tensor`,
    });
    // A Tensor[] input keys on its elements' dtypes (so on their count too, which kernels may unroll on).
    const inputKey = (a: (typeof inputs)[number]) =>
      a.type === 'Tensor'
        ? `\${a.${a.name}.dtype}`
        : a.type === 'Tensor[]'
          ? `\${a.${a.name}.map((t) => t.dtype).join(',')}`
          : `\${a.${a.name} === null ? 'none' : 'some'}`;
    const key = [
      op.out.tuple ? "\${out.map((o) => o.dtype).join(',')}" : '${out.dtype}',
      ...inputs.map(inputKey),
      ...attrs.map((a) => `${a.name}=\${JSON.stringify(a.${a.name})}`),
    ];
    sf.addVariableStatement({
      isExported: true,
      docs: ['Kernels are compiled once per key: dtypes and attrs, never shapes, so one kernel serves every shape.'],
      declarations: [
        {
          name: n.bridge,
          type: `Bridge<${n.args}, ${n.inputs}, ${n.attrs}${op.out.tuple ? ', readonly TensorType[]' : ''}>`,
          initializer: `{
            inputs: (a) => ({ ${inputs.map((i) => `${i.name}: a.${i.name}`).join(', ')} }),
            attrs: (${attrs.length ? 'a' : '_a'}) => ({ ${attrs.map((i) => `${i.name}: a.${i.name}`).join(', ')} }),
            key: (${inputs.length || attrs.length ? 'a' : '_a'}, out) => \`${key.join('|')}\`,
          }`,
        },
      ],
    });
  });
}
