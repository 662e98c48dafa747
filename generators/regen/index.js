// Entry yo loads for `yo raf-op:regen`. In the repository it runs the TypeScript sources through tsx; an installed package
// ships no sources and loads the built JavaScript from dist/.
import { existsSync } from 'node:fs';

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
