// Entry yo loads for `yo raf-op NAME`: registers tsx so the TypeScript generator in src/scaffold can be imported.
import { register } from 'tsx/esm/api';

register();
const { default: RafOpGenerator } = await import('../src/scaffold/app-generator.ts');

export default RafOpGenerator;
