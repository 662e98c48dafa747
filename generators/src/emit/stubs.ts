// Emitter: hand-written homes (gradient, kernel, shape rule) created once from Handlebars templates.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { createRequire } from 'node:module';
import type { Model, OpModel } from '../spec/model.ts';
import { CPU } from './dialect-cpu.ts';
import { WASM } from './dialect-wasm.ts';
import { WEBGPU } from './dialect-webgpu.ts';
import { camel, names, paths, pascal, type EmittedFile } from './files.ts';
import { gradContextFields, gradInputs } from './grad.ts';
import { isTensor } from './types.ts';
import { Memo, sha, sourceSalt } from '../memo.ts';

export interface StubFile extends EmittedFile {
  readonly kind: 'stub';
  /** Brings an existing hand-written file's signature in line with the spec, keeping its body. */
  readonly update?: (existing: string) => string;
}

const TEMPLATES = join(dirname(fileURLToPath(import.meta.url)), '../../../templates');
const compiled = new Map<string, HandlebarsTemplateDelegate>();

export function renderTemplate(name: string, data: object): string {
  let t = compiled.get(name);
  if (!t) {
    t = Handlebars.compile(readFileSync(join(TEMPLATES, name), 'utf8'), { noEscape: true, strict: true });
    compiled.set(name, t);
  }
  return t(data);
}

/**
 * A stub whose text (its template rendered) is made when first read: a scaffold reads the stubs of its own op only,
 * and the writer reads a stub's text only when its file does not exist yet.
 */
function lazyText<T extends object>(fields: T, text: () => string): T & { readonly content: string } {
  let content: string | undefined;
  return Object.defineProperty(fields, 'content', {
    get: () => (content ??= text()),
    enumerable: true,
  }) as T & { readonly content: string };
}

export function emitStubs(model: Model): StubFile[] {
  const out: StubFile[] = [];
  for (const op of model.ops) {
    if (op.grad.kind === 'custom') out.push(gradStub(op));
    for (const d of op.dialects) {
      if (d.kernel !== 'hand' || op.out.shape.kind === 'host') continue;
      if (d.name === CPU || d.name === WASM) out.push(kernelStub(op, d.name));
      if (d.name === WEBGPU) out.push(webgpuKernelStub(op));
    }
    if (op.out.shape.kind === 'custom' || op.out.shape.kind === 'host') out.push(ruleStub(op));
    if (op.tests.reference) out.push(referenceStub(op));
  }
  return out;
}

function gradStub(op: OpModel): StubFile {
  const n = names(op);
  const path = paths.gradStub(op.name);
  const fields = gradContextFields(op).map((f) => f.name);
  const fn = `${n.grad}Impl`;
  const content = () =>
    renderTemplate('grad-stub.ts.hbs', {
      op: op.name,
      file: op.file,
      path,
      fn,
      context: n.gradContext,
      result: n.gradResult,
      fields: fields.join(', '),
      inputs: gradInputs(op).join(', '),
    });
  return lazyText(
    {
      path,
      emitter: 'stubs',
      source: op.file,
      kind: 'stub',
      update: (existing: string) => updateSignature(existing, path, fn, fields, n.gradContext, n.gradResult),
    } as const,
    content,
  );
}

/**
 * Brings one function's parameter and return type in line with the generated types, with ts-morph,
 * touching only what differs: binding elements the author wrote (`{ dy: grad_out }`, defaults) are
 * kept as written, fields the context no longer has are dropped, new ones appended; statements and
 * every line that needs no change stay byte for byte.
 */
function updateSignature(
  text: string,
  path: string,
  fn: string,
  fields: readonly string[],
  paramType: string,
  returnType: string,
): string {
  // Every regeneration runs this on every hand gradient: memoized, so ts-morph loads only for an edited one.
  const key = sha(UPDATE_SALT, text, path, fn, JSON.stringify(fields), paramType, returnType);
  const hit = updated.get(key);
  if (hit !== undefined) return hit;
  const out = updateSignatureWithTsMorph(text, path, fn, fields, paramType, returnType);
  updated.set(key, out);
  return out;
}

const require = createRequire(import.meta.url);
const updated = new Memo('stub-update');
const UPDATE_SALT = sourceSalt(import.meta.url);

