// Emitter: WebGPU dialect ops; elementwise kernels get WGSL rendered from `compute`, others build a hand-written WGSL kernel.

import { freeVars } from '../expr/ast.ts';
import { renderWgsl, wgslHelperSource } from '../expr/render.ts';
import type { Model, OpModel } from '../spec/model.ts';
import { addImport, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { isTensor } from './types.ts';

export const WEBGPU = 'webgpu';

export function emitWebgpuDialect(model: Model): EmittedFile[] {
  return model.ops
    .filter((op) => op.dialects.some((d) => d.name === WEBGPU) && op.out.shape.kind !== 'host')
    .map(emitWebgpuOp);
}

function emitWebgpuOp(op: OpModel): EmittedFile {
  const path = paths.dialect(WEBGPU, op.name);
  const n = names(op);
  const level = op.dialects.find((d) => d.name === WEBGPU)!.level;
  const kernel = n.kernel(WEBGPU);
  return tsFile(path, 'dialect-webgpu', sourceOf(op), (sf) => {
    addImport(sf, path, paths.runtime('dialect'), ['DialectOp'], true);
    addImport(sf, path, paths.bridge(op.name), [n.bridge]);
    addImport(sf, path, paths.bridge(op.name), [n.attrs, n.inputs], true);
    addImport(sf, path, paths.schema(op.schema), [n.args], true);
    if (op.out.tuple) addImport(sf, path, paths.runtime('tensor'), ['TensorType'], true);
    if (op.compute) {
      addImport(sf, path, paths.bridge(op.name), [n.kernelType], true);
      addImport(sf, path, paths.runtime('dialects/webgpu/elementwise'), ['elementwise']);
      sf.addVariableStatement({
        isExported: true,
        docs: [
          `WebGPU kernel of raf.op.${op.name}, its WGSL generated from the compute expression: ${op.compute.source}`,
        ],
        declarations: [{ name: kernel, initializer: `elementwise<${n.kernelType}>(${elementwiseDef(op)})` }],
      });
    } else {
      addImport(sf, path, paths.kernelStub(WEBGPU, op.name), [kernel]);
    }
    sf.addVariableStatement({
      isExported: true,
      docs: [`raf.op.${WEBGPU}.${op.name} at level ${level}.`],
      declarations: [
        {
          name: n.dialectOp(WEBGPU),
          type: `DialectOp<${n.args}, ${n.inputs}, ${n.attrs}${op.out.tuple ? ', readonly TensorType[]' : ''}>`,
          initializer: `{ op: '${op.name}', dialect: '${WEBGPU}', level: ${level}, bridge: ${n.bridge}, build: ${kernel} }`,
        },
      ],
    });
  });
}

/**
 * The ElementwiseDef literal: the expression reads tensors as `v_<name>` and number args as `a_<name>` (prefixed so
 * no spec name collides with a WGSL keyword or builtin); number args become uniforms, so their values share a pipeline.
 */
function elementwiseDef(op: OpModel): string {
  const expr = op.compute!.expr;
  const used = new Set(freeVars(expr));
  const inputs = op.args.filter(isTensor).map((a) => a.name);
  const attrs = op.args.filter((a) => !isTensor(a) && used.has(a.name)).map((a) => a.name);
  const varNames = Object.fromEntries([...inputs.map((t) => [t, `v_${t}`]), ...attrs.map((a) => [a, `a_${a}`])]);
  const isBool = op.out.dtype === 'bool';
  const wgsl = renderWgsl(expr, varNames, 'f32', { as: isBool ? 'bool' : 'num' });
  return `{
    op: '${op.name}',
    inputs: ${JSON.stringify(inputs).replace(/"/g, "'")},
    attrs: ${JSON.stringify(attrs).replace(/"/g, "'")},
    out: '${isBool ? 'bool' : 'float'}',
    expr: ${templateLiteral(wgsl)},
    helpers: ${templateLiteral(wgslHelperSource(expr, 'f32'))},
  }`;
}

/** WGSL as a readable template literal (helpers span lines), escaped for the three characters that matter. */
function templateLiteral(text: string): string {
  return '`' + text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
}
