// `tsx generators/src/scaffold/cli.ts NAME [flags]`: the `yo raf-op` generator run through yeoman-environment
// directly. Same prompts, flags and conflict handling; it skips yo's root check, which drops a root process
// (a CI container) to uid 1000 and then cannot read /root or write the checkout.

import { fileURLToPath } from 'node:url';
import { createEnv } from 'yeoman-environment';

const GENERATORS = { 'raf-op:app': '../../app/index.js', 'raf-op:regen': '../../regen/index.js' };

const argv = process.argv.slice(2);
// `cli.ts regen [--check]` runs the sub-generator, as `yo raf-op:regen` does.
const namespace = argv[0] === 'regen' ? 'raf-op:regen' : 'raf-op:app';
const args = argv[0] === 'regen' ? argv.slice(1) : argv;

const env = createEnv();
for (const [ns, path] of Object.entries(GENERATORS))
  env.register(fileURLToPath(new URL(path, import.meta.url)), { namespace: ns });
env.execute(namespace, args).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
