// The writer under failure, SIGKILL and concurrency, on a small throwaway root: a killed run is completed
// or discarded by the next one and reported by --check until then; two runs never interleave; a failure
// writes nothing; hand-written stubs keep what their author wrote.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../generators/src/generate.ts';
import { acquireLock, GenStateError, HALF_WRITTEN_MS, STATE_DIR } from '../../generators/src/write.ts';
import { rng, runCli, smallRepo, snapshot } from './robust-repo.ts';

const roots: string[] = [];
const fresh = async (prefix: string) => {
  const root = smallRepo(prefix);
  roots.push(root);
  await generate(root);
  return root;
};
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

const generatedPart = (snap: Map<string, string>) =>
  new Map([...snap].filter(([p]) => !p.startsWith('specs/') && !p.startsWith(`${STATE_DIR}/`)));
const leftovers = (root: string) =>
  [...snapshot(root).keys()].filter((p) => p.startsWith(`${STATE_DIR}/`) || /\.(tmp|raf-op-tmp)$/.test(p));

/** A spec edit that changes several generated files of softmax (schema, api, type, tests, docs). */
function editSoftmax(root: string, n: number): void {
  const p = join(root, 'specs/nn/softmax.yaml');
  const text = readFileSync(p, 'utf8')
    .replace(/doc: .*/, `doc: Softmax along one axis (edit ${n}).`)
    .replace(/axis: \{ type: int, default: -?\d+,/, `axis: { type: int, default: ${n % 2 ? 0 : -1},`)
    // ONNX and Relay assume axis -1 when a node omits it: with another default the mappings must say so.
    .replaceAll('attrs: { axis: axis } }', 'attrs: { axis: axis }, defaults: { axis: -1 } }');
  writeFileSync(p, text);
}

/** After an interrupted run: --check reports it or the tree is whole (old or new); the next run makes it consistent. */
async function expectRecovers(root: string, before: Map<string, string>): Promise<void> {
  const killed = snapshot(root);
  const pending = [...killed.keys()].some((p) => p.startsWith(`${STATE_DIR}/`) && !p.endsWith('/lock'));
  if (pending) {
    await expect(generate(root, { check: true })).rejects.toThrow(/interrupted raf-op gen/);
  }
  await generate(root);
  const after = snapshot(root);
  expect(leftovers(root)).toEqual([]);
  expect((await generate(root, { check: true })).changes).toEqual([]);
  if (!killed.has(`${STATE_DIR}/journal.json`)) {
    // Nothing committed and unfinished: the generated files are exactly the old tree or exactly the new one.
    const k = generatedPart(killed);
    const whole = (m: Map<string, string>) => k.size === m.size && [...m].every(([p, t]) => k.get(p) === t);
    expect(whole(generatedPart(before)) || whole(generatedPart(after))).toBe(true);
  }
}

describe('writer: SIGKILL at seeded points', () => {
  const seed = Number(process.env.RAF_OP_KILL_SEED ?? 18);
  const runs = Number(process.env.RAF_OP_KILL_RUNS ?? 2);

  it(`kills gen at ${runs} seeded steps of the write (seed ${seed}); the next run completes or discards it`, async () => {
    const root = await fresh('kill');
    const random = rng(seed);
    for (let i = 1; i <= runs; i++) {
      const before = snapshot(root);
      editSoftmax(root, i);
      const changed = (await generate(root, { check: true })).changes.length;
      expect(changed).toBeGreaterThan(3);
      // Steps: one per staged change, the commit, one per applied change, the cleanup.
      const at = 1 + Math.floor(random() * (2 * changed + 2));
      const run = await runCli(root, [], { env: { RAF_OP_GEN_CRASH_AT: String(at) } });
      expect(run.signal).toBe('SIGKILL');
      await expectRecovers(root, before);
    }
  }, 120_000);

  it('kills the CLI after a seeded delay and recovers', async () => {
    const root = await fresh('killtime');
    const random = rng(seed + 1);
    const before = snapshot(root);
    editSoftmax(root, 1);
    const run = await runCli(root, [], { killAfterMs: 1500 + Math.floor(random() * 4000) });
    expect(run.signal === 'SIGKILL' || run.code === 0).toBe(true);
    await expectRecovers(root, before);
  }, 120_000);
});

describe('writer: recovery keeps what a person wrote after the kill', () => {
  const SCALE =
    'op: scale\ndoc: x times k.\nargs:\n  x: { type: Tensor }\n  k: { type: float, default: 2 }\nout: same(x)\ngrad: custom\ndialects: { cpu: 10 }\n';
  const stubPath = 'runtime/src/ops/scale.grad.ts';
  // The killed run's lock is stale; the rerun takes it over (and releases it): everything else must stay as it was.
  const withoutLock = (snap: Map<string, string>) => new Map([...snap].filter(([p]) => p !== `${STATE_DIR}/lock`));

  /** Kills gen right after its journal commit (steps: one per staged change, then the commit). */
  async function killAfterCommit(root: string): Promise<void> {
    const changed = (await generate(root, { check: true })).changes.length;
    const run = await runCli(root, [], { env: { RAF_OP_GEN_CRASH_AT: String(changed + 1) } });
    expect(run.signal).toBe('SIGKILL');
    expect(snapshot(root).has(`${STATE_DIR}/journal.json`)).toBe(true);
  }

  it('a new hand gradient written after the kill survives: the rerun stops naming it, exit 1, nothing written', async () => {
    const root = await fresh('keepnew');
    writeFileSync(join(root, 'specs/math/scale.yaml'), SCALE);
    await killAfterCommit(root);
    expect(snapshot(root).has(stubPath)).toBe(false);
    // The person writes the gradient from the stub's signature (the killed run staged it).
    const mine = readFileSync(join(root, STATE_DIR, 'staging', stubPath), 'utf8').replace(
      /throw new Error\([\s\S]*?\);\n/,
      'return { x: dy }; // mine\n',
    );
    expect(mine).toContain('// mine');
    mkdirSync(join(root, 'runtime/src/ops'), { recursive: true });
    writeFileSync(join(root, stubPath), mine);
    const before = withoutLock(snapshot(root));
    const rerun = await runCli(root);
    expect(rerun.code).toBe(1);
    expect(rerun.stderr).toContain(`${stubPath} (written after the run, which would create it)`);
    expect(rerun.stderr).toContain('hint: your version is kept');
    expect(rerun.stderr).not.toMatch(/\n\s+at /);
    expect(withoutLock(snapshot(root))).toEqual(before);
    // The hint's way out: drop the interrupted run; gen regenerates and keeps the hand file.
    rmSync(join(root, STATE_DIR), { recursive: true, force: true });
    expect((await runCli(root)).code).toBe(0);
    expect(readFileSync(join(root, stubPath), 'utf8')).toBe(mine);
  }, 120_000);

  it('a line added to an existing hand gradient after the kill survives', async () => {
    const root = await fresh('keepedit');
    writeFileSync(join(root, 'specs/math/scale.yaml'), SCALE);
    await generate(root);
    // A rename the stub's signature follows: the next run updates the hand file.
    writeFileSync(join(root, 'specs/math/scale.yaml'), SCALE.replace('k: {', 'factor: {'));
    const plan = (await generate(root, { check: true })).changes.map((c) => c.path);
    expect(plan).toContain(stubPath);
    await killAfterCommit(root);
    const edited = `${readFileSync(join(root, stubPath), 'utf8')}// a line a person added\n`;
    writeFileSync(join(root, stubPath), edited);
    const before = withoutLock(snapshot(root));
    const rerun = await runCli(root);
    expect(rerun.code).toBe(1);
    expect(rerun.stderr).toContain(`${stubPath} (edited after the run, which would replace it)`);
    expect(withoutLock(snapshot(root))).toEqual(before);
    expect(readFileSync(join(root, stubPath), 'utf8')).toBe(edited);
  }, 120_000);

  it('a journal whose files are untouched still completes the run', async () => {
    const root = await fresh('keepnone');
    writeFileSync(join(root, 'specs/math/scale.yaml'), SCALE);
    await killAfterCommit(root);
    const rerun = await runCli(root);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('completed an interrupted run');
    expect(readFileSync(join(root, stubPath), 'utf8')).toContain('scaleGradImpl');
    expect(leftovers(root)).toEqual([]);
  }, 120_000);
});

describe('writer: concurrency', () => {
  it('refuses a second run while the lock is held, naming the holder; --check says a run is under way', async () => {
    const root = await fresh('lock');
    editSoftmax(root, 1);
    const release = acquireLock(root);
    try {
      const run = await runCli(root);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`another raf-op gen is running in ${root} (pid ${process.pid}`);
      await expect(generate(root, { check: true })).rejects.toThrow(`(pid ${process.pid})`);
    } finally {
      release();
    }
    expect((await generate(root)).changes.length).toBeGreaterThan(0);
    expect(leftovers(root)).toEqual([]);
  }, 60_000);

  it('takes over the lock of a process that is gone', async () => {
    const root = await fresh('stale');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    mkdirSync(join(root, STATE_DIR), { recursive: true });
    writeFileSync(
      join(root, STATE_DIR, 'lock'),
      JSON.stringify({ pid: Number(dead), host: (await import('node:os')).hostname(), started: '', argv: 'gen' }),
    );
    editSoftmax(root, 1);
    expect((await generate(root)).changes.length).toBeGreaterThan(0);
    expect(leftovers(root)).toEqual([]);
  });

  it('takes over at once the lock of a zombie, and of a live pid that started after the lock was written', async () => {
    const root = await fresh('zombie');
    // `sleep 0.1 &` under a shell that then execs a sleep that never reaps it: a zombie with a known pid.
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((r) => parent.stdout.once('data', (d: Buffer) => r(Number(String(d)))));
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0];
      for (let i = 0; i < 100 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
      expect(state()).toBe('Z');
      mkdirSync(join(root, STATE_DIR), { recursive: true });
      const lock = join(root, STATE_DIR, 'lock');
      writeFileSync(lock, JSON.stringify({ pid, host: hostname(), started: '', argv: 'gen (killed)' }));
      const t0 = performance.now();
      acquireLock(root)();
      expect(performance.now() - t0).toBeLessThan(1000);
      // This process is alive, but the lock says it started at another time: its pid was reused, the run is gone.
      mkdirSync(join(root, STATE_DIR), { recursive: true });
      writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), started: '', argv: 'gen', since: '1' }));
      acquireLock(root)();
      expect(leftovers(root)).toEqual([]);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('waits on a lock that is created but not yet written, and refuses by name once it is', async () => {
    // The window between a run's `wx` create and its write, held open: a child writes this process's holder (alive)
    // into the empty lock 300 ms later. Taking the empty lock as stale let two concurrent runs write the tree at once.
    const root = await fresh('half');
    const lock = join(root, STATE_DIR, 'lock');
    mkdirSync(join(root, STATE_DIR), { recursive: true });
    writeFileSync(lock, '');
    const holder = JSON.stringify({ pid: process.pid, host: hostname(), started: 'now', argv: 'gen (test)' });
    const writer = spawn(process.execPath, [
      '-e',
      `setTimeout(() => require('node:fs').writeFileSync(${JSON.stringify(lock)}, ${JSON.stringify(holder)}), 300)`,
    ]);
    const exited = new Promise((r) => writer.on('exit', r));
    // acquireLock blocks this thread while it waits, so the child does the writing.
    expect(() => acquireLock(root)).toThrow(`another raf-op gen is running in ${root} (pid ${process.pid}`);
    await exited;
    rmSync(lock);
    // A lock that never gets its content (its run was killed between the two steps) is taken over once it is old.
    writeFileSync(lock, '');
    const old = new Date(Date.now() - 2 * HALF_WRITTEN_MS);
    utimesSync(lock, old, old);
    acquireLock(root)();
    expect(leftovers(root)).toEqual([]);
  });

  it('two concurrent runs: one writes, the other waits its turn or is refused by name; the tree ends consistent', async () => {
    const root = await fresh('pair');
    editSoftmax(root, 1);
    const [a, b] = await Promise.all([runCli(root), runCli(root)]);
    for (const r of [a, b]) {
      if (r.code !== 0) expect(r.stderr).toMatch(/another raf-op gen is running in .* \(pid \d+ on /);
    }
    expect([a.code, b.code]).toContain(0);
    expect(leftovers(root)).toEqual([]);
    expect((await generate(root, { check: true })).changes).toEqual([]);
  }, 120_000);
});

