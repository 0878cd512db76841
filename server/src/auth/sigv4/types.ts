import type { Readable } from 'node:stream';
import type { ChecksumAlgorithm } from '../../common/index.js';

/** Header map as node delivers it (IncomingHttpHeaders: lower-case names, arrays for repeated headers). */
export type SigV4Headers = Record<string, string | string[] | undefined>;

/** What verifyRequest needs from an HTTP request; nothing here is decoded or normalized. */
export interface SigV4Request {
  method: string;
  /** Exactly as received on the wire: percent-encoded, no query string. */
  rawPath: string;
  /** Everything after '?', as received; '' when there is none. */
  rawQuery: string;
  /** node's lower-cased IncomingHttpHeaders. */
  headers: SigV4Headers;
  /**
   * Optional node `rawHeaders` (name, value, name, value...). When given, repeated signed headers are
   * canonicalized from it exactly (node joins some repeats with ", " and drops others in `headers`).
   */
  rawHeaders?: readonly string[];
}

/**
 * How the request body is protected, from x-amz-content-sha256 (or the presigned default).
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
 */
export type PayloadMode =
  /** x-amz-content-sha256 is the hex SHA-256 of the body: checked when the body ends. */
  | 'sha256'
  /** UNSIGNED-PAYLOAD (also presigned URLs and anonymous requests without the header). */
  | 'unsigned'
  /** STREAMING-AWS4-HMAC-SHA256-PAYLOAD: aws-chunked body, every chunk signed. */
  | 'streaming-signed'
  /** STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER: signed chunks plus a signed trailer. */
  | 'streaming-signed-trailer'
  /** STREAMING-UNSIGNED-PAYLOAD-TRAILER: aws-chunked body without signatures, checksum in a trailer. */
  | 'streaming-unsigned-trailer';

/** A request that carried no authentication at all (no Authorization header, no X-Amz-* query auth). */
export interface AnonymousRequest {
  readonly anonymous: true;
  readonly payload: PayloadMode;
  /** Hex SHA-256 the body must have, when payload is 'sha256'. */
  readonly payloadSha256?: string;
}

/** A request whose SigV4 signature was verified. Pass this very object to decodePayload (do not copy it). */
export interface AuthenticatedRequest {
  readonly anonymous: false;
  /** 'header': Authorization header; 'presigned': X-Amz-* query parameters. */
  readonly authType: 'header' | 'presigned';
  readonly accessKey: string;
  /** Region of the credential scope, whatever it is (recorded, not enforced). */
  readonly region: string;
  /** Always 's3'. */
  readonly service: string;
  /** Request time (X-Amz-Date, or the Date header). */
  readonly requestTime: Date;
  /** Request time in ISO 8601 basic format, as signed (yyyyMMddTHHmmssZ). */
  readonly amzDate: string;
  /** Credential scope `<yyyyMMdd>/<region>/s3/aws4_request`. */
  readonly scope: string;
  readonly signedHeaders: readonly string[];
  /** The verified request signature (seed signature of aws-chunked bodies). */
  readonly signature: string;
  readonly payload: PayloadMode;
  /** Hex SHA-256 the body must have, when payload is 'sha256'. */
  readonly payloadSha256?: string;
  /** Presigned URLs only: when the URL stops being valid. */
  readonly expiresAt?: Date;
  /** X-Amz-Security-Token / x-amz-security-token when sent (STS sessions are not validated here). */
  readonly securityToken?: string;
}

/** Result of verifyRequest. */
export type VerifiedRequest = AnonymousRequest | AuthenticatedRequest;

/** Checksum of a decoded body (base64, as in x-amz-checksum-* headers). */
export interface PayloadChecksum {
  algorithm: ChecksumAlgorithm;
  value: string;
}

/** Result of decodePayload. */
export interface DecodedPayload {
  /**
   * The object bytes (aws-chunked framing removed). Errors with a SigV4Error (XAmzContentSHA256Mismatch,
   * SignatureDoesNotMatch, BadDigest, IncompleteBody...) before 'end' when the body fails a check, so a
   * consumer must only commit what it read once the stream has ended without error.
   */
  stream: Readable;
  /** Decoded body length when announced (Content-Length / x-amz-decoded-content-length), else -1. */
  decodedLength: number;
  /**
   * Verified (or, with only x-amz-sdk-checksum-algorithm, computed) checksum; undefined when none was
   * requested, and until the stream has ended successfully.
   */
  checksum(): PayloadChecksum | undefined;
}
