// Emitted files and the ts-morph project they are built in; paths and names shared by every emitter.

import type {
  ClassDeclarationStructure,
  ExportDeclarationStructure,
  FunctionDeclarationStructure,
  ImportDeclarationStructure,
  InterfaceDeclarationStructure,
  OptionalKind,
  Project,
  StatementStructures,
  StructureKind,
  TypeAliasDeclarationStructure,
  VariableDeclarationKind,
  VariableStatementStructure,
} from 'ts-morph';
import { createRequire } from 'node:module';
import { dirname, relative } from 'node:path/posix';
import type { OpModel } from '../spec/model.ts';
import { Memo, memoDisabled, sha, sourceSalt } from '../memo.ts';
import { docText } from './escape.ts';

export interface EmittedFile {
  /** Repository-relative path. */
  readonly path: string;
  readonly content: string;
  /** Which emitter made it and from which spec(s): the `@generated` line says so. */
  readonly emitter: string;
  readonly source: string;
  /** `generated` files are rewritten on every run; `stub` files are created once and then hand-edited. */
  readonly kind: 'generated' | 'stub';
}

import { GENERATED, RUNTIME_SRC, TEST_GENERATED, TEST_REFERENCES } from '../layout.ts';
export { GENERATED, RUNTIME_SRC, TEST_GENERATED, TEST_REFERENCES };

export const paths = {
  schema: (schema: string) => `${GENERATED}/schema/${schema}.ts`,
  type: (op: string) => `${GENERATED}/type/${op}.ts`,
  grad: (op: string) => `${GENERATED}/grad/${op}.ts`,
  passes: (op: string) => `${GENERATED}/passes/${op}.ts`,
  api: (op: string) => `${GENERATED}/api/${op}.ts`,
  bridge: (op: string) => `${GENERATED}/bridge/${op}.ts`,
  dialect: (dialect: string, op: string) => `${GENERATED}/dialects/${dialect}/${op}.ts`,
  relay: (op: string) => `${GENERATED}/relay/${op}.ts`,
  index: () => `${GENERATED}/index.ts`,
  opsIndex: () => `${GENERATED}/ops.ts`,
  test: (op: string) => `${TEST_GENERATED}/${op}.test.ts`,
  // Hand-written homes (stubs are created there once).
  gradStub: (op: string) => `${RUNTIME_SRC}/ops/${op}.grad.ts`,
  ruleStub: (op: string) => `${RUNTIME_SRC}/ops/${op}.rule.ts`,
  kernelStub: (dialect: string, op: string) => `${RUNTIME_SRC}/dialects/${dialect}/kernels/${op}.ts`,
  reference: (op: string) => `${TEST_REFERENCES}/${op}.ts`,
  runtime: (file: string) => `${RUNTIME_SRC}/${file}.ts`,
};

/** `from` and `to` are repository-relative; returns an import specifier like `../../schema.ts`. */
export function importPath(from: string, to: string): string {
  const r = relative(dirname(from), to);
  return r.startsWith('.') ? r : `./${r}`;
}

export const pascal = (snake: string) => snake.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
export const camel = (snake: string) => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * ts-morph (and the TypeScript compiler under it) takes a second to load and most of an emit to print, so it loads
 * only when a file's structures were never printed before: printed text is memoized by (ts-morph's version, path,
 * structures). The enum members the builders use are ts-morph's own values (a test compares them).
 */
export const KIND = {
  Class: 2 as StructureKind.Class,
  ExportDeclaration: 11 as StructureKind.ExportDeclaration,
  Function: 13 as StructureKind.Function,
  ImportDeclaration: 16 as StructureKind.ImportDeclaration,
  Interface: 19 as StructureKind.Interface,
  TypeAlias: 38 as StructureKind.TypeAlias,
  VariableStatement: 41 as StructureKind.VariableStatement,
} as const;
const CONST = 'const' as VariableDeclarationKind.Const;

const require = createRequire(import.meta.url);
let project: Project | undefined;
let tsMorphVersion: string | undefined;
/** ts-morph's version, read without loading it (the memo key needs it on every print). */
const versionOfTsMorph = () => (tsMorphVersion ??= (require('ts-morph/package.json') as { version: string }).version);
const printed = new Memo('print');
const PRINT_SALT = sourceSalt(import.meta.url);

