// A small throwaway raf-op root for the writer and fuzz tests: a few specs, no generated files yet.

import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export const REPO = join(import.meta.dirname, '../..');

/** softmax with its backward, exp (a formula gradient over multiply) and multiply: closed under references. */
export const SMALL_SPECS = ['nn/softmax.yaml', 'nn/softmax_dx.yaml', 'math/exp.yaml', 'math/multiply.yaml'];

export function smallRepo(prefix: string, specs: readonly string[] = SMALL_SPECS): string {
  const root = mkdtempSync(join(tmpdir(), `raf-op-${prefix}-`));
  for (const s of specs) {
    mkdirSync(join(root, 'specs', s.split('/')[0]!), { recursive: true });
    cpSync(join(REPO, 'specs', s), join(root, 'specs', s));
  }
  for (const f of ['.prettierrc.json', 'package.json']) cpSync(join(REPO, f), join(root, f));
  return root;
}

/** Every file under root (relative paths) with its content, specs included. */
export function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(root, p).split('\\').join('/'), readFileSync(p, 'utf8'));
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `raf-op gen` (the CLI, in its own process) on a root; `killAfterMs` sends SIGKILL after that delay. */
export function runCli(
  root: string,
  args: readonly string[] = [],
  opts: { env?: Record<string, string>; killAfterMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO, 'generators/src/cli.ts'), 'gen', '--root', root, ...args],
      { cwd: REPO, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer =
      opts.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The runtime's seeded generator (mulberry32): the same seed gives the same kill points and mutations. */
export { rng } from '../../runtime/src/tensor.ts';
