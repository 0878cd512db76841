import { ServerError } from '../../common/index.js';

/** A persisted record (format file, metadata record) that cannot be decoded. */
export class CorruptRecordError extends ServerError {
  constructor(what: string, message: string, options?: { cause?: unknown }) {
    super('ERR_CORRUPT_RECORD', `${what}: ${message}`, options);
  }
}
