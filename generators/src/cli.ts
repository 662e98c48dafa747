#!/usr/bin/env node
// The `raf-op` executable (bin of generator-raf-op; `npm run gen`, `diff`, `breaking` in this repository).

import { runCli } from './cli-main.ts';

runCli(process.argv.slice(2)).then((code) => process.exit(code));
