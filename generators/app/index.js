// Entry yo loads for `yo raf-op NAME`. In the repository it runs the TypeScript sources through tsx; an installed package
// ships no sources and loads the built JavaScript from dist/.
import { existsSync } from 'node:fs';
import { exitOnRootDrop } from './root-check.js';

// As root, yo has dropped to another user before loading this file: say what to run instead of crashing later.
exitOnRootDrop();

const source = new URL('../src/scaffold/app-generator.ts', import.meta.url);
let RafOpGenerator;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ default: RafOpGenerator } = await import(source.href));
} else {
  ({ default: RafOpGenerator } = await import('../dist/generators/src/scaffold/app-generator.js'));
}

export default RafOpGenerator;
