// Runs the raf-op command line in-process (generators/src/cli-main.ts), capturing what it prints: no tsx start-up and
// no reloading of ts-morph and prettier per call, so CLI tests stay fast on a loaded machine. Calls must not overlap.

import { vi } from 'vitest';
import { runCli } from '../../generators/src/cli-main.ts';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout then stderr, as a terminal shows a failed run. */
  readonly out: string;
}

export async function raf(...args: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const line = (...parts: unknown[]) => `${parts.map((p) => (typeof p === 'string' ? p : String(p))).join(' ')}\n`;
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...p) => void (stdout += line(...p))),
    vi.spyOn(console, 'error').mockImplementation((...p) => void (stderr += line(...p))),
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true)),
  ];
  try {
    const code = await runCli(args);
    return { code, stdout, stderr, out: stdout + stderr };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}
