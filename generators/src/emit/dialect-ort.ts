// Emitter: the ort dialect (onnxruntime-node on Node): one dialect op per op with an ONNX mapping, all from the spec —
// the mapping (generated/onnx/), the bridge's cache key, which args are tensors and which are floats. Its index
// registers them where the dialect can run (runtime/src/dialects/ort/).

import type { Model, OpModel } from '../spec/model.ts';
import { addImport, camel, GENERATED, names, paths, tsFile, type EmittedFile } from './files.ts';
import { carriedArgs, fixedArgs } from '../spec/targets.ts';
import { isTensor } from './types.ts';

export const ORT = 'ort';
const ORT_INDEX = `${GENERATED}/dialects/${ORT}/index.ts`;
const onnxPath = (op: string) => `${GENERATED}/onnx/${op}.ts`;

/** Ops the ort dialect serves: an ONNX mapping and a tensor result (host-shaped results stay on the CPU dialect). */
export const ortServes = (op: OpModel): boolean => op.onnx !== null && op.out.shape.kind !== 'host';

export function emitOrtDialect(model: Model): EmittedFile[] {
  const ops = model.ops.filter(ortServes);
  return [
    tsFile(ORT_INDEX, 'dialect-ort', 'specs/**/*.yaml', (sf) => {
      addImport(sf, ORT_INDEX, paths.runtime('dialect'), ['registerDialectOps']);
      addImport(sf, ORT_INDEX, paths.runtime('dialects/ort/index'), ['ortDialectOp', 'ortUnavailable']);
      // The base ops (and their mappings) first: this index may be imported before the registry's.
      sf.addImportDeclaration({ moduleSpecifier: '../../index.ts' });
      for (const op of ops) {
        addImport(sf, ORT_INDEX, onnxPath(op.name), [`${camel(op.name)}Onnx`]);
        addImport(sf, ORT_INDEX, paths.bridge(op.name), [names(op).bridge]);
      }
      sf.addVariableStatement({
        isExported: true,
        docs: [
          'raf.op.ort.NAME for every op with an ONNX mapping, in op order (level and threshold: dialects/ort/policy.ts).',
        ],
        declarations: [{ name: 'ORT_OPS', initializer: `[\n${ops.map(dialectOp).join(',\n')}\n]` }],
      });
      sf.addStatements([
        '// Absent (no dialect ops at all) in a browser, without onnxruntime-node, or with RAF_OP_ORT=0.',
        'if (!ortUnavailable()) registerDialectOps(ORT_OPS);',
      ]);
    }),
  ];
}

function dialectOp(op: OpModel): string {
  const o = op.onnx!;
  const fixed = fixedArgs(op, 'onnx');
  const carried = carriedArgs(op, 'onnx');
  const uncarried = op.args.filter((a) => isTensor(a) && !carried.has(a.name)).map((a) => a.name);
  const fields = [
    `op: '${op.name}'`,
    `mapping: ${camel(op.name)}Onnx!`,
    `bridge: ${names(op).bridge}`,
    `tensors: ${JSON.stringify(op.args.filter(isTensor).map((a) => a.name))}`,
    `floats: ${JSON.stringify(op.args.filter((a) => a.type.startsWith('float')).map((a) => a.name))}`,
    ...(o.flatten ? [`flatten: '${o.flatten}'`] : []),
    // What the mapping cannot express: an arg it leaves out set off its default, or a tensor it does not pass given.
    ...(Object.keys(fixed).length ? [`fixed: ${JSON.stringify(fixed)}`] : []),
    ...(uncarried.length ? [`uncarried: ${JSON.stringify(uncarried)}`] : []),
    ...(op.out.outputs ? [`outputs: ${op.out.outputs.length}`] : []),
  ];
  return `ortDialectOp({ ${fields.join(', ')} })`;
}
