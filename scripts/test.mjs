// `npm test [-- vitest args]`: `vitest run`, with Dawn's native start-up warnings kept out of the output.
//
// Dawn (the `webgpu` package) writes straight to the process's stderr each time a test file creates a GPU
// instance and device: "Couldn't load Vulkan" (with its source line) where no Vulkan loader is installed, and
// "... artificially reduced ..." for two dynamic-buffer limits. Native writes bypass vitest's console capture, so
// they are filtered here, from the stderr vitest and its workers share; everything else passes through unchanged.
// RAF_DAWN_WARNINGS=1 shows them.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);
const vitestDir = dirname(require.resolve('vitest/package.json'));
const vitest = join(vitestDir, require('vitest/package.json').bin.vitest);
const args = ['run', ...process.argv.slice(2)];
const show = process.env.RAF_DAWN_WARNINGS === '1';

const child = spawn(process.execPath, [vitest, ...args], { stdio: ['inherit', 'inherit', show ? 'inherit' : 'pipe'] });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));

/**
 * Dawn's warning lines (a Vulkan loader with no driver gives two); a Vulkan one is followed by its
 * `at operator() (.../dawn/...)` line and a blank line.
 */
const WARNING =
  /^Warning: (Couldn't load Vulkan: |max\w+ artificially reduced from \d+ to \d+ |vkCreateInstance(: Found no drivers| failed with VK_ERROR_INCOMPATIBLE_DRIVER))/;
const FRAME = /^\s+at \S+ \(.*dawn.*\)$/;

let hidden = 0;
let after = 0; // lines since the last hidden warning: its frame, then one blank line, belong to it
if (!show) {
  createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
    if (WARNING.test(line)) {
      hidden++;
      after = 1;
      return;
    }
    if (after === 1 && FRAME.test(line)) {
      after = 2;
      return;
    }
    if (after > 0 && line.trim() === '') {
      after = 0;
      return;
    }
    after = 0;
    process.stderr.write(`${line}\n`);
  });
}

child.on('close', (code, signal) => {
  if (hidden) console.error(`(${hidden} Dawn start-up warnings hidden; RAF_DAWN_WARNINGS=1 shows them)`);
  process.exit(code ?? (signal ? 1 : 0));
});
