// Entry yo loads for `yo raf-op:init DIR`: registers tsx so the TypeScript generator in src/ can be imported.
import { register } from 'tsx/esm/api';

register();
const { default: InitGenerator } = await import('../src/init-generator.ts');

export default InitGenerator;
