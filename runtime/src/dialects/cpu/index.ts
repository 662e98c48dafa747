// The CPU dialect: TypeScript kernels, the float64-capable reference every other dialect is checked against.

import { registerDialect } from '../../dialect.ts';

export const CPU_DIALECT = 'cpu';

registerDialect({ name: CPU_DIALECT, devices: ['cpu'] });

export * from './support.ts';
