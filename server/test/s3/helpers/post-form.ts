/** Browser-style POST forms signed as the AWS SigV4 POST example does, sent with fetch + FormData. */
import { createHmac } from 'node:crypto';
import { ACCESS_KEY, REGION, SECRET_KEY } from './harness.js';

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** The policy and signature fields of a form whose policy has `conditions` (plus the signature fields' own). */
export function signedFields(conditions: unknown[], opts: { expiration?: Date; secret?: string; accessKey?: string } = {}): Record<string, string> {
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  const amzDate = `${day}T000000Z`;
  const credential = `${opts.accessKey ?? ACCESS_KEY}/${day}/${REGION}/s3/aws4_request`;
  const policy = Buffer.from(JSON.stringify({
    expiration: (opts.expiration ?? new Date(Date.now() + 3_600_000)).toISOString(),
    conditions: [...conditions, { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' }, { 'x-amz-credential': credential }, { 'x-amz-date': amzDate }],
  })).toString('base64');
  const key = hmac(hmac(hmac(hmac(`AWS4${opts.secret ?? SECRET_KEY}`, day), REGION), 's3'), 'aws4_request');
  return {
    policy,
    'x-amz-algorithm': 'AWS4-HMAC-SHA256',
    'x-amz-credential': credential,
    'x-amz-date': amzDate,
    'x-amz-signature': hmac(key, policy).toString('hex'),
  };
}

/** POSTs a form (fields in order, then the file) to `endpoint/bucket`; redirects are not followed. */
export async function postForm(endpoint: string, bucket: string, fields: Record<string, string>, file: Buffer | undefined, filename = 'photo.jpg'): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file !== undefined) form.append('file', new Blob([new Uint8Array(file)]), filename);
  return fetch(`${endpoint}/${bucket}`, { method: 'POST', body: form, redirect: 'manual' });
}
