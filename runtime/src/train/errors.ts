// The error the training API raises: what went wrong, where (parameter, state tensor, checkpoint entry), and a hint.

/** A training-API error (optimizer, training step, checkpoint); its message names the parameter or tensor. */
export class TrainError extends Error {
  constructor(
    readonly where: string,
    readonly detail: string,
    readonly hint?: string,
  ) {
    super(`${where}: ${detail}${hint ? `\n  hint: ${hint}` : ''}`);
    this.name = 'TrainError';
  }
}