/** Structures as JSON for the memo key; undefined when one holds a function (a writer), which JSON cannot see. */
function structureKey(path: string, structures: unknown, kind = 'exact'): string | undefined {
  let opaque = false;
  const json = JSON.stringify(structures, (_k, v: unknown) => {
    if (typeof v === 'function') opaque = true;
    return v;
  });
  return opaque ? undefined : sha(versionOfTsMorph(), PRINT_SALT, kind, path, json);
}

type NamedImport = { name: string; isTypeOnly?: boolean } | string;

/**
 * Collects a file's declarations as ts-morph structures and prints them once at the end.
 * Emitters call the same `add*` methods a ts-morph SourceFile has; building the whole file from
 * structures in one go is an order of magnitude faster than editing a SourceFile step by step.
 */
export class FileBuilder {
  /** Print without ts-morph when every statement is of a kind `plainText` writes (aggregate files). */
  constructor(private readonly plain = false) {}

  /** module → imported name → type-only; one import declaration per module, names sorted. */
  private readonly imports = new Map<string, Map<string, boolean>>();
  private readonly statements: (string | StatementStructures)[] = [];

  addImportDeclaration(s: OptionalKind<ImportDeclarationStructure>): void {
    const names = this.imports.get(s.moduleSpecifier) ?? new Map<string, boolean>();
    this.imports.set(s.moduleSpecifier, names);
    for (const n of (s.namedImports ?? []) as NamedImport[]) {
      const name = typeof n === 'string' ? n : n.name;
      const typeOnly = Boolean(s.isTypeOnly || (typeof n !== 'string' && n.isTypeOnly));
      // A name imported both as a value and as a type is a value import.
      names.set(name, (names.get(name) ?? true) && typeOnly);
    }
  }
  addClass(s: OptionalKind<ClassDeclarationStructure>): void {
    this.statements.push({ ...s, kind: KIND.Class });
  }
  addFunction(s: OptionalKind<FunctionDeclarationStructure>): void {
    this.statements.push({ ...s, kind: KIND.Function });
  }
  addInterface(s: OptionalKind<InterfaceDeclarationStructure>): void {
    this.statements.push({ ...s, kind: KIND.Interface });
  }
  addTypeAlias(s: OptionalKind<TypeAliasDeclarationStructure>): void {
    this.statements.push({ ...s, kind: KIND.TypeAlias });
  }
  /** Generated bindings are never reassigned, so variables are `const` unless stated otherwise. */
  addVariableStatement(s: OptionalKind<VariableStatementStructure>): void {
    this.statements.push({
      declarationKind: CONST,
      ...s,
      kind: KIND.VariableStatement,
    });
  }
  addExportDeclaration(s: OptionalKind<ExportDeclarationStructure>): void {
    this.statements.push({ ...s, kind: KIND.ExportDeclaration });
  }
  addStatements(text: string | readonly string[]): void {
    this.statements.push(...(typeof text === 'string' ? [text] : text));
  }

  print(path: string): string {
    const imports: StatementStructures[] = [...this.imports].map(([moduleSpecifier, names]) => {
      const sorted = [...names].sort(([a], [b]) => (a < b ? -1 : 1));
      const allTypes = sorted.length > 0 && sorted.every(([, t]) => t);
      return {
        kind: KIND.ImportDeclaration,
        moduleSpecifier,
        isTypeOnly: allTypes,
        namedImports: sorted.map(([name, t]) => ({ name, isTypeOnly: t && !allTypes })),
      };
    });
    const statements = this.statements.map(escapeDocs);
    const structures = imports.length ? [...imports, '', ...statements] : statements;
    // A file in the kinds plainText writes is written directly: ts-morph would load (a second or more), and take most of
    // a scaffold's printing, for a text prettier reformats anyway.
    const plain = this.plain ? plainText(structures) : undefined;
    if (plain !== undefined) return plain;
    // Most files are the same as another op's up to its name (every unary elementwise op's API, schema, bridge...):
    // printed once with the name left out, a new op's file is that text with its name put in, without ts-morph.
    const free = memoDisabled() ? undefined : nameFree(path, structures);
    const freeKey = free && structureKey(free.path, free.structures, 'name-free');
    if (free && freeKey !== undefined) {
      const hit = printed.get(freeKey);
      if (hit !== undefined) return free.restore(hit);
      const text = tsMorphPrint(free.path, free.structures);
      printed.set(freeKey, text);
      return free.restore(text);
    }
    const key = structureKey(path, structures);
    const hit = key === undefined ? undefined : printed.get(key);
    if (hit !== undefined) return hit;
    const text = tsMorphPrint(path, structures);
    if (key !== undefined) printed.set(key, text);
    return text;
  }
}

