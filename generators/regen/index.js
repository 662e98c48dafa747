// Entry yo loads for `yo raf-op:regen`: registers tsx so the TypeScript generator in src/scaffold can be imported.
import { register } from 'tsx/esm/api';

register();
const { default: RegenGenerator } = await import('../src/scaffold/regen-generator.ts');

export default RegenGenerator;
