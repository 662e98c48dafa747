// Emitter: type functions (arg checks with the seeds' messages, output type) and declare functions.

import type { ArgModel, Check, Model, OpModel } from '../spec/model.ts';
import { addImport, camel, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { isTensor, literal } from './types.ts';

export function emitTypes(model: Model): EmittedFile[] {
  return model.ops.map(emitType);
}

function emitType(op: OpModel): EmittedFile {
  const path = paths.type(op.name);
  const n = names(op);
  const checkFns = new Set<string>();
  const normalized: string[] = [];
  const body: string[] = [];
  const promoted = op.promote ? op.args.filter((a) => a.type === 'Tensor' || a.type === 'Tensor?') : [];
  if (op.promote) {
    // The spec's promote rule: int32/bool tensor args compute in a float dtype, or are refused (runtime/src/promote.ts).
    body.push(`const promotedDtype = promotionTarget([${promoted.map((a) => `args.${a.name}`).join(', ')}]);`);
    for (const a of promoted) {
      body.push(
        `const ${promotedName(a)} = promote('${op.name}', '${a.name}', args.${a.name}, '${op.promote}', promotedDtype);`,
      );
    }
  }
  for (const a of op.args) {
    for (const c of a.checks) {
      if (c.kind === 'values') {
        // The rule reads this tensor's values: known ones, or a clear error (in a graph: not a constant).
        checkFns.add('argValues');
        body.push(`const ${valuesName(a)} = argValues('${op.name}', '${a.name}', args.${a.name});`);
        continue;
      }
      const stmt = checkStatement(op, a, c, checkFns);
      if (c.kind === 'axis' || c.kind === 'axes') {
        body.push(`const ${a.name} = ${stmt};`);
        normalized.push(a.name);
      } else body.push(`${stmt};`);
    }
  }
  const out = outExpression(op, normalized, checkFns, body);
  const hand: string[] = [];
  if (op.out.shape.kind === 'custom') hand.push(camel(op.out.shape.fn));
  if (op.out.shape.kind === 'host') hand.push(n.rule, n.hostValue);
  return tsFile(path, 'type', sourceOf(op), (sf) => {
    if (checkFns.size) addImport(sf, path, paths.runtime('checks'), [...checkFns]);
    if (op.promote) addImport(sf, path, paths.runtime('promote'), ['promote', 'promotionTarget']);
    if (op.out.shape.kind !== 'host') addImport(sf, path, paths.runtime('dispatch'), ['commonDevice']);
    addImport(sf, path, paths.runtime('registry'), ['Declared', 'Typed'], true);
    addImport(sf, path, paths.runtime('tensor'), ['TensorType'], true);
    addImport(sf, path, paths.schema(op.schema), [n.args], true);
    if (hand.length) addImport(sf, path, paths.ruleStub(op.name), hand);
    sf.addFunction({
      name: n.type,
      isExported: true,
      docs: [`Type function of raf.op.${op.name}: checks the args, normalizes axes and infers the output type.`],
      typeParameters: [{ name: 'T', constraint: 'TensorType' }],
      parameters: [{ name: 'args', type: `${n.args}<T>` }],
      returnType: op.out.tuple ? `Typed<${n.args}<T>, readonly TensorType[]>` : `Typed<${n.args}<T>>`,
      statements: [
        ...body,
        normalized.length || promoted.length
          ? `const a = args.with({ ${[...normalized, ...promoted.map((p) => `${p.name}: ${promotedName(p)}`)].join(', ')} });`
          : 'const a = args;',
        `return { args: a, out: ${out} };`,
      ],
    });
    const tensorArgs = op.args.filter(isTensor);
    sf.addFunction({
      name: n.declare,
      isExported: true,
      docs: [
        op.out.shape.kind === 'host'
          ? `Declare of raf.op.${op.name}: a host op, so the value is computed here and no kernel runs.`
          : `Declare of raf.op.${op.name}: output shape, dtype and device; a dialect kernel computes the value.`,
      ],
      parameters: [{ name: 'args', type: n.args }],
      returnType: `Declared<${n.args}>`,
      statements:
        op.out.shape.kind === 'host'
          ? [`return { kind: 'value', value: ${n.hostValue}(${n.type}(args).args) };`]
          : [
              `const { args: a, out } = ${n.type}(args);`,
              `return { kind: '${op.out.tuple ? 'tuple' : 'tensor'}', args: a, ${op.out.tuple ? 'outs: out' : 'out'}, device: commonDevice('${op.name}', { ${tensorArgs.map((t) => `${t.name}: a.${t.name}`).join(', ')} }) };`,
            ],
    });
  });
}

/** The local holding the values of a tensor arg checked `values` (`shapeValues`). */
function valuesName(a: ArgModel): string {
  return camel(`${a.name}_values`);
}

/** The local holding a promoted tensor arg (`promotedX`), apart from the arg names the type function also declares. */
function promotedName(a: ArgModel): string {
  return camel(`promoted_${a.name}`);
}

function checkStatement(op: OpModel, a: ArgModel, c: Check, used: Set<string>): string {
  const head = `'${op.name}', '${a.name}', args.${a.name}`;
  const optional = a.type.endsWith('?');
  const guard = (s: string) => (optional ? `args.${a.name} === null ? null : ${s}` : s);
  switch (c.kind) {
    case 'axis':
      used.add('checkAxis');
      return guard(`checkAxis(${head}, args.${c.of})`);
    case 'axes':
      used.add('checkAxes');
      return guard(`checkAxes(${head}, args.${c.of})`);
    case 'like':
      used.add('checkLike');
      return guard(`checkLike(${head}, '${c.of}', args.${c.of})`);
    case 'nonempty':
      // Not guarded: a null axis means every axis, which must be non-empty too.
      used.add('checkNonEmpty');
      return `checkNonEmpty(${head}, args.${c.of})`;
    case 'nonneg':
      used.add('checkNonNegative');
      return guard(`checkNonNegative(${head})`);
    case 'positive':
      used.add('checkPositive');
      return guard(`checkPositive(${head})`);
    case 'one_of':
      used.add('checkOneOf');
      return guard(`checkOneOf(${head}, ${literal(c.values)})`);
    case 'range':
      used.add('checkRange');
      return guard(`checkRange(${head}, ${c.lo}, ${c.hi})`);
    case 'values':
      throw new Error('values checks are emitted by emitType');
  }
}

function outExpression(op: OpModel, normalized: string[], used: Set<string>, body: string[]): string {
  const rule = op.out.shape;
  const dtype = op.out.dtype ? `, '${op.out.dtype}'` : '';
  switch (rule.kind) {
    case 'same':
      used.add('sameAs');
      return `sameAs(a.${rule.of}${dtype})`;
    case 'broadcast':
      used.add('broadcastOf');
      return `broadcastOf('${op.name}', { ${rule.of.map((t) => `${t}: a.${t}`).join(', ')} }${dtype})`;
    case 'reduce': {
      used.add('reduceOf');
      const axisArg = op.args.find((a) => a.name === rule.axis)!;
      let axes = `a.${rule.axis}`;
      if (!normalized.includes(rule.axis)) {
        // The reduce rule needs normalized axes even when the spec states no check.
        used.add('checkAxes');
        const list = axisArg.type.startsWith('int[]') ? `args.${rule.axis}` : `[args.${rule.axis}]`;
        const check = `checkAxes('${op.name}', '${rule.axis}', ${list}, args.${rule.x})`;
        body.push(
          `const reduceAxes = ${axisArg.type.endsWith('?') ? `args.${rule.axis} === null ? null : ${check}` : check};`,
        );
        axes = 'reduceAxes';
      } else if (!axisArg.type.startsWith('int[]'))
        axes = axisArg.type.endsWith('?') ? `a.${rule.axis} === null ? null : [a.${rule.axis}]` : `[a.${rule.axis}]`;
      return `reduceOf(a.${rule.x}, ${axes}, ${rule.keepdims ? `a.${rule.keepdims}` : 'false'}${dtype})`;
    }
    case 'matmul':
      used.add('matmulOf');
      return `matmulOf('${op.name}', a.${rule.a}, a.${rule.b}${rule.mode === 'nn' ? '' : `, ${rule.mode[0] === 't'}, ${rule.mode[1] === 't'}`})`;
    case 'concat': {
      used.add('concatOf');
      let axis = `a.${rule.axis}`;
      if (!normalized.includes(rule.axis)) {
        // The rule joins along a normalized axis even when the spec states no check.
        used.add('checkAxis');
        body.push(`const concatAxis = checkAxis('${op.name}', '${rule.axis}', args.${rule.axis}, args.${rule.xs});`);
        axis = 'concatAxis';
      }
      return `concatOf('${op.name}', '${rule.xs}', a.${rule.xs}, ${axis})`;
    }
    case 'custom': {
      const read = op.args.filter((a) => a.checks.some((c) => c.kind === 'values'));
      const values = read.length ? `, { ${read.map((a) => `${a.name}: ${valuesName(a)}`).join(', ')} }` : '';
      return `${camel(rule.fn)}(a${values})`;
    }
    case 'host':
      return `${names(op).rule}(a)`;
  }
}
