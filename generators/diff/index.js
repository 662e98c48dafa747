// Entry yo loads for `yo raf-op:diff`: registers tsx so the TypeScript generator in src/review can be imported.
import { register } from 'tsx/esm/api';

register();
const { default: DiffGenerator } = await import('../src/review/diff-generator.ts');

export default DiffGenerator;
