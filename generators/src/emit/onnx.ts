// Emitter: FromOnnx mappings (an ONNX node's inputs and attributes → this op's schema) and their index.

import type { Model, OpModel } from '../spec/model.ts';
import { addImport, camel, GENERATED, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';

const onnxPath = (op: string) => `${GENERATED}/onnx/${op}.ts`;
const ONNX_INDEX = `${GENERATED}/onnx/index.ts`;
const MAPPING = paths.runtime('graph/onnx/mapping');
const mappingName = (op: OpModel) => `${camel(op.name)}Onnx`;

export function emitOnnx(model: Model): EmittedFile[] {
  return [...model.ops.map(emitMapping), emitIndex(model)];
}

function emitMapping(op: OpModel): EmittedFile {
  const path = onnxPath(op.name);
  return tsFile(path, 'onnx', sourceOf(op), (sf) => {
    addImport(sf, path, MAPPING, ['OnnxMapping'], true);
    const o = op.onnx;
    if (!o) {
      sf.addVariableStatement({
        isExported: true,
        docs: [`raf.op.${op.name} has no ONNX mapping.`],
        declarations: [{ name: mappingName(op), type: 'OnnxMapping | null', initializer: 'null' }],
      });
      return;
    }
    addImport(sf, path, paths.api(op.name), [names(op).opDef]);
    const attrs = Object.entries(o.attrs)
      .map(([k, v]) => `${k}: '${v}'`)
      .join(', ');
    sf.addVariableStatement({
      isExported: true,
      docs: [
        `Imports an ONNX ${o.op} node (opset ${o.since} on, in the form of opset ${o.opset}) as raf.op.${op.name}.`,
      ],
      declarations: [
        {
          name: mappingName(op),
          type: 'OnnxMapping | null',
          initializer: `{
            onnxOp: '${o.op}',
            opset: ${o.opset},
            since: ${o.since},${o.before.length ? `\nbefore: ${JSON.stringify(o.before)},` : ''}${
              Object.keys(o.accept).length ? `\naccept: ${JSON.stringify(o.accept)},` : ''
            }
            op: ${names(op).opDef},
            inputs: [${o.inputs.map((a) => `'${a}'`).join(', ')}],
            attrs: { ${attrs} },
            consts: { ${Object.entries(o.consts ?? {})
              .map(([k, v]) => `${k}: ${v}`)
              .join(', ')} },${Object.keys(o.defaults).length ? `\ndefaults: ${JSON.stringify(o.defaults)},` : ''}${
              Object.keys(o.convert).length
                ? `\nconvert: { ${Object.entries(o.convert)
                    .map(([k, v]) => `${k}: '${v}'`)
                    .join(', ')} },`
                : ''
            }
          }`,
        },
      ],
    });
  });
}

function emitIndex(model: Model): EmittedFile {
  return tsFile(ONNX_INDEX, 'onnx', 'specs/**/*.yaml', (sf) => {
    addImport(sf, ONNX_INDEX, MAPPING, ['OnnxMapping'], true);
    for (const op of model.ops) addImport(sf, ONNX_INDEX, onnxPath(op.name), [mappingName(op)]);
    sf.addVariableStatement({
      isExported: true,
      docs: ["Every op's ONNX mapping (null where the op has none), in op order."],
      declarations: [
        {
          name: 'ONNX_MAPPINGS',
          type: 'readonly (OnnxMapping | null)[]',
          initializer: `[\n${model.ops.map(mappingName).join(',\n')}\n]`,
        },
      ],
    });
  });
}
