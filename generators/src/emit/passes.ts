// Emitter: what graph passes read per op: cast rule (AutoCast), fusion pattern (FuseTVM) and the compute expression fused kernels inline.

import { freeVars } from '../expr/ast.ts';
import type { Model, OpModel } from '../spec/model.ts';
import { addImport, GENERATED, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';

const COMPUTE_INDEX = `${GENERATED}/passes/index.ts`;
const computeName = (op: OpModel) => `${names(op).fn}Compute`;

export function emitPasses(model: Model): EmittedFile[] {
  return [...model.ops.map(emitPass), emitComputeIndex(model)];
}

function emitPass(op: OpModel): EmittedFile {
  const path = paths.passes(op.name);
  const n = names(op);
  return tsFile(path, 'passes', sourceOf(op), (sf) => {
    addImport(sf, path, paths.runtime('vocab'), ['CastRule', 'FusionPattern'], true);
    sf.addVariableStatement({
      isExported: true,
      declarations: [{ name: n.fusion, type: 'FusionPattern', initializer: `'${op.fusion}'` }],
      docs: [`Fusion pattern of raf.op.${op.name}.`],
    });
    sf.addVariableStatement({
      isExported: true,
      declarations: [
        {
          name: n.cast,
          type: 'CastRule | null',
          initializer: op.cast
            ? `{ rule: '${op.cast.rule}', dataArgs: [${op.cast.dataArgs.map((a) => `'${a}'`).join(', ')}] }`
            : 'null',
        },
      ],
      docs: [
        op.cast
          ? `AMP cast rule of raf.op.${op.name}: ${op.cast.rule} on its data args.`
          : `raf.op.${op.name} states no AMP cast rule.`,
      ],
    });
    if (op.recognize)
      sf.addVariableStatement({
        isExported: true,
        declarations: [
          {
            name: `${n.fn}Recognize`,
            type: 'Readonly<Record<string, readonly string[]>>',
            initializer: JSON.stringify(op.recognize),
          },
        ],
        docs: [
          `The spelled-out form a graph pass rewrites into raf.op.${op.name}: each role and the ops that may play it.`,
        ],
      });
    addImport(sf, path, paths.runtime('graph/expr'), ['ComputeDef'], true);
    sf.addVariableStatement({
      isExported: true,
      declarations: [{ name: computeName(op), type: 'ComputeDef | null', initializer: computeLiteral(op) }],
      docs: [
        op.compute
          ? `Compute expression of raf.op.${op.name} (${op.compute.source}), inlined by fused kernels.`
          : `raf.op.${op.name} has no compute expression; fusion runs its own kernel.`,
      ],
    });
  });
}

function computeLiteral(op: OpModel): string {
  if (!op.compute) return 'null';
  const used = new Set(freeVars(op.compute.expr));
  const tensors = op.args.filter((a) => a.type.startsWith('Tensor') && used.has(a.name)).map((a) => a.name);
  const scalars = op.args.filter((a) => !a.type.startsWith('Tensor') && used.has(a.name)).map((a) => a.name);
  return `{ source: ${JSON.stringify(op.compute.source)}, tensors: ${JSON.stringify(tensors)}, scalars: ${JSON.stringify(scalars)}, expr: ${JSON.stringify(op.compute.expr)} }`;
}

/** Op name → compute expression, for the fusion passes (changes only when ops are added or removed). */
function emitComputeIndex(model: Model): EmittedFile {
  return tsFile(COMPUTE_INDEX, 'passes', 'specs/**/*.yaml', (sf) => {
    addImport(sf, COMPUTE_INDEX, paths.runtime('graph/expr'), ['ComputeDef'], true);
    for (const op of model.ops) addImport(sf, COMPUTE_INDEX, paths.passes(op.name), [computeName(op)]);
    sf.addVariableStatement({
      isExported: true,
      docs: ["Every op's compute expression (null where the op has none), by op name."],
      declarations: [
        {
          name: 'COMPUTE',
          type: 'Readonly<Record<string, ComputeDef | null>>',
          initializer: `{\n${model.ops.map((op) => `${op.name}: ${computeName(op)}`).join(',\n')}\n}`,
        },
      ],
    });
  });
}
