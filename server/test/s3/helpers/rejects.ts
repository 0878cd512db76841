/** Asserting S3 errors as the AWS SDK reports them. */
import assert from 'node:assert/strict';
import { S3ServiceException } from '@aws-sdk/client-s3';

/**
 * Asserts that `p` rejects with an S3 error: the SDK's error `name` (undefined for a bodyless reply such as 304,
 * where the SDK has no name to report), the HTTP `status` when given, and a `message` pattern when given.
 * Returns the error for further checks (headers, version ids).
 */
export async function rejectsWith(p: Promise<unknown>, name: string | undefined, status?: number, message?: RegExp): Promise<S3ServiceException> {
  let caught: S3ServiceException | undefined;
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof S3ServiceException, String(err));
    if (name !== undefined) assert.equal(err.name, name);
    if (status !== undefined) assert.equal(err.$metadata.httpStatusCode, status);
    if (message !== undefined) assert.match(err.message, message);
    caught = err;
    return true;
  });
  assert.ok(caught);
  return caught;
}