describe('writer: failures write nothing', () => {
  it('refuses a plan a folder is in the way of, before writing anything', async () => {
    const root = await fresh('folder');
    editSoftmax(root, 1);
    rmSync(join(root, 'runtime/src/generated/api/softmax.ts'));
    mkdirSync(join(root, 'runtime/src/generated/api/softmax.ts'));
    const before = snapshot(root);
    await expect(generate(root)).rejects.toThrow(GenStateError);
    await expect(generate(root)).rejects.toThrow('a folder of that name is in the way');
    expect(snapshot(root)).toEqual(before);
  });
});

describe('hand-written stubs', () => {
  it('keep a destructuring rename and every untouched line; a spec rename changes only the binding it must', async () => {
    const root = await fresh('stub');
    writeFileSync(
      join(root, 'specs/math/scale.yaml'),
      'op: scale\ndoc: x times k.\nargs:\n  x: { type: Tensor }\n  k: { type: float, default: 2 }\nout: same(x)\ngrad: custom\ndialects: { cpu: 10 }\n',
    );
    await generate(root);
    const stub = join(root, 'runtime/src/ops/scale.grad.ts');
    const created = readFileSync(stub, 'utf8');
    expect(created).toContain('export function scaleGradImpl({ x, dy, k }: ScaleGradContext): ScaleGradResult {');
    const mine = created
      .replace('{ x, dy, k }', '{ x, dy: grad_out, k = 2 }')
      .replace(/throw new Error\([\s\S]*?\);\n/, 'return { x: grad_out }; // hand-written, k unused\n');
    writeFileSync(stub, mine);
    const again = await generate(root);
    expect(again.changes.map((c) => c.path)).not.toContain('runtime/src/ops/scale.grad.ts');
    expect(readFileSync(stub, 'utf8')).toBe(mine);
    writeFileSync(
      join(root, 'specs/math/scale.yaml'),
      readFileSync(join(root, 'specs/math/scale.yaml'), 'utf8').replace('k: {', 'factor: {'),
    );
    await generate(root);
    const updated = readFileSync(stub, 'utf8');
    expect(updated).toBe(mine.replace('{ x, dy: grad_out, k = 2 }', '{ x, dy: grad_out, factor }'));
  });
});
