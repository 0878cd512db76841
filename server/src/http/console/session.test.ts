import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveConsoleKeys } from './console-keys.js';
import { ConsoleError } from './console-error.js';
import { csrfTokenOf, issueSession, secretFingerprint, verifySession } from './session.js';

const root = { accessKey: 'rootuser', secretKey: 'rootsecret-123' };
const keys = deriveConsoleKeys(root);
const t0 = new Date('2026-01-01T00:00:00Z');

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConsoleError);
    return err.code;
  }
  return 'none';
}

test('a session issued by one node verifies on another with the same root credentials', () => {
  const { token, session } = issueSession(keys, { sub: 'alice', kind: 'keys', fp: 'x' }, 3600, t0);
  const other = deriveConsoleKeys({ ...root });
  const back = verifySession(other, token, new Date(t0.getTime() + 1000));
  assert.deepEqual(back, session);
  assert.equal(csrfTokenOf(other, back), csrfTokenOf(keys, session));
});

test('expired, forged, foreign and missing tokens are refused with their own codes', () => {
  const { token } = issueSession(keys, { sub: 'alice', kind: 'oidc', policies: ['readonly'] }, 60, t0);
  assert.equal(code(() => verifySession(keys, token, new Date(t0.getTime() + 60_000))), 'SessionExpired');
  assert.equal(code(() => verifySession(keys, undefined, t0)), 'SessionRequired');
  const [v, payload, mac] = token.split('.');
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'root' })).toString('base64url');
  assert.equal(code(() => verifySession(keys, `${v}.${forged}.${mac}`, t0)), 'SessionRequired');
  const foreign = deriveConsoleKeys({ accessKey: 'rootuser', secretKey: 'another-secret' });
  assert.equal(code(() => verifySession(foreign, token, t0)), 'SessionRequired');
  assert.equal(code(() => verifySession(keys, 'garbage', t0)), 'SessionRequired');
});

test('the secret fingerprint changes with the secret and does not contain it', () => {
  const a = secretFingerprint(keys, 'alice', 'secret-one');
  assert.notEqual(a, secretFingerprint(keys, 'alice', 'secret-two'));
  assert.ok(!a.includes('secret'));
});
