// Entry yo loads for `yo raf-op:diff`. In the repository it runs the TypeScript sources through tsx; an installed package
// ships no sources and loads the built JavaScript from dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/review/diff-generator.ts', import.meta.url);
let DiffGenerator;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ default: DiffGenerator } = await import(source.href));
} else {
  ({ default: DiffGenerator } = await import('../dist/generators/src/review/diff-generator.js'));
}

export default DiffGenerator;