function updateSignatureWithTsMorph(
  text: string,
  path: string,
  fn: string,
  fields: readonly string[],
  paramType: string,
  returnType: string,
): string {
  const { Node, Project } = require('ts-morph') as typeof import('ts-morph');
  const project = new Project({ useInMemoryFileSystem: true });
  const sf = project.createSourceFile(`/${path}`, text);
  const f = sf.getFunction(fn);
  if (!f) return text;
  const params = f.getParameters();
  const nameNode = params[0]?.getNameNode();
  if (params.length === 1 && nameNode && Node.isObjectBindingPattern(nameNode)) {
    const elements = nameNode.getElements();
    const fieldOf = (e: (typeof elements)[number]) => e.getPropertyNameNode()?.getText() ?? e.getName();
    const rest = elements.find((e) => e.getDotDotDotToken());
    const kept = fields.map((field) => elements.find((e) => !e.getDotDotDotToken() && fieldOf(e) === field));
    const same =
      !rest && kept.every(Boolean) && kept.length === elements.length && kept.every((e, i) => e === elements[i]);
    if (!same && !rest) {
      const parts = fields.map((field, i) => kept[i]?.getText() ?? field);
      nameNode.replaceWithText(`{ ${parts.join(', ')} }`);
    }
    const param = f.getParameters()[0]!;
    if (param.getTypeNode()?.getText() !== paramType) param.setType(paramType);
  } else if (params.length === 0) {
    f.addParameter({ name: `{ ${fields.join(', ')} }`, type: paramType });
  }
  if (f.getReturnTypeNode()?.getText() !== returnType) f.setReturnType(returnType);
  const out = sf.getFullText();
  return out;
}

export function kernelStub(op: OpModel, dialect: string): StubFile {
  const n = names(op);
  const path = paths.kernelStub(dialect, op.name);
  const inputs = op.args.filter(isTensor).map((a) => a.name);
  const attrs = op.args.filter((a) => !isTensor(a)).map((a) => a.name);
  return lazyText({ path, emitter: 'stubs', source: op.file, kind: 'stub' } as const, () =>
    renderTemplate('kernel-stub.ts.hbs', {
      op: op.name,
      file: op.file,
      path,
      dialect,
      dialectTitle: dialect === 'cpu' ? 'CPU' : pascal(dialect),
      kernel: n.kernel(dialect),
      kernelType: n.kernelType,
      inputsPattern: inputs.length ? `{ ${inputs.join(', ')} }` : '_inputs',
      attrsPattern: attrs.length ? `{ ${attrs.join(', ')} }` : '_attrs',
      inputsList: [...inputs, ...attrs].join(', ') || 'nothing',
    }),
  );
}

/** A WebGPU kernel is a builder (compile the pipeline once, return the kernel), so it has its own template. */
function webgpuKernelStub(op: OpModel): StubFile {
  const n = names(op);
  const path = paths.kernelStub(WEBGPU, op.name);
  const inputs = op.args.filter(isTensor).map((a) => a.name);
  const attrs = op.args.filter((a) => !isTensor(a)).map((a) => a.name);
  return lazyText({ path, emitter: 'stubs', source: op.file, kind: 'stub' } as const, () =>
    renderTemplate('webgpu-kernel-stub.ts.hbs', {
      op: op.name,
      file: op.file,
      path,
      kernel: n.kernel(WEBGPU),
      kernelType: n.kernelType,
      inputsList: [...inputs, ...attrs].join(', ') || 'nothing',
    }),
  );
}

function referenceStub(op: OpModel): StubFile {
  const path = paths.reference(op.name);
  return lazyText({ path, emitter: 'stubs', source: op.file, kind: 'stub' } as const, () =>
    renderTemplate('reference-stub.ts.hbs', { op: op.name, file: op.file, path }),
  );
}

function ruleStub(op: OpModel): StubFile {
  const n = names(op);
  const path = paths.ruleStub(op.name);
  return lazyText({ path, emitter: 'stubs', source: op.file, kind: 'stub' } as const, () =>
    renderTemplate('rule-stub.ts.hbs', {
      op: op.name,
      file: op.file,
      path,
      args: n.args,
      schema: op.schema,
      host: op.out.shape.kind === 'host',
      tuple: op.out.tuple,
      hostValue: n.hostValue,
      rule: op.out.shape.kind === 'custom' ? camel(op.out.shape.fn) : n.rule,
    }),
  );
}
