// Entry yo loads for `yo raf-op:init DIR`. In the repository it runs the TypeScript sources through tsx; an installed
// package ships no sources and loads the built JavaScript from dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/init-generator.ts', import.meta.url);
let InitGenerator;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ default: InitGenerator } = await import(source.href));
} else {
  ({ default: InitGenerator } = await import('../dist/generators/src/init-generator.js'));
}

export default InitGenerator;
