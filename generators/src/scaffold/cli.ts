// `npm run new -- NAME [flags]` in this repository: runScaffold (main.ts) with the generators beside these sources.

import { fileURLToPath } from 'node:url';
import { runScaffold } from './main.ts';

const entry = (path: string) => fileURLToPath(new URL(path, import.meta.url));
process.exit(
  await runScaffold(process.argv.slice(2), { app: entry('../../app/index.js'), regen: entry('../../regen/index.js') }),
);
