// Entry yo loads for `yo raf-op:regen`. In the repository it runs the TypeScript sources through tsx; an installed package
// ships no sources and loads the built JavaScript from dist/.
import { existsSync } from 'node:fs';
import { exitOnRootDrop } from '../app/root-check.js';

// As root, yo has dropped to another user before loading this file: say what to run instead of crashing later.
exitOnRootDrop('regen');

const source = new URL('../src/scaffold/regen-generator.ts', import.meta.url);
let RegenGenerator;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ default: RegenGenerator } = await import(source.href));
} else {
  ({ default: RegenGenerator } = await import('../dist/generators/src/scaffold/regen-generator.js'));
}

export default RegenGenerator;
