/**
 * Errors of the admin API (docs/admin-api.md "Errors"): one table of codes with their HTTP status, and the one
 * place lower-layer errors are translated (STYLE.md conventions 1–2). Anything unmapped is InternalError, whose
 * detail goes to the log only.
 */
import { SigV4Error } from '../../auth/index.js';
import { IamError, MalformedPolicyError } from '../../iam/index.js';
import type { IamErrorCode } from '../../iam/index.js';
import { BodyTooLargeError } from '../shared/index.js';
import { InsufficientReadQuorumError, InsufficientWriteQuorumError } from '../../storage/index.js';

/** Codes of the admin API with status and default message. */
export const ADMIN_ERRORS = {
  InvalidArgument: { status: 400, message: 'A parameter is invalid.' },
  MalformedPolicy: { status: 400, message: 'The policy document is not a valid identity policy.' },
  InvalidRequest: { status: 400, message: 'The request body is not valid.' },
  AccessDenied: { status: 403, message: 'Access denied.' },
  InvalidAccessKeyId: { status: 403, message: 'The access key does not exist.' },
  SignatureDoesNotMatch: { status: 403, message: 'The request signature does not match.' },
  RequestTimeTooSkewed: { status: 403, message: 'The difference between the request time and the server time is too large.' },
  NoSuchUser: { status: 404, message: 'The user does not exist.' },
  NoSuchPolicy: { status: 404, message: 'The policy does not exist.' },
  NoSuchGroup: { status: 404, message: 'The group does not exist.' },
  NoSuchServiceAccount: { status: 404, message: 'The service account does not exist.' },
  NotFound: { status: 404, message: 'No such admin API call.' },
  UserExists: { status: 409, message: 'An identity with this access key exists.' },
  PolicyInUse: { status: 409, message: 'The policy is attached and cannot be removed.' },
  GroupNotEmpty: { status: 409, message: 'The group has members and cannot be removed.' },
  InternalError: { status: 500, message: 'We encountered an internal error. Please try again.' },
  ServiceUnavailable: { status: 503, message: 'The storage or IAM is not ready. Retry shortly.' },
} as const satisfies Record<string, { status: number; message: string }>;

/** A code of {@link ADMIN_ERRORS}. */
export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

/** An admin API failure: `code` and `status` from the table, `message` safe to send. */
export class AdminError extends Error {
  readonly code: AdminErrorCode;
  readonly status: number;
  constructor(code: AdminErrorCode, message: string = ADMIN_ERRORS[code].message, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AdminError';
    this.code = code;
    this.status = ADMIN_ERRORS[code].status;
  }
}

const IAM_CODES: Readonly<Record<IamErrorCode, AdminErrorCode>> = {
  InvalidAccessKey: 'InvalidArgument',
  InvalidSecretKey: 'InvalidArgument',
  InvalidPolicyName: 'InvalidArgument',
  InvalidGroupName: 'InvalidArgument',
  InvalidStatus: 'InvalidArgument',
  InvalidExpiration: 'InvalidArgument',
  CannedPolicy: 'InvalidArgument',
  ReservedAccessKey: 'UserExists',
  UserExists: 'UserExists',
  ServiceAccountExists: 'UserExists',
  NoSuchUser: 'NoSuchUser',
  NoSuchServiceAccount: 'NoSuchServiceAccount',
  NoSuchPolicy: 'NoSuchPolicy',
  NoSuchGroup: 'NoSuchGroup',
  PolicyInUse: 'PolicyInUse',
  GroupNotEmpty: 'GroupNotEmpty',
  MalformedPolicy: 'MalformedPolicy',
  CorruptRecord: 'InternalError',
  NotReady: 'ServiceUnavailable',
  StorageNotOpen: 'ServiceUnavailable',
};

// SigV4 failures keep their code when the contract names it; any other means the signature is unusable.
const SIGV4_CODES: Readonly<Partial<Record<string, AdminErrorCode>>> = {
  AccessDenied: 'AccessDenied',
  InvalidAccessKeyId: 'InvalidAccessKeyId',
  SignatureDoesNotMatch: 'SignatureDoesNotMatch',
  RequestTimeTooSkewed: 'RequestTimeTooSkewed',
};

/** The admin error for any thrown value; `internal` when the detail must stay in the log. */
export function toAdminError(err: unknown): { error: AdminError; internal: boolean } {
  if (err instanceof AdminError) return { error: err, internal: err.status >= 500 && err.code === 'InternalError' };
  if (err instanceof IamError) {
    const code = IAM_CODES[err.code];
    return code === 'InternalError' ? { error: new AdminError(code), internal: true } : { error: new AdminError(code, err.message), internal: false };
  }
  if (err instanceof MalformedPolicyError) return { error: new AdminError('MalformedPolicy', err.message), internal: false };
  if (err instanceof SigV4Error) {
    // Every authentication failure is a 403 (docs/admin-api.md); the message says what was wrong.
    return { error: new AdminError(SIGV4_CODES[err.s3Code] ?? 'SignatureDoesNotMatch', err.message), internal: false };
  }
  if (err instanceof BodyTooLargeError) return { error: new AdminError('InvalidRequest', err.message), internal: false };
  if (err instanceof InsufficientReadQuorumError || err instanceof InsufficientWriteQuorumError) {
    return { error: new AdminError('ServiceUnavailable', 'The storage lacks quorum. Retry shortly.'), internal: false };
  }
  return { error: new AdminError('InternalError'), internal: true };
}
