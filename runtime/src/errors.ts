// Errors raised by the runtime: every one names the op and, where there is one, the argument.

export class OpError extends Error {
  constructor(
    readonly op: string,
    readonly detail: string,
    readonly arg?: string,
  ) {
    super(`raf.op.${op}${arg === undefined ? '' : ` (argument '${arg}')`}: ${detail}`);
    this.name = 'OpError';
  }
}

/** Raised when no enabled dialect can run a call; lists what was tried, as RAF does. */
export class DispatchError extends Error {
  constructor(
    readonly op: string,
    readonly device: string,
    readonly tried: readonly string[],
  ) {
    super(
      `Cannot dispatch raf.op.${op}@${device}` +
        (tried.length ? `; tried: ${tried.join('; ')}` : '; no dialect serves this device'),
    );
    this.name = 'DispatchError';
  }
}
