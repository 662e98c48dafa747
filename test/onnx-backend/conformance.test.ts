// ONNX's backend conformance suite against the committed expectations: every case passes or is refused exactly as
// expectations.json says. A case that starts passing, a refusal whose message changes, or any wrong value fails here
// until `npx tsx test/onnx-backend/cli.ts --update` rewrites the file (which it refuses while a value is wrong).

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectedOf, loadExpectations } from './expectations.ts';
import { FOLDERS, listCases, runRaf, SUITE_ROOT } from './suite.ts';

const cases = existsSync(SUITE_ROOT) ? listCases() : [];
const expectations = loadExpectations();

describe('ONNX backend suite', () => {
  it('is present beside the project (../shared/onnx-backend/data)', () => {
    expect(cases.length).toBeGreaterThan(1800);
  });

  it('lists no case the suite does not have', () => {
    const ids = new Set(cases.map((c) => c.id));
    const listed = [
      ...expectations.passed,
      ...Object.values(expectations.refused).flatMap((g) => Object.keys(g)),
      ...Object.keys(expectations.rounding ?? {}),
    ];
    expect(listed.filter((id) => !ids.has(id))).toEqual([]);
  });

  for (const folder of FOLDERS) {
    describe(folder, () => {
      it.each(cases.filter((c) => c.folder === folder).map((c) => [c.id, c] as const))('%s', (id, c) => {
        const want = expectedOf(expectations, id);
        const got = runRaf(c);
        if (got.status === 'fail') throw new Error(`wrong result: ${got.reason}`);
        expect(got, want ? 'outcome differs from expectations.json' : 'not in expectations.json').toEqual(want);
      });
    });
  }
});