function tsMorphPrint(path: string, structures: readonly (string | StatementStructures)[]): string {
  if (!project) {
    const { Project } = require('ts-morph') as typeof import('ts-morph');
    project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true });
  }
  const sf = project.createSourceFile(`/${path}`, { statements: [...structures] }, { overwrite: true });
  const text = sf.getFullText();
  project.removeSourceFile(sf);
  return text;
}

/** A placeholder for an op's name: letters and digits, as a name is, so the printer treats both alike. */
const HOLE = /Zq(\d)(\d)qZ/g;
const hole = (op: number, form: number) => `Zq${op}${form}qZ`;

/**
 * A file's structures (and path) with the names of the op it is for left out: its file name (`softsign_dx`) and that
 * name less its last `_part` (`softsign`, the forward op a gradient file names), in snake, camel and Pascal case,
 * replaced in every string by placeholders; `restore` puts them back into a print. ts-morph writes the text of a
 * structure's strings as given (it never wraps or reflows: prettier does, on the restored text), so printing the
 * placeholders and restoring is printing the names. Undefined where the names cannot be taken out and put back
 * exactly (a placeholder already in the text).
 */
export function nameFree(
  path: string,
  structures: readonly (string | StatementStructures)[],
): { path: string; structures: (string | StatementStructures)[]; restore: (printed: string) => string } | undefined {
  const base = /^([a-z][a-z0-9_]*?)(\.test)?\.ts$/.exec(path.slice(path.lastIndexOf('/') + 1))?.[1];
  if (base === undefined) return undefined;
  const ops = base.includes('_') ? [base, base.slice(0, base.lastIndexOf('_'))] : [base];
  const forms: [string, string][] = [];
  ops.forEach((op, i) =>
    [op, camel(op), pascal(op)].forEach((form, j) => {
      if (!forms.some(([f]) => f === form)) forms.push([form, hole(i, j)]);
    }),
  );
  forms.sort(([a], [b]) => b.length - a.length); // `softsign_dx` before `softsign`
  const byHole = new Map(forms.map(([form, h]) => [h, form]));
  const restore = (text: string) => text.replace(HOLE, (h) => byHole.get(h) ?? h);
  let exact = true;
  const leaveOut = (s: string) => {
    if (/Zq\d\dqZ/.test(s)) exact = false;
    let out = s;
    for (const [form, h] of forms) out = out.replaceAll(form, h);
    if (restore(out) !== s) exact = false;
    return out;
  };
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? leaveOut(v)
      : Array.isArray(v)
        ? v.map(walk)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  const out = { path: leaveOut(path), structures: walk(structures) as (string | StatementStructures)[], restore };
  return exact ? out : undefined;
}

/** A file made from every spec (`specs/**\/*.yaml`) rather than one op's: the registry, the indexes, the op ids. */
export const isAggregate = (source: string): boolean => source.includes('*');

type Named = string | { readonly name: string; readonly isTypeOnly?: boolean; readonly alias?: string };

/** The keys each plain kind may set (any other must be absent). */
const PLAIN_KEYS: Readonly<Record<number, readonly string[]>> = {
  [KIND.ImportDeclaration]: ['kind', 'moduleSpecifier', 'isTypeOnly', 'namedImports'],
  [KIND.ExportDeclaration]: ['kind', 'moduleSpecifier', 'isTypeOnly', 'namedExports'],
  [KIND.VariableStatement]: ['kind', 'isExported', 'docs', 'declarationKind', 'declarations'],
  [KIND.TypeAlias]: ['kind', 'isExported', 'docs', 'name', 'type'],
  [KIND.Function]: [
    'kind',
    'isExported',
    'isAsync',
    'docs',
    'name',
    'typeParameters',
    'parameters',
    'returnType',
    'statements',
  ],
  [KIND.Interface]: ['kind', 'isExported', 'docs', 'name', 'typeParameters', 'extends', 'properties'],
};
const PARAMETER_KEYS = ['name', 'type', 'hasQuestionToken', 'isRestParameter', 'initializer'];
const TYPE_PARAMETER_KEYS = ['name', 'constraint', 'default'];
const PROPERTY_KEYS = ['docs', 'isReadonly', 'name', 'hasQuestionToken', 'type'];

