// Emitter: CPU dialect ops; elementwise kernels are generated from `compute`, others call a hand-written kernel.

import { freeVars } from '../expr/ast.ts';
import { jsHelpersUsed, renderJs } from '../expr/render.ts';
import type { Model, OpModel } from '../spec/model.ts';
import { addImport, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { isTensor } from './types.ts';

export const CPU = 'cpu';

export function emitCpuDialect(model: Model): EmittedFile[] {
  return model.ops
    .filter((op) => op.dialects.some((d) => d.name === CPU) && op.out.shape.kind !== 'host')
    .map(emitCpuOp);
}

function emitCpuOp(op: OpModel): EmittedFile {
  const path = paths.dialect(CPU, op.name);
  const n = names(op);
  const level = op.dialects.find((d) => d.name === CPU)!.level;
  const kernel = n.kernel(CPU);
  return tsFile(path, 'dialect-cpu', sourceOf(op), (sf) => {
    addImport(sf, path, paths.runtime('dialect'), ['DialectOp'], true);
    addImport(sf, path, paths.bridge(op.name), [n.bridge]);
    addImport(sf, path, paths.bridge(op.name), [n.attrs, n.inputs], true);
    addImport(sf, path, paths.schema(op.schema), [n.args], true);
    if (op.out.tuple) addImport(sf, path, paths.runtime('tensor'), ['TensorType'], true);
    if (op.compute) {
      addImport(sf, path, paths.bridge(op.name), [n.kernelType], true);
      addImport(sf, path, paths.runtime('dialects/cpu/support'), ['allocOut', 'broadcastRows', 'finish']);
      const helpers = [
        ...new Set([
          ...jsHelpersUsed(op.compute.expr),
          ...(int32Form(op) ? jsHelpersUsed(op.compute.expr, { int32: true }) : []),
        ]),
      ].sort();
      if (helpers.length) addImport(sf, path, paths.runtime('dialects/cpu/math'), helpers);
      sf.addVariableStatement({
        isExported: true,
        docs: [`CPU kernel of raf.op.${op.name}, generated from its compute expression: ${op.compute.source}`],
        declarations: [{ name: kernel, type: n.kernelType, initializer: computeKernel(op) }],
      });
    } else {
      addImport(sf, path, paths.kernelStub(CPU, op.name), [kernel]);
    }
    sf.addVariableStatement({
      isExported: true,
      docs: [`raf.op.${CPU}.${op.name} at level ${level}.`],
      declarations: [
        {
          name: n.dialectOp(CPU),
          type: `DialectOp<${n.args}, ${n.inputs}, ${n.attrs}${op.out.tuple ? ', readonly TensorType[]' : ''}>`,
          initializer: `{ op: '${op.name}', dialect: '${CPU}', level: ${level}, bridge: ${n.bridge}, build: () => ${kernel} }`,
        },
      ],
    });
  });
}

/**
 * Loops over the output as contiguous runs (see broadcastRows): each input is read at its own index, which steps by
 * 1 along a run, or stays put for an input constant along it (a per-row scalar such as a [1, C, 1, 1] bias), so a
 * broadcast costs no index map and same-shape inputs are one run.
 */
function computeKernel(op: OpModel): string {
  const tensors = op.args.filter(isTensor).map((a) => a.name);
  const attrs = op.args.filter((a) => !isTensor(a)).map((a) => a.name);
  const valueNames = Object.fromEntries([...tensors.map((t) => [t, `${t}v`]), ...attrs.map((a) => [a, a])]);
  const value = renderJs(op.compute!.expr, valueNames);
  // An int32 result of a product takes the exact wrapping form (mulInt32); other dtypes keep the plain one.
  const store = int32Form(op)
    ? `r[o] = int32 ? ${renderJs(op.compute!.expr, valueNames, { int32: true })} : ${value};`
    : `r[o] = ${value};`;
  const lines = [
    `(${tensors.length ? `{ ${tensors.join(', ')} }` : '_inputs'}, ${attrs.length ? `{ ${attrs.join(', ')} }` : '_attrs'}, out) => {`,
    'const result = allocOut(out);',
    // uint32 takes the same form: Math.imul's low 32 bits, stored into a Uint32Array, are the unsigned product's.
    ...(int32Form(op) ? ["const int32 = out.dtype === 'int32' || out.dtype === 'uint32';"] : []),
    'const r = result.dataSync();',
    ...tensors.map((t) => `const ${t}s = ${t}.dataSync();`),
    `const plan = broadcastRows(out.shape, [${tensors.map((t) => `${t}.shape`).join(', ')}]);`,
    ...tensors.flatMap((t, k) => [`const ${t}0 = plan.starts[${k}]!;`, `const ${t}d = plan.steps[${k}]!;`]),
    'const inner = plan.inner;',
    'for (let row = 0, o = 0; row < plan.rows; row++) {',
    ...tensors.map((t) => `let ${t}j = ${t}0[row]!;`),
    `for (const end = o + inner; o < end; o++${tensors.map((t) => `, ${t}j += ${t}d`).join('')}) {`,
    ...tensors.map((t) => `const ${t}v = ${t}s[${t}j]!;`),
    store,
    '}',
    '}',
    'return finish(result);',
    '}',
  ];
  return lines.join('\n');
}

/**
 * Whether the op's kernel needs an int32 form: its result may be int32 (its inputs are not promoted to float) and its
 * expression multiplies, where a float64 product beyond 2^53 would lose the low bits int32 wrapping keeps.
 */
function int32Form(op: OpModel): boolean {
  // Backward ops synthesized from a compute expression carry float gradients only.
  if (!op.compute || op.promote === 'float' || op.derivedFrom) return false;
  const names = Object.fromEntries(freeVars(op.compute.expr).map((v) => [v, v]));
  return renderJs(op.compute.expr, names, { int32: true }) !== renderJs(op.compute.expr, names);
}
