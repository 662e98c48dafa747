// Emitter: gradient registrations (formulas and backward ops become calls; custom ones call a stub).

import { scalarOperator } from '../spec/formula.ts';
import type { Formula, Model, OpModel } from '../spec/model.ts';
import { addImport, camel, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { isTensor, tsType } from './types.ts';

export function emitGrads(model: Model): EmittedFile[] {
  const byName = new Map(model.ops.map((o) => [o.name, o]));
  return model.ops.map((op) => emitGrad(op, byName));
}

/** The fields a gradient receives: saved values, dy, and every non-tensor arg. */
export function gradContextFields(op: OpModel): { name: string; type: string }[] {
  if (op.grad.kind === 'none') return [];
  // A tuple op's y and dy are lists, one per output (dy zeros where an output got no gradient).
  const outType = op.out.tuple ? 'readonly Tensor[]' : 'Tensor';
  const fields = op.grad.saves.map((s) => ({
    name: s,
    type: s === 'y' ? outType : tsType(op.args.find((a) => a.name === s)!.type),
  }));
  fields.push({ name: 'dy', type: outType });
  for (const a of op.args) if (!isTensor(a)) fields.push({ name: a.name, type: tsType(a.type) });
  return fields;
}

function emitGrad(op: OpModel, ops: ReadonlyMap<string, OpModel>): EmittedFile {
  const path = paths.grad(op.name);
  const n = names(op);
  const g = op.grad;
  return tsFile(path, 'grad', sourceOf(op), (sf) => {
    addImport(sf, path, paths.runtime('registry'), ['GradDef'], true);
    if (g.kind === 'none') {
      sf.addVariableStatement({
        isExported: true,
        docs: [`raf.op.${op.name} has no gradient (its spec says grad: none).`],
        declarations: [{ name: n.grad, type: 'GradDef | null', initializer: 'null' }],
      });
      return;
    }
    addImport(sf, path, paths.runtime('tensor'), ['Tensor'], true);
    if (op.args.some((a) => a.type.startsWith('dtype'))) addImport(sf, path, paths.runtime('dtype'), ['DType'], true);
    const fields = gradContextFields(op);
    sf.addInterface({
      name: n.gradContext,
      isExported: true,
      docs: [
        `What the backward of raf.op.${op.name} receives; it keeps only ${g.saves.length ? g.saves.join(', ') : 'the non-tensor args'} alive.`,
      ],
      properties: fields.map((f) => ({ name: f.name, type: f.type, isReadonly: true })),
    });
    sf.addTypeAlias({
      name: n.gradResult,
      isExported: true,
      // A Tensor[] input's gradient is a list, null where an element gets none.
      type: `{ ${gradInputs(op)
        .map(
          (i) =>
            `readonly ${i}?: ${op.args.find((a) => a.name === i)!.type === 'Tensor[]' ? 'readonly (Tensor | null)[]' : 'Tensor'} | null`,
        )
        .join('; ')} }`,
    });
    let fn: string;
    if (g.kind === 'custom') {
      addImport(sf, path, paths.gradStub(op.name), [`${n.grad}Impl`]);
      fn = `(ctx) => ${n.grad}Impl(ctx as unknown as ${n.gradContext})`;
    } else if (g.kind === 'derived') {
      addImport(sf, path, paths.api(g.dxOp), [camel(g.dxOp)]);
      const x = g.inputs[0]!;
      const attrs = op.args.filter((a) => !isTensor(a)).map((a) => `c.${a.name}`);
      fn = `(ctx) => {\nconst c = ctx as unknown as ${n.gradContext};\nreturn { ${x}: ${camel(g.dxOp)}(${[`c.${x}`, 'c.dy', ...attrs].join(', ')}) };\n}`;
    } else {
      const called = new Set<string>();
      const scalars = new Set(op.args.filter((a) => SCALAR_TYPES.has(a.type)).map((a) => a.name));
      const r = { called, scalars, ops, own: op };
      // With several inputs each gradient is a getter: backward reads only those of inputs that need one, so
      // matmul's backward with a constant `a` (a layer's input) computes no gradient for it.
      const entries = g.inputs.map((i) =>
        g.inputs.length > 1
          ? `// ${i.name}: ${i.source}\nget ${i.name}() {\nreturn ${render(i.formula, r).text};\n}`
          : `// ${i.name}: ${i.source}\n${i.name}: ${render(i.formula, r).text}`,
      );
      for (const c of called) addImport(sf, path, paths.api(c), [camel(c)]);
      fn = `(ctx) => {\nconst c = ctx as unknown as ${n.gradContext};\nreturn {\n${entries.join(',\n')}\n};\n}`;
    }
    sf.addVariableStatement({
      isExported: true,
      docs: [
        `Gradient of raf.op.${op.name}${g.kind === 'custom' ? ` (hand-written in ${paths.gradStub(op.name)})` : g.kind === 'derived' ? ` (derived from compute: ${op.compute?.source})` : ''}.`,
      ],
      declarations: [
        {
          name: n.grad,
          type: 'GradDef | null',
          initializer: `{\nsaves: [${g.saves.map((s) => `'${s}'`).join(', ')}],\ninputs: [${gradInputs(op)
            .map((i) => `'${i}'`)
            .join(', ')}],\nfn: ${fn},\n}`,
        },
      ],
    });
  });
}

/** Arg types whose values are plain numbers in a gradient's context. */
const SCALAR_TYPES: ReadonlySet<string> = new Set(['int', 'float']);

interface RenderContext {
  readonly called: Set<string>;
  readonly scalars: ReadonlySet<string>;
  readonly ops: ReadonlyMap<string, OpModel>;
  /** The op whose gradient this is: its y and dy are lists with its output names. */
  readonly own: OpModel;
}

/**
 * A formula as TypeScript. Arithmetic whose operands are all numbers (literals, int and float attrs) stays JavaScript
 * arithmetic, so `3 * alpha * x` multiplies x by the number `3 * alpha`, a weak scalar that takes x's dtype. Keyword
 * arguments become positions (the typed API is positional), the args skipped between them their defaults; an output
 * selected by name becomes its index.
 */
function render(f: Formula, r: RenderContext): { text: string; scalar: boolean } {
  switch (f.kind) {
    case 'ref':
      return { text: `c.${f.name}`, scalar: r.scalars.has(f.name) };
    case 'num':
      return { text: String(f.value), scalar: true };
    case 'bool':
      return { text: String(f.value), scalar: false };
    case 'null':
      return { text: 'null', scalar: false };
    case 'list':
      return { text: `[${f.items.map((a) => render(a, r).text).join(', ')}]`, scalar: false };
    case 'item': {
      const index = typeof f.key === 'number' ? f.key : (outputsOf(f.of, r)?.indexOf(f.key) ?? -1);
      if (index < 0) throw new Error(`grad: no output '${String(f.key)}' (the spec check should have refused it)`);
      return { text: `${render(f.of, r).text}[${index}]!`, scalar: false };
    }
    case 'call': {
      const operator = scalarOperator(f.op);
      if (operator && !f.kwargs.length && f.args.every((a) => isScalar(a, r.scalars))) {
        const args = f.args.map((a) => render(a, r).text);
        return { text: args.length === 1 ? `-(${args[0]})` : `(${args[0]} ${operator} ${args[1]})`, scalar: true };
      }
      r.called.add(f.op);
      return { text: `${camel(f.op)}(${positional(f, r).join(', ')})`, scalar: false };
    }
  }
}

/** A call's arguments by position: keyword ones placed at their arg, the optional args before them at defaults. */
function positional(f: Extract<Formula, { kind: 'call' }>, r: RenderContext): string[] {
  const out = f.args.map((a) => render(a, r).text);
  if (!f.kwargs.length) return out;
  const params = r.ops.get(f.op)?.args ?? [];
  const last = Math.max(...f.kwargs.map((k) => params.findIndex((p) => p.name === k.name)));
  for (let i = out.length; i <= last; i++) {
    const p = params[i]!;
    const k = f.kwargs.find((x) => x.name === p.name);
    out.push(k ? render(k.value, r).text : JSON.stringify(p.default?.value ?? null));
  }
  return out;
}

/** The output names of a list of tensors: the op's own y or dy, or a tuple op's result. */
function outputsOf(f: Formula, r: RenderContext): readonly string[] | null | undefined {
  if (f.kind === 'ref') return f.name === 'y' || f.name === 'dy' ? r.own.out.outputs : undefined;
  if (f.kind === 'call') return r.ops.get(f.op)?.out.outputs;
  return undefined;
}

function isScalar(f: Formula, scalars: ReadonlySet<string>): boolean {
  if (f.kind === 'num') return true;
  if (f.kind === 'ref') return scalars.has(f.name);
  if (f.kind !== 'call') return false;
  return scalarOperator(f.op) !== undefined && !f.kwargs.length && f.args.every((a) => isScalar(a, scalars));
}

/** The tensor inputs a gradient produces values for. */
export function gradInputs(op: OpModel): string[] {
  const g = op.grad;
  if (g.kind === 'none') return [];
  return g.kind === 'formulas' ? g.inputs.map((i) => i.name) : [...g.inputs];
}