/** Only the keys named are set (others absent, null, false or an empty list: what ts-morph writes nothing for). */
const onlyKeys = (o: Record<string, unknown>, keys: readonly string[]) =>
  Object.entries(o).every(
    ([k, v]) => keys.includes(k) || v === undefined || v === null || v === false || (Array.isArray(v) && !v.length),
  );

/**
 * Statements one after another as ts-morph separates them: a blank line after one that ends with `}` and before a
 * function or interface, else a line break (none at the start of the file or block).
 */
class Lines {
  private readonly parts: string[] = [];
  /** The text from its last non-whitespace character on (all of it while it has none): what `put` looks at. */
  private tail = '';
  get text(): string {
    return this.parts.join('');
  }
  put(s: string, blankBefore = false): void {
    // Decided on the tail only: looking at the whole text each time (trimEnd, endsWith on a growing string) made an
    // aggregate file of thousands of statements quadratic.
    if (this.parts.length) {
      if (blankBefore || this.tail.trimEnd().endsWith('}')) {
        if (!this.tail.endsWith('\n')) this.add('\n');
        if (!this.tail.endsWith('\n\n')) this.add('\n');
      } else if (!this.tail.endsWith('\n')) this.add('\n');
    }
    this.add(s);
  }
  private add(s: string): void {
    if (s === '') return;
    this.parts.push(s);
    const last = s.trimEnd().length;
    this.tail = last === 0 ? this.tail + s : s.slice(last - 1);
  }
}

/**
 * The file as TypeScript when it holds only imports, re-exports, variable statements, type aliases, functions,
 * interfaces and text: what ts-morph writes for these, with its line breaks and blank lines, up to indentation and
 * quotes (which prettier sets); undefined for anything else, which ts-morph prints. `gen --check` and
 * `RAF_OP_FORMAT_WHOLE=1 gen --check` (ts-morph for every file) both compare every generated file with the tree.
 */
