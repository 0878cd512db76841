import type { LookupSecret } from '../credentials.js';
import { ALGORITHM } from './constants.js';
import { parseAmzDate } from './amz-date.js';
import { parseCredential } from './credential-scope.js';
import { deriveSigningKey, hmacHex, signaturesEqual } from './signing-key.js';
import { SigV4Error } from './sigv4-errors.js';

/**
 * SigV4 signature of a browser-based upload form (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-post-example.html):
 * the string to sign is the base64 `policy` field itself, signed with the scoped key of `x-amz-credential`.
 * The policy's expiration (not the request time) bounds the form's validity, so no clock skew is checked.
 */

/** The signature fields of a form (names lower-cased). */
export interface PostSignatureFields {
  policy: string;
  algorithm: string | undefined;
  credential: string | undefined;
  date: string | undefined;
  signature: string | undefined;
}

/**
 * Verifies a form's policy signature and resolves the signer's access key. Throws SigV4Error: InvalidArgument
 * for a missing or unsupported field, AuthorizationQueryParametersError for a malformed credential,
 * InvalidAccessKeyId for an unknown key, SignatureDoesNotMatch for a wrong signature.
 */
export async function verifyPostPolicySignature(fields: PostSignatureFields, lookupSecret: LookupSecret): Promise<{ accessKey: string; region: string }> {
  const missing = (name: string): SigV4Error => new SigV4Error('InvalidArgument', `Bucket POST must contain a field named '${name}'.  If it is specified, please check the order of the fields.`);
  if (fields.algorithm === undefined) throw missing('x-amz-algorithm');
  if (fields.algorithm !== ALGORITHM) throw new SigV4Error('InvalidArgument', `Only the ${ALGORITHM} algorithm is supported for POST uploads.`);
  if (fields.credential === undefined) throw missing('x-amz-credential');
  if (fields.date === undefined) throw missing('x-amz-date');
  if (fields.signature === undefined) throw missing('x-amz-signature');
  const credential = parseCredential(fields.credential, {
    code: 'AuthorizationQueryParametersError', prefix: 'Error parsing the X-Amz-Credential parameter; ',
  });
  const date = parseAmzDate(fields.date);
  if (date === undefined) throw new SigV4Error('InvalidArgument', 'X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd\'T\'HHmmss\'Z\'".');
  const secret = await lookupSecret(credential.accessKey);
  if (secret === undefined) throw new SigV4Error('InvalidAccessKeyId', 'The AWS access key ID that you provided does not exist in our records.');
  const expected = hmacHex(deriveSigningKey(secret, credential.date, credential.region, credential.service), fields.policy);
  if (!signaturesEqual(expected, fields.signature.toLowerCase())) {
    throw new SigV4Error('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
  return { accessKey: credential.accessKey, region: credential.region };
}
