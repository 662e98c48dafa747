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
import { Memo, sha, sourceSalt } from '../memo.ts';
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

import { GENERATED, RUNTIME_SRC, TEST_GENERATED } from '../layout.ts';
export { GENERATED, RUNTIME_SRC, TEST_GENERATED };

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
function structureKey(path: string, structures: unknown): string | undefined {
  let opaque = false;
  const json = JSON.stringify(structures, (_k, v: unknown) => {
    if (typeof v === 'function') opaque = true;
    return v;
  });
  return opaque ? undefined : sha(versionOfTsMorph(), PRINT_SALT, path, json);
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
    // An aggregate (a line or an entry per op) in a few plain kinds is written directly: ts-morph would load, and take
    // most of a scaffold's printing over these long files, for a text prettier reformats anyway.
    const plain = this.plain ? plainText(structures) : undefined;
    if (plain !== undefined) return plain;
    const key = structureKey(path, structures);
    const hit = key === undefined ? undefined : printed.get(key);
    if (hit !== undefined) return hit;
    if (!project) {
      const { Project } = require('ts-morph') as typeof import('ts-morph');
      project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true });
    }
    const sf = project.createSourceFile(`/${path}`, { statements: structures }, { overwrite: true });
    const text = sf.getFullText();
    project.removeSourceFile(sf);
    if (key !== undefined) printed.set(key, text);
    return text;
  }
}

/** A file made from every spec (`specs/**\/*.yaml`) rather than one op's: the registry, the indexes, the op ids. */
export const isAggregate = (source: string): boolean => source.includes('*');

type Named = string | { readonly name: string; readonly isTypeOnly?: boolean; readonly alias?: string };

/** The keys each plain kind may set (to anything for `kind`, to a falsy value for the rest unless handled below). */
const PLAIN_KEYS: Readonly<Record<number, readonly string[]>> = {
  [KIND.ImportDeclaration]: ['kind', 'moduleSpecifier', 'isTypeOnly', 'namedImports'],
  [KIND.ExportDeclaration]: ['kind', 'moduleSpecifier', 'isTypeOnly', 'namedExports'],
  [KIND.VariableStatement]: ['kind', 'isExported', 'docs', 'declarationKind', 'declarations'],
  [KIND.TypeAlias]: ['kind', 'isExported', 'docs', 'name', 'type'],
};

/**
 * The file as TypeScript when it holds only imports, re-exports, variable statements, type aliases and text, each on
 * its own lines with no blank line between (what ts-morph writes for these, up to indentation and quotes, which
 * prettier sets); undefined for anything else, which ts-morph prints. A test checks prettier makes the same of both.
 */
export function plainText(structures: readonly unknown[]): string | undefined {
  const out: string[] = [];
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const docsOf = (docs: unknown): string[] | undefined => {
    if (docs === undefined) return [];
    if (!Array.isArray(docs) || !docs.every((d) => typeof d === 'string')) return undefined;
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
  for (const s of structures) {
    if (typeof s === 'string') {
      if (s !== '') out.push(s);
      continue;
    }
    if (typeof s !== 'object' || s === null) return undefined;
    const o = s as Record<string, unknown>;
    const allowed = PLAIN_KEYS[o.kind as number];
    if (!allowed || Object.entries(o).some(([k, v]) => !allowed.includes(k) && v !== undefined)) return undefined;
    const spec = str(o.moduleSpecifier);
    const type = o.isTypeOnly ? ' type' : '';
    if (o.kind === KIND.ImportDeclaration || o.kind === KIND.ExportDeclaration) {
      const list = names(o.kind === KIND.ImportDeclaration ? (o.namedImports ?? []) : (o.namedExports ?? []));
      if (spec === undefined || list === undefined) return undefined;
      const word = o.kind === KIND.ImportDeclaration ? 'import' : 'export';
      if (list === '' && (o.isTypeOnly || word === 'export')) return undefined;
      out.push(list === '' ? `import '${spec}';` : `${word}${type} { ${list} } from '${spec}';`);
    } else if (o.kind === KIND.VariableStatement) {
      const docs = docsOf(o.docs);
      const kind = o.declarationKind ?? CONST;
      if (!docs || (kind !== 'const' && kind !== 'let') || !Array.isArray(o.declarations)) return undefined;
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
      out.push(...docs, `${o.isExported ? 'export ' : ''}${kind} ${decls.join(', ')};`);
    } else {
      const docs = docsOf(o.docs);
      const name = str(o.name);
      const t = str(o.type);
      if (!docs || name === undefined || t === undefined) return undefined;
      out.push(...docs, `${o.isExported ? 'export ' : ''}type ${name} = ${t};`);
    }
  }
  return `${out.join('\n')}\n`;
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
  const plain = isAggregate(source) && process.env.RAF_OP_FORMAT_WHOLE !== '1';
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