export function plainText(structures: readonly unknown[]): string | undefined {
  const out = new Lines();
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  /** A type, return type or initializer: written when it is text that is not blank (as ts-morph does). */
  const opt = (v: unknown, before: string): string | undefined =>
    v === undefined || v === null ? '' : typeof v !== 'string' ? undefined : v.trim() ? `${before}${v}` : '';
  const docsOf = (docs: unknown): string[] | undefined => {
    if (docs === undefined) return [];
    if (!Array.isArray(docs) || !docs.every((d) => typeof d === 'string' && !d.startsWith('\n'))) return undefined;
    return docs.map((d: string) =>
      d.includes('\n')
        ? `/**\n${d
            .split('\n')
            .map((l) => ` * ${l}`.trimEnd())
            .join('\n')}\n */`
        : `/** ${d} */`,
    );
  };
  const names = (list: unknown): string | undefined => {
    if (!Array.isArray(list)) return undefined;
    const parts: string[] = [];
    for (const n of list as Named[]) {
      if (typeof n === 'string') parts.push(n);
      else if (n && typeof n.name === 'string' && !n.alias) parts.push(`${n.isTypeOnly ? 'type ' : ''}${n.name}`);
      else return undefined;
    }
    return parts.join(', ');
  };
  /** `<T extends C = D, ...>`, or '' for none. */
  const typeParams = (list: unknown): string | undefined => {
    if (list === undefined) return '';
    if (!Array.isArray(list)) return undefined;
    const parts: string[] = [];
    for (const t of list as unknown[]) {
      if (typeof t === 'string') {
        parts.push(t);
        continue;
      }
      if (typeof t !== 'object' || t === null) return undefined;
      const o = t as Record<string, unknown>;
      const name = str(o.name);
      const c = opt(o.constraint, ' extends ');
      const d = opt(o.default, ' = ');
      if (!onlyKeys(o, TYPE_PARAMETER_KEYS) || name === undefined || c === undefined || d === undefined)
        return undefined;
      parts.push(`${name}${c}${d}`);
    }
    return parts.length ? `<${parts.join(', ')}>` : '';
  };
  const params = (list: unknown): string | undefined => {
    if (list === undefined) return '';
    if (!Array.isArray(list)) return undefined;
    const parts: string[] = [];
    for (const p of list as unknown[]) {
      if (typeof p !== 'object' || p === null) return undefined;
      const o = p as Record<string, unknown>;
      const name = str(o.name);
      const t = opt(o.type, ': ');
      const init = opt(o.initializer, ' = ');
      // A `?` parameter without a type gets `: any` from ts-morph: left to it.
      if (!onlyKeys(o, PARAMETER_KEYS) || name === undefined || t === undefined || init === undefined) return undefined;
      if (o.hasQuestionToken && !t) return undefined;
      parts.push(`${o.isRestParameter ? '...' : ''}${name}${o.hasQuestionToken ? '?' : ''}${t}${init}`);
    }
    return parts.join(', ');
  };
  for (const s of structures) {
    if (typeof s === 'string') {
      out.put(s);
      continue;
    }
    if (typeof s !== 'object' || s === null) return undefined;
    const o = s as Record<string, unknown>;
    const allowed = PLAIN_KEYS[o.kind as number];
    if (!allowed || Object.entries(o).some(([k, v]) => !allowed.includes(k) && v !== undefined)) return undefined;
    const spec = str(o.moduleSpecifier);
    const type = o.isTypeOnly ? ' type' : '';
    const exported = o.isExported ? 'export ' : '';
    const docs = docsOf(o.docs);
    if (!docs) return undefined;
    const docLines = docs.map((d) => `${d}\n`).join('');
    if (o.kind === KIND.ImportDeclaration || o.kind === KIND.ExportDeclaration) {
      const list = names(o.kind === KIND.ImportDeclaration ? (o.namedImports ?? []) : (o.namedExports ?? []));
      if (spec === undefined || list === undefined) return undefined;
      const word = o.kind === KIND.ImportDeclaration ? 'import' : 'export';
      if (list === '' && (o.isTypeOnly || word === 'export')) return undefined;
      out.put(list === '' ? `import "${spec}";` : `${word}${type} { ${list} } from "${spec}";`);
    } else if (o.kind === KIND.VariableStatement) {
      const kind = o.declarationKind ?? CONST;
      if ((kind !== 'const' && kind !== 'let') || !Array.isArray(o.declarations)) return undefined;
      const decls: string[] = [];
      for (const d of o.declarations as Record<string, unknown>[]) {
        if (Object.keys(d).some((k) => !['name', 'type', 'initializer'].includes(k) && d[k] !== undefined))
          return undefined;
        const name = str(d.name);
        const t = d.type === undefined ? '' : str(d.type);
        const init = d.initializer === undefined ? '' : str(d.initializer);
        if (name === undefined || t === undefined || init === undefined) return undefined;
        decls.push(`${name}${t ? `: ${t}` : ''}${init ? ` = ${init}` : ''}`);
      }
      out.put(`${docLines}${exported}${kind} ${decls.join(', ')};`);
    } else if (o.kind === KIND.TypeAlias) {
      const name = str(o.name);
      const t = str(o.type);
      if (name === undefined || t === undefined) return undefined;
      out.put(`${docLines}${exported}type ${name} = ${t};`);
    } else if (o.kind === KIND.Function) {
      const name = str(o.name);
      const tps = typeParams(o.typeParameters);
      const ps = params(o.parameters);
      const ret = opt(o.returnType, ': ');
      const body = new Lines();
      const statements =
        o.statements === undefined ? [] : typeof o.statements === 'string' ? [o.statements] : o.statements;
      if (!name?.trim() || tps === undefined || ps === undefined || ret === undefined || !Array.isArray(statements))
        return undefined;
      for (const st of statements as unknown[]) {
        if (typeof st !== 'string') return undefined;
        body.put(st);
      }
      const bodyText = body.text;
      const inner = bodyText === '' || bodyText.endsWith('\n') ? bodyText : `${bodyText}\n`;
      const asyncWord = o.isAsync ? 'async ' : '';
      out.put(`${docLines}${exported}${asyncWord}function ${name}${tps}(${ps})${ret} {\n${inner}}`, true);
    } else {
      const name = str(o.name);
      const tps = typeParams(o.typeParameters);
      const ext = o.extends === undefined ? [] : typeof o.extends === 'string' ? [o.extends] : o.extends;
      if (name === undefined || tps === undefined || !Array.isArray(ext) || !ext.every((e) => typeof e === 'string'))
        return undefined;
      const extText = (ext as string[]).join(', ');
      const props: string[] = [];
      for (const p of (o.properties ?? []) as unknown[]) {
        if (typeof p !== 'object' || p === null) return undefined;
        const q = p as Record<string, unknown>;
        const pname = str(q.name);
        const pdocs = docsOf(q.docs);
        const t = opt(q.type, ': ');
        if (!onlyKeys(q, PROPERTY_KEYS) || pname === undefined || !pdocs || t === undefined) return undefined;
        const ro = q.isReadonly ? 'readonly ' : '';
        props.push(`${pdocs.map((d) => `${d}\n`).join('')}${ro}${pname}${q.hasQuestionToken ? '?' : ''}${t};`);
      }
      if (!Array.isArray(o.properties ?? [])) return undefined;
      const extWords = extText.trim() ? `extends ${extText} ` : '';
      const members = props.length ? `${props.join('\n')}\n` : '';
      out.put(`${docLines}${exported}interface ${name}${tps} ${extWords}{\n${members}}`, true);
    }
  }
  const text = out.text;
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Every JSDoc text in a structure (and its members), escaped: a spec's doc may contain `*\/`. */
function escapeDocs<T>(s: T): T {
  if (typeof s !== 'object' || s === null) return s;
  if (Array.isArray(s)) return s.map(escapeDocs) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'docs' && Array.isArray(v))
      out[k] = v.map((d) => (typeof d === 'string' ? docText(d) : typeof d === 'object' && d ? escapeDocs(d) : d));
    else if (k === 'description' && typeof v === 'string') out[k] = docText(v);
    else out[k] = typeof v === 'object' ? escapeDocs(v) : v;
  }
  return out as T;
}

