/**
 * Registry of the server's internal error codes (STYLE.md convention 3, after fastify's `FST_ERR_*` table).
 * Every `ServerError` subclass uses one of these; `docs/errors.md` documents each, and `codes.test.ts` fails
 * when a code is used but not registered, or registered but not documented. Codes are never renamed once released.
 * The HTTP edge translates them to S3 or admin errors by table; they are not shown to S3 clients.
 */
export const ERROR_CODES = {
  ERR_BAD_DIGEST: 'The body does not match its Content-MD5.',
  ERR_BITROT: 'A shard block does not match its bitrot hash.',
  ERR_BITROT_WORKER: 'The worker thread hashing large chunks a GET read failed; their bitrot check runs on the event loop instead.',
  ERR_BODY_TOO_LARGE: 'A request body read into memory (XML) exceeds its cap.',
  ERR_BUCKET_EXISTS: 'The bucket already exists.',
  ERR_BUCKET_NOT_EMPTY: 'The bucket still holds objects or in-progress uploads.',
  ERR_BUCKET_NOT_FOUND: 'The bucket does not exist.',
  ERR_CONFIG: 'A setting (flag, environment variable or file) is invalid.',
  ERR_CORRUPT_RECORD: 'An on-disk record (format or metadata) cannot be decoded, or fails its CRC32C.',
  ERR_DISK_FAULTY: 'A drive answered with an I/O error.',
  ERR_DISK_FULL: 'A drive has no space left.',
  ERR_DISK_NOT_FOUND: 'A drive is offline or its root is missing.',
  ERR_DISK_UNFORMATTED: 'A drive carries no format file (new or wiped).',
  ERR_ENTITY_TOO_SMALL: 'A multipart part other than the last is below 5 MiB.',
  ERR_FILE_CORRUPT: 'A file on a drive is truncated or unreadable.',
  ERR_FILE_NOT_FOUND: 'A file is missing on a drive.',
  ERR_FORMAT_MISMATCH: 'A drive belongs to another deployment or layout.',
  ERR_INCOMPLETE_BODY: 'The body is shorter or longer than declared.',
  ERR_INVALID_BUCKET_NAME: 'The bucket name cannot be stored.',
  ERR_INVALID_DRIVE_PATH: 'A drive-relative path would escape the drive.',
  ERR_INVALID_OBJECT_NAME: 'The object key is empty, too long, or holds NUL or invalid UTF-8.',
  ERR_INVALID_PART: 'A part listed in CompleteMultipartUpload is missing or its ETag differs.',
  ERR_INVALID_PART_ORDER: 'Parts are not listed in ascending order.',
  ERR_MD5_WORKER: 'The worker thread computing a PUT\'s MD5 (the ETag) failed; the PUT is refused, nothing is stored.',
  ERR_OBJECT_LOCKED: 'An object version is protected by Object Lock (retention or legal hold) and cannot be removed.',
  ERR_OBJECT_NOT_FOUND: 'The object does not exist.',
  ERR_READ_QUORUM: 'Fewer drives than the read quorum answered.',
  ERR_RPC_AUTH: 'A node refused the internal RPC token of another (different root credentials).',
  ERR_RPC_PROTOCOL: 'A node answered an internal RPC call with something this node cannot understand.',
  ERR_RPC_UNAVAILABLE: 'A node is unreachable or did not answer an internal RPC call within its deadline.',
  ERR_SIGV4: 'SigV4 verification or payload decoding failed (the S3 code is on the error).',
  ERR_STORAGE_CONFIG: 'The storage layout given at start is invalid.',
  ERR_UNSUPPORTED_ERASURE: 'The erasure parameters are outside what the codec supports.',
  ERR_UPLOAD_NOT_FOUND: 'The multipart upload does not exist.',
  ERR_VOLUME_EXISTS: 'A volume (bucket directory) already exists on a drive.',
  ERR_VOLUME_NOT_FOUND: 'A volume (bucket directory) is missing on a drive.',
  ERR_WRITE_QUORUM: 'Fewer drives than the write quorum accepted a write. When at least half of the drives that failed had no space left, the error is a StorageFullError and S3 clients read "Storage is full" with how to free space.',
} as const satisfies Record<`ERR_${string}`, string>;

/** A registered internal error code. */
export type ServerErrorCode = keyof typeof ERROR_CODES;
