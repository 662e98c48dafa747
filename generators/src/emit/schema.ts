// Emitter: schema classes (typed fields, defaults, positional/keyword parsing, field index table).

import type { Scope } from 'ts-morph';
import type { Model, OpModel } from '../spec/model.ts';
import { addImport, names, paths, tsFile, type EmittedFile } from './files.ts';
import { literal, tsType, usesDType } from './types.ts';

export function emitSchemas(model: Model): EmittedFile[] {
  // One file per schema; ops that reuse a schema (log_softmax → softmax) share it.
  const owners = model.ops.filter((op) => op.schema === op.name);
  return owners.map((op) =>
    emitSchema(
      op,
      model.ops.filter((o) => o.schema === op.name).map((o) => o.name),
    ),
  );
}

function emitSchema(op: OpModel, users: string[]): EmittedFile {
  const path = paths.schema(op.schema);
  const n = names(op);
  return tsFile(path, 'schema', op.file, (sf) => {
    addImport(sf, path, paths.runtime('schema'), ['parseArgs']);
    addImport(sf, path, paths.runtime('schema'), ['FieldSpec', 'Keyword'], true);
    addImport(sf, path, paths.runtime('tensor'), ['Tensor', 'TensorType'], true);
    if (usesDType(op.args)) addImport(sf, path, paths.runtime('dtype'), ['DType'], true);
    const fields = op.args.map(
      (a) => `{ name: '${a.name}', type: '${a.type}'${a.default ? `, default: ${literal(a.default.value)}` : ''} }`,
    );
    sf.addClass({
      name: n.args,
      isExported: true,
      typeParameters: [{ name: 'T', constraint: 'TensorType', default: 'Tensor' }],
      docs: [`Arguments of ${users.map((u) => `raf.op.${u}`).join(', ')}, in positional order.`],
      properties: [
        {
          name: 'fields',
          isStatic: true,
          isReadonly: true,
          type: 'readonly FieldSpec[]',
          initializer: `[\n${fields.join(',\n')}\n]`,
        },
        {
          name: 'index',
          isStatic: true,
          isReadonly: true,
          docs: ['Field name → positional index.'],
          initializer: `{ ${op.args.map((a, i) => `${a.name}: ${i}`).join(', ')} } as const`,
        },
      ],
      ctors: [
        {
          parameters: op.args.map((a) => ({
            name: a.name,
            type: tsType(a.type, 'T'),
            isReadonly: true,
            scope: 'public' as Scope.Public,
          })),
        },
      ],
      methods: [
        {
          name: 'parse',
          isStatic: true,
          docs: ['Reads positional and keyword values, applies defaults and checks types.'],
          parameters: [
            { name: 'op', type: 'string' },
            { name: 'positional', type: 'readonly unknown[]' },
            { name: 'keyword', type: 'Keyword', hasQuestionToken: true },
          ],
          returnType: n.args,
          statements: [
            `const v = parseArgs(op, ${n.args}.fields, positional, keyword);`,
            `return new ${n.args}(${op.args.map((a) => `v.${a.name} as ${tsType(a.type)}`).join(', ')});`,
          ],
        },
        {
          name: 'with',
          docs: ['A copy with some fields replaced (type functions use it to normalize).'],
          parameters: [{ name: 'changes', type: `Partial<${n.args}<T>>` }],
          returnType: `${n.args}<T>`,
          statements: [
            `const v = { ...this, ...changes };`,
            `return new ${n.args}(${op.args.map((a) => `v.${a.name}`).join(', ')});`,
          ],
        },
      ],
    });
  });
}
