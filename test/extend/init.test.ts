// raf-op init: the package it writes, and what it refuses.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitAll } from '../../generators/src/emit/index.ts';
import { loadModel } from '../../generators/src/generate.ts';
import { initPackage, InitError } from '../../generators/src/init.ts';

const base = mkdtempSync(join(tmpdir(), 'raf-op-init-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('raf-op init', () => {
  it('writes an npm package that depends on the runtime and the generator, with specs/, scripts and tests', () => {
    const dir = join(base, 'my-ops');
    const files = initPackage(dir);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'vitest.config.ts', 'README.md', 'src/index.ts']));
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('my-ops');
    expect(pkg.dependencies).toEqual({ '@raf-op/runtime': '^0.1.0' });
    expect(pkg.devDependencies['generator-raf-op']).toBe('^0.1.0');
    expect(pkg.scripts).toMatchObject({ gen: 'raf-op gen', new: 'raf-op new', test: 'vitest run' });
    expect(existsSync(join(dir, 'specs/op-ids.lock.json'))).toBe(true);
    expect(readFileSync(join(dir, 'src/index.ts'), 'utf8')).toMatch(/import '\.\/generated\/register\.ts';/);
  });

  it('generates an empty registry for a package with no specs, in src/', () => {
    const dir = join(base, 'empty-ops');
    initPackage(dir);
    const paths = emitAll(loadModel(dir)).generated.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['src/generated/index.ts', 'src/generated/ops.ts', 'src/generated/register.ts']),
    );
    expect(paths.filter((p) => p.startsWith('runtime/') || p.includes('/wasm/'))).toEqual([]);
  });

  it('takes a scoped name, and refuses a folder that is not empty or a name npm would refuse', () => {
    const scoped = join(base, 'scoped');
    initPackage(scoped, { name: '@acme/my-ops' });
    expect(JSON.parse(readFileSync(join(scoped, 'package.json'), 'utf8')).name).toBe('@acme/my-ops');
    const full = join(base, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'x'), '');
    expect(() => initPackage(full)).toThrow(InitError);
    expect(() => initPackage(join(base, 'Bad Name'))).toThrow(/'Bad Name' is not a valid npm package name/);
  });
});
