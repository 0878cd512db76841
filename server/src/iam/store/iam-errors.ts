/**
 * Refusals of the IAM store, each with a stable code the admin API (issue 5) maps to its JSON error, after
 * MinIO's XMinioAdmin* codes. Plain `Error` subclasses like MalformedPolicyError: they describe bad input or a
 * state conflict, never a server fault (storage faults keep their own storage error classes).
 */

/** Codes of {@link IamError}. */
export const IAM_ERROR_CODES = {
  InvalidAccessKey: 'The access key is not 3 to 128 characters of A-Z a-z 0-9 . _ - @ +.',
  InvalidSecretKey: 'The secret key is not 8 to 40 characters.',
  InvalidPolicyName: 'The policy name is not 1 to 128 characters of A-Z a-z 0-9 . _ - starting with a letter or digit.',
  InvalidGroupName: 'The group name is not 1 to 128 characters of A-Z a-z 0-9 . _ - @ + starting with a letter or digit.',
  InvalidStatus: 'The status is neither enabled nor disabled.',
  InvalidExpiration: 'The expiration is not a valid date in the future.',
  ReservedAccessKey: 'The access key is the root user\'s or already belongs to another identity.',
  UserExists: 'A user with this access key exists.',
  ServiceAccountExists: 'A service account with this access key exists.',
  NoSuchUser: 'The user does not exist.',
  NoSuchServiceAccount: 'The service account does not exist.',
  NoSuchPolicy: 'The policy does not exist.',
  NoSuchGroup: 'The group does not exist.',
  PolicyInUse: 'The policy is attached to a user or group and cannot be removed.',
  GroupNotEmpty: 'The group has members and cannot be removed.',
  CannedPolicy: 'Built-in policies cannot be replaced or removed.',
  MalformedPolicy: 'The policy document is not a valid identity policy.',
  CorruptRecord: 'An IAM record in the store cannot be decoded.',
  NotReady: 'IAM has not been loaded from storage yet.',
  StorageNotOpen: 'The storage is not open yet.',
} as const;

/** A code of {@link IamError}. */
export type IamErrorCode = keyof typeof IAM_ERROR_CODES;

/** A refused IAM operation: `code` says why, `message` says it for a human. */
export class IamError extends Error {
  readonly code: IamErrorCode;
  constructor(code: IamErrorCode, message: string = IAM_ERROR_CODES[code], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IamError';
    this.code = code;
  }
}
