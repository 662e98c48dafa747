// Emitter: the typed registry (every op, gradient, dialect op and converter, installed once) and the API index.

import type { Model } from '../spec/model.ts';
import { addImport, names, paths, tsFile, type EmittedFile } from './files.ts';

const ALL_SPECS = 'specs/**/*.yaml';

export function emitRegistry(model: Model): EmittedFile[] {
  const index = paths.index();
  const registry = tsFile(index, 'registry', ALL_SPECS, (sf) => {
    addImport(sf, index, paths.runtime('registry'), ['installOps']);
    addImport(sf, index, paths.runtime('dialect'), ['registerDialectOps']);
    addImport(sf, index, paths.runtime('relay'), ['installRelayConverters']);
    // Each dialect used by a spec registers itself (and, off the CPU, its device mover) when its module loads.
    const dialectNames = [...new Set(['cpu', ...model.ops.flatMap((op) => op.dialects.map((d) => d.name))])].sort();
    for (const d of dialectNames) sf.addImportDeclaration({ moduleSpecifier: `../dialects/${d}/index.ts` });
    const dialectOps: string[] = [];
    for (const op of model.ops) {
      const n = names(op);
      addImport(sf, index, paths.api(op.name), [n.opDef]);
      addImport(sf, index, paths.grad(op.name), [n.grad]);
      addImport(sf, index, paths.relay(op.name), [n.relay]);
      for (const d of op.dialects) {
        if (op.out.shape.kind === 'host') continue;
        addImport(sf, index, paths.dialect(d.name, op.name), [n.dialectOp(d.name)]);
        dialectOps.push(n.dialectOp(d.name));
      }
    }
    sf.addVariableStatement({
      isExported: true,
      docs: ['Every base op, by name.'],
      declarations: [
        {
          name: 'OPS',
          initializer: `{\n${model.ops.map((op) => `${op.name}: ${names(op).opDef}`).join(',\n')}\n} as const`,
        },
      ],
    });
    sf.addTypeAlias({ name: 'OpName', isExported: true, type: 'keyof typeof OPS' });
    sf.addStatements([
      '// Gradients are attached here rather than in each op file, so gradient ↔ op import cycles never see an uninitialized binding.',
      ...model.ops.map((op) => `${names(op).opDef}.grad = ${names(op).grad};`),
      'installOps(OPS);',
      `registerDialectOps([\n${dialectOps.join(',\n')}\n]);`,
      `installRelayConverters([\n${model.ops.map((op) => names(op).relay).join(',\n')}\n]);`,
    ]);
  });
  const opsIndex = paths.opsIndex();
  const api = tsFile(opsIndex, 'registry', ALL_SPECS, (sf) => {
    for (const op of model.ops) {
      sf.addExportDeclaration({ moduleSpecifier: `./api/${op.name}.ts`, namedExports: [names(op).fn] });
    }
    const schemas = model.ops.filter((op) => op.schema === op.name);
    for (const op of schemas) {
      sf.addExportDeclaration({
        moduleSpecifier: `./schema/${op.name}.ts`,
        namedExports: [names(op).args],
        isTypeOnly: true,
      });
    }
  });
  return [registry, api];
}
