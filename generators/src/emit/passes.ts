// Emitter: the cast rule (AutoCast) and fusion pattern (FuseTVM) each op registers.

import type { Model, OpModel } from '../spec/model.ts';
import { addImport, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';

export function emitPasses(model: Model): EmittedFile[] {
  return model.ops.map(emitPass);
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
      docs: [op.cast ? `AMP cast rule of raf.op.${op.name}: ${op.cast.rule} on its data args.` : `raf.op.${op.name} states no AMP cast rule.`],
    });
  });
}
