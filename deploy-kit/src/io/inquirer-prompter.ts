import { confirm, input, select } from '@inquirer/prompts';
import { DeployKitError } from '../errors.js';
import type { Prompter } from './ports.js';

/** Inquirer rejects with ExitPromptError on Ctrl-C / closed input; that is a cancellation (exit 3), not a crash. */
function cancelled(err: unknown): never {
  if (err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError' || err.name === 'CancelPromptError')) {
    throw new DeployKitError('DK_ERR_CANCELLED', 'cancelled', { hint: 'run the command again, or pass every value as a flag', cause: err });
  }
  throw err;
}

/** Prompts on the terminal with @inquirer/prompts (the only file importing it). */
export function createInquirerPrompter(): Prompter {
  return {
    async input(q) {
      return input({
        message: q.message,
        ...(q.default === undefined ? {} : { default: q.default }),
        ...(q.validate === undefined ? {} : { validate: q.validate }),
      }).catch(cancelled);
    },
    async select(q) {
      return select({
        message: q.message,
        choices: q.choices.map((c) => ({ value: c.value, name: c.name ?? c.value })),
        ...(q.default === undefined ? {} : { default: q.default }),
      }).catch(cancelled);
    },
    async confirm(q) {
      return confirm({ message: q.message, ...(q.default === undefined ? {} : { default: q.default }) }).catch(cancelled);
    },
  };
}