/**
 * Builds one TypeScript file from ts-morph structures. The header names the emitter and spec;
 * the writer formats the text with prettier afterwards.
 */
export function tsFile(path: string, emitter: string, source: string, build: (sf: FileBuilder) => void): EmittedFile {
  // Every file in the kinds plainText writes is printed without ts-morph; RAF_OP_FORMAT_WHOLE=1 (the reference run)
  // prints every file with ts-morph, so its `gen --check` compares the two.
  const plain = process.env.RAF_OP_FORMAT_WHOLE !== '1';
  let content: string | undefined;
  // Built and printed when first read: a scaffold reads only its op's files and the aggregates, of some 1600.
  return {
    path,
    get content() {
      if (content === undefined) {
        const builder = new FileBuilder(plain);
        build(builder);
        content = `${generatedHeader(emitter, source)}\n\n${builder.print(path)}`;
      }
      return content;
    },
    emitter,
    source,
    kind: 'generated',
  };
}

export function generatedHeader(emitter: string, source: string): string {
  return `// @generated by raf-op (${emitter}) from ${source}. Do not edit: change the spec and run \`npm run gen\`.`;
}

/** A module import from one repository path to another. */
export function addImport(sf: FileBuilder, from: string, to: string, names: readonly string[], typeOnly = false): void {
  if (!names.length) return;
  sf.addImportDeclaration({ moduleSpecifier: importPath(from, to), namedImports: [...names], isTypeOnly: typeOnly });
}

/** Names used across emitters for one op. */
export function names(op: OpModel) {
  return {
    fn: camel(op.name),
    args: `${pascal(op.schema)}Args`,
    opDef: `${camel(op.name)}Op`,
    type: `${camel(op.name)}Type`,
    declare: `${camel(op.name)}Declare`,
    grad: `${camel(op.name)}Grad`,
    gradContext: `${pascal(op.name)}GradContext`,
    gradResult: `${pascal(op.name)}GradResult`,
    fusion: `${camel(op.name)}Fusion`,
    cast: `${camel(op.name)}Cast`,
    inputs: `${pascal(op.name)}Inputs`,
    attrs: `${pascal(op.name)}Attrs`,
    bridge: `${camel(op.name)}Bridge`,
    kernelType: `${pascal(op.name)}Kernel`,
    kernel: (dialect: string) => `${camel(op.name)}${pascal(dialect)}`,
    dialectOp: (dialect: string) => `${camel(op.name)}${pascal(dialect)}Op`,
    relay: `${camel(op.name)}Relay`,
    rule: `${camel(op.name)}Rule`,
    hostValue: `${camel(op.name)}Value`,
  };
}

/** The spec file that produced an op (a derived backward names its forward's spec). */
export function sourceOf(op: OpModel): string {
  return op.derivedFrom ? `${op.file} (derived gradient of ${op.derivedFrom})` : op.file;
}
