// Spec errors: each names file, line and column, says what is wrong and what to write instead.

export interface Loc {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

export class SpecError {
  constructor(
    readonly loc: Loc,
    readonly message: string,
    readonly hint?: string,
  ) {}

  toString(): string {
    const where = `${this.loc.file}:${this.loc.line}:${this.loc.col}`;
    return `${where}: error: ${this.message}${this.hint ? `\n  hint: ${this.hint}` : ''}`;
  }
}

/** Thrown when a run of the loader or validator found errors; carries all of them. */
export class SpecErrors extends Error {
  constructor(readonly errors: readonly SpecError[]) {
    super(`${errors.length} spec error${errors.length === 1 ? '' : 's'}:\n${errors.map(String).join('\n')}`);
    this.name = 'SpecErrors';
  }
}

/** The closest candidate by edit distance, for "did you mean" hints. */
function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    // Case is compared last: 'B' is closer to 'b' than to 'a'.
    const d =
      editDistance(word.toLowerCase(), c.toLowerCase()) +
      (c === word ? 0 : c.toLowerCase() === word.toLowerCase() ? 0.1 : 0.5);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && Math.floor(bestD) <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const c = closest(word, candidates);
  return c ? `did you mean '${c}'?` : undefined;
}
