// Printing without ts-morph (generators/src/emit/files.ts): plainText's text of a file's structures formats, with
// prettier, to what ts-morph's print does, blank lines included; and a print made with an op's names left out and put
// back is ts-morph's print of the file itself. ts-morph, the reference, prints every structure here directly.

import { join } from 'node:path';
import * as prettier from 'prettier';
import { Project, type StatementStructures } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { KIND, nameFree, plainText } from '../../generators/src/emit/files.ts';
import { REPO } from './robust-repo.ts';

const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true });
const tsMorph = (path: string, structures: readonly (string | StatementStructures)[]) => {
  const sf = project.createSourceFile(`/${path}`, { statements: [...structures] }, { overwrite: true });
  const text = sf.getFullText();
  project.removeSourceFile(sf);
  return text;
};
const options = { ...((await prettier.resolveConfig(join(REPO, 'package.json'))) ?? {}), parser: 'typescript' };
const pretty = (text: string) => prettier.format(text, options);

type S = string | StatementStructures;
const imports: S[] = [
  { kind: KIND.ImportDeclaration, moduleSpecifier: '../../registry.ts', namedImports: [{ name: 'OpDef' }] },
  '',
];
const fn = (name: string, statements: string[], extra: object = {}): S =>
  ({ kind: KIND.Function, name, isExported: true, statements, ...extra }) as S;
const iface = (name: string): S =>
  ({
    kind: KIND.Interface,
    name,
    isExported: true,
    docs: ['What the backward receives.'],
    properties: [
      { name: 'x', type: 'Tensor', isReadonly: true },
      { name: 'dy', type: 'Tensor', hasQuestionToken: true, docs: ['Upstream.\nSecond line.'] },
    ],
  }) as S;
const variable = (name: string, initializer: string): S =>
  ({
    kind: KIND.VariableStatement,
    isExported: true,
    declarationKind: 'const',
    docs: [`The ${name}.`],
    declarations: [{ name, type: 'number', initializer }],
  }) as S;

/** Files in the kinds plainText writes, with each place ts-morph puts a blank line (or does not). */
const FILES: Record<string, S[]> = {
  'function then variable': [
    ...imports,
    fn('softsignAbc', ['const y = x;', 'if (y) {\nreturn 1;\n}', 'return 2;'], {
      docs: ['Computes softsign_abc.\n\n@param x Tensor.'],
      typeParameters: [{ name: 'T', constraint: 'TensorType', default: 'Tensor' }],
      parameters: [
        { name: 'x', type: 'T | number' },
        { name: 'alpha', type: 'number', hasQuestionToken: true },
        { name: 'beta', type: 'number', initializer: '1' },
        { name: 'rest', type: 'never[]', isRestParameter: true },
      ],
      returnType: 'Tensor',
    }),
    variable('softsignAbcOp', '{ name: "softsign_abc" }'),
  ],
  'interface, type alias, variables': [
    ...imports,
    iface('SoftsignGradContext'),
    { kind: KIND.TypeAlias, name: 'R', isExported: true, type: '{ readonly x?: Tensor | null }' },
    variable('a', "{\nsaves: ['x'],\nfn: (ctx) => {\nreturn ctx;\n},\n}"),
    variable('b', '2'),
    'registerIt(a);',
    fn('empty', []),
  ],
  'text after a closing brace': [
    'if (a) {\nb();\n}',
    'c();',
    fn('f', ['return;']),
    fn('g', ['return;'], { isAsync: true }),
  ],
};

describe('printing without ts-morph', () => {
  it.each(Object.keys(FILES))('plainText formats to what ts-morph prints formats to: %s', async (name) => {
    const structures = FILES[name]!;
    const plain = plainText(structures);
    expect(plain).toBeDefined();
    expect(await pretty(plain!)).toBe(await pretty(tsMorph('a.ts', structures)));
  });

  it('leaves to ts-morph what it does not write (a class, a parameter with a scope)', () => {
    expect(plainText([{ kind: KIND.Class, name: 'A' } as S])).toBeUndefined();
    expect(plainText([fn('f', [], { parameters: [{ name: 'x', type: 'T', scope: 'public' }] })])).toBeUndefined();
  });

  it.each([
    ['runtime/src/generated/api/softsign_abc_dx.ts', 'softsign_abc_dx'],
    ['test/generated/port.test.ts', 'port'],
    ['runtime/src/generated/type/exp.ts', 'exp'],
  ])('a print with the names left out and put back is the print itself: %s', (path, op) => {
    const camel = op.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    const pascal = camel[0]!.toUpperCase() + camel.slice(1);
    const structures: S[] = [
      { kind: KIND.ImportDeclaration, moduleSpecifier: `../schema/${op}.ts`, namedImports: [`${pascal}Args`] },
      '',
      {
        kind: KIND.Class,
        name: `${pascal}Thing`,
        isExported: true,
        docs: [`Of raf.op.${op}: isExported, import, export.`],
        methods: [{ name: 'run', statements: [`return ${camel}(${JSON.stringify(op)}, '${op}');`] }],
      } as S,
      fn(camel, [`return invoke(${camel}Op, ['${op}']);`], { docs: [`Calls ${op}.`] }),
    ];
    const free = nameFree(path, structures)!;
    expect(free).toBeDefined();
    // No string of the structures keeps the name (keys such as `moduleSpecifier` are not strings of the file).
    const strings: string[] = [];
    JSON.stringify(free.structures, (_k, v: unknown) => (typeof v === 'string' && strings.push(v), v));
    expect(strings.join('\n')).not.toContain(op);
    expect(free.path).not.toContain(op);
    expect(free.restore(tsMorph(free.path, free.structures))).toBe(tsMorph(path, structures));
    // Another op of the same shape has the same name-free structures, so one print serves both.
    if (op === 'softsign_abc_dx') {
      const rename = (t: string) =>
        t.replaceAll(op, 'tanhy_xyz_dx').replaceAll(camel, 'tanhyXyzDx').replaceAll(pascal, 'TanhyXyzDx');
      const other = JSON.parse(rename(JSON.stringify(structures))) as S[];
      const otherFree = nameFree(rename(path), other)!;
      expect(JSON.stringify(otherFree.structures)).toBe(JSON.stringify(free.structures));
      expect(otherFree.restore(tsMorph(free.path, free.structures))).toBe(tsMorph(rename(path), other));
    }
  });

  it('keeps the names in where a placeholder is already in the text', () => {
    expect(nameFree('runtime/src/generated/api/foo.ts', ['const Zq00qZ = foo;'])).toBeUndefined();
  });
});
