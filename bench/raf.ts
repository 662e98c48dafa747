// The raf-op columns: the default dispatch (highest level that serves the CPU) and the TypeScript reference pinned.

import { allDialectOps, fromStorage, withDialect, type Tensor } from '../runtime/src/index.ts';
import { getDialect } from '../runtime/src/dialect.ts';
import type { Impl } from './case.ts';

/** The dialect that serves `op` on the CPU by default: the highest level whose dialect is up. */
export function servedBy(op: string): string {
  const d = allDialectOps(op).find((d) => getDialect(d.dialect)?.devices.includes('cpu') && !getDialect(d.dialect)?.unavailable?.());
  return d?.dialect ?? '?';
}

/** `build` makes inputs and returns the op chain; `op` names the op whose dialect the table reports. */
export function raf(op: string, build: () => () => Tensor | readonly Tensor[], pin?: readonly string[]): Impl {
  return {
    setup() {
      const f = build();
      const run = pin ? () => withDialect(pin, f) : f;
      return {
        run: () => {
          const r = run();
          for (const t of Array.isArray(r) ? r : [r as Tensor]) t.dataSync();
        },
        note: pin ? pin.join('+') : servedBy(op),
      };
    },
  };
}

/** A float32 CPU tensor over the peers' shared data. */
export const input = (shape: readonly number[], values: Float32Array): Tensor => fromStorage(shape, 'float32', values);
