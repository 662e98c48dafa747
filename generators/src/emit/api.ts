// Emitter: the op definition (schema, type, declare, passes) and the typed public API with JSDoc.

import type { ArgModel, Model, OpModel } from '../spec/model.ts';
import { checkText } from './docs.ts';
import { addImport, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { apiParamType, isTensor, literal, usesDType } from './types.ts';

export function emitApis(model: Model): EmittedFile[] {
  return model.ops.map(emitApi);
}

function emitApi(op: OpModel): EmittedFile {
  const path = paths.api(op.name);
  const n = names(op);
  const host = op.out.shape.kind === 'host';
  return tsFile(path, 'api', sourceOf(op), (sf) => {
    addImport(sf, path, paths.runtime('dispatch'), ['invoke']);
    addImport(sf, path, paths.runtime('registry'), ['OpDef'], true);
    if (!host) addImport(sf, path, paths.runtime('tensor'), ['Tensor'], true);
    else if (op.args.some(isTensor)) addImport(sf, path, paths.runtime('tensor'), ['Tensor'], true);
    if (usesDType(op.args)) addImport(sf, path, paths.runtime('dtype'), ['DType'], true);
    addImport(sf, path, paths.schema(op.schema), [n.args]);
    addImport(sf, path, paths.type(op.name), [n.declare, n.type]);
    addImport(sf, path, paths.passes(op.name), [n.cast, n.fusion]);
    if (host) addImport(sf, path, paths.ruleStub(op.name), [n.hostValue]);
    sf.addVariableStatement({
      isExported: true,
      docs: [`The base op raf.op.${op.name}; its gradient is installed by the generated registry.`],
      declarations: [
        {
          name: n.opDef,
          type: `OpDef<${n.args}>`,
          initializer: `{
            name: '${op.name}',
            doc: ${literal(op.doc)},
            source: '${op.file}',
            schema: ${n.args},
            tensorArgs: [${op.args
              .filter(isTensor)
              .map((a) => `'${a.name}'`)
              .join(', ')}],
            type: ${n.type},
            declare: ${n.declare},
            fusion: ${n.fusion},
            cast: ${n.cast},
            grad: null,
          }`,
        },
      ],
    });
    const returnType = host ? `ReturnType<typeof ${n.hostValue}>` : op.out.tuple ? 'Tensor[]' : 'Tensor';
    sf.addFunction({
      name: n.fn,
      isExported: true,
      docs: [jsDoc(op)],
      parameters: [
        ...op.args.map((a) => ({
          name: a.name,
          type: apiParamType(a.type),
          ...(a.default ? { initializer: literal(a.default.value) } : {}),
        })),
        // Passed on, so a plain-JS caller's extra arguments are refused by the schema exactly as `call` refuses them.
        { name: 'unexpected', type: 'never[]', isRestParameter: true },
      ],
      returnType,
      statements: [
        `return invoke(${n.opDef}, [${[...op.args.map((a) => a.name), '...unexpected'].join(', ')}]) as ${returnType};`,
      ],
    });
  });
}

function jsDoc(op: OpModel): string {
  const lines = [op.doc, ''];
  for (const a of op.args) lines.push(`@param ${a.name} ${describeArg(a)}`);
  lines.push(`@see ${op.file}`);
  return lines.join('\n');
}

function describeArg(a: ArgModel): string {
  const parts = [a.doc ?? a.type];
  if (a.default) parts.push(`default ${literal(a.default.value)}`);
  if (a.checks.length) parts.push(`checked: ${a.checks.map(checkText).join(', ')}`);
  return parts.join('; ') + '.';
}
