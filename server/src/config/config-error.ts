import { ServerError } from '../common/index.js';

/** A setting is invalid; `hint` tells the operator the expected form. Exit code 2 at the CLI. */
export class ConfigError extends ServerError {
  readonly hint: string;
  constructor(message: string, hint: string) {
    super('ERR_CONFIG', message);
    this.hint = hint;
  }
}
