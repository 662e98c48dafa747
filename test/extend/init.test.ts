// raf-op init: the package it writes, and what it refuses.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import helpers from 'yeoman-test';
import { emitAll } from '../../generators/src/emit/index.ts';
import { loadModel } from '../../generators/src/generate.ts';
import { initPackage, InitError, ONNXRUNTIME_VERSION } from '../../generators/src/init.ts';

const REPO = resolve(import.meta.dirname, '../..');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

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

  it('makes onnxruntime-node an optional dependency whose install script is skipped exactly as in this repository', () => {
    const dir = join(base, 'onnx-ops');
    initPackage(dir);
    const pkg = readJson(join(dir, 'package.json'));
    const own = readJson(join(REPO, 'package.json'));
    // The same version this repository's ONNX oracle tests run against.
    expect(pkg.optionalDependencies).toEqual({ 'onnxruntime-node': own.devDependencies['onnxruntime-node'] });
    expect(ONNXRUNTIME_VERSION).toBe(own.devDependencies['onnxruntime-node']);
    // npm 11.16+ reads allowScripts, npm 10 the .npmrc line: both as in this repository, so a newcomer sets nothing.
    expect(pkg.allowScripts).toEqual({ 'onnxruntime-node': own.allowScripts['onnxruntime-node'] });
    expect(pkg.allowScripts['onnxruntime-node']).toBe(false);
    // npm 10: a preload in node-options (a key npm knows, so npm 11 prints no warning) sets ONNXRUNTIME_NODE_INSTALL.
    const line = (text: string) => text.split('\n').find((l) => l.startsWith('node-options='));
    expect(line(readFileSync(join(dir, '.npmrc'), 'utf8'))).toBe(line(readFileSync(join(REPO, '.npmrc'), 'utf8')));
    expect(readFileSync(join(dir, '.npmrc'), 'utf8')).not.toContain('onnxruntime-node-install');
    const preload = decodeURIComponent(
      /--import=data:text\/javascript,(.*)$/.exec(line(readFileSync(join(dir, '.npmrc'), 'utf8'))!)![1]!,
    );
    const env: Record<string, string | undefined> = {};
    new Function('process', preload)({ env });
    expect(env.ONNXRUNTIME_NODE_INSTALL).toBe('skip');
  });

  it('runs as yo raf-op:init DIR --name NAME, writing the same package and its registry', async () => {
    const cwd = join(base, 'yo');
    mkdirSync(cwd);
    await helpers
      .run(join(REPO, 'generators/init/index.js'), { tmpdir: false, cwd, namespace: 'raf-op:init' })
      .withArguments(['yo-ops'])
      .withOptions({ name: '@acme/yo-ops' } as Record<string, unknown>);
    const dir = join(cwd, 'yo-ops');
    const pkg = readJson(join(dir, 'package.json'));
    const direct = join(base, 'direct');
    initPackage(direct, { name: '@acme/yo-ops' });
    expect(pkg).toEqual(readJson(join(direct, 'package.json')));
    for (const f of ['README.md', 'src/index.ts', 'vitest.config.ts', '.npmrc', 'specs/op-ids.lock.json'])
      expect(readFileSync(join(dir, f), 'utf8'), f).toBe(readFileSync(join(direct, f), 'utf8'));
    // The (empty) registry was generated there too, in the package layout.
    expect(readFileSync(join(dir, 'src/generated/register.ts'), 'utf8')).toMatch(/@generated/);
    expect(existsSync(join(dir, 'runtime'))).toBe(false);
    // A second run into the same, now non-empty, folder is refused.
    await expect(
      helpers
        .run(join(REPO, 'generators/init/index.js'), { tmpdir: false, cwd, namespace: 'raf-op:init' })
        .withArguments(['yo-ops']),
    ).rejects.toThrow(/is not empty/);
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
