import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RPC_CLOCK_SKEW_MS, RPC_TOKEN_VALIDITY_MS, RpcTokenSource, makeRpcToken, verifyRpcToken } from './auth.js';

const creds = { accessKey: 'root-user', secretKey: 'root-secret-key' };
const t0 = 1_700_000_000_000;

test('a token made from the same credentials verifies; other credentials or a tampered token do not', () => {
  const token = makeRpcToken(creds, t0);
  assert.equal(verifyRpcToken(`Bearer ${token}`, creds, t0), true);
  assert.equal(verifyRpcToken(`Bearer ${token}`, { ...creds, secretKey: 'other-secret-key' }, t0), false);
  assert.equal(verifyRpcToken(`Bearer ${token}`, { ...creds, accessKey: 'other-user' }, t0), false);
  const [v, exp, sig] = token.split('.');
  assert.equal(verifyRpcToken(`Bearer ${v}.${Number(exp) + 1}.${sig}`, creds, t0), false);
  const flipped = `${sig!.slice(0, -1)}${sig!.endsWith('A') ? 'B' : 'A'}`;
  assert.equal(verifyRpcToken(`Bearer ${v}.${exp}.${flipped}`, creds, t0), false);
});

test('malformed or missing headers are refused (table)', () => {
  const token = makeRpcToken(creds, t0);
  for (const h of [undefined, '', 'Bearer', `Basic ${token}`, `Bearer ${token}x`, `Bearer v2${token.slice(2)}`, token, 'Bearer v1..abc']) {
    assert.equal(verifyRpcToken(h, creds, t0), false, String(h));
  }
});

test('validity is one minute, with clock skew tolerated both ways and no more', () => {
  const token = `Bearer ${makeRpcToken(creds, t0)}`;
  // Receiver's clock behind the sender's by the skew: still accepted; a token from further ahead is not.
  assert.equal(verifyRpcToken(token, creds, t0 - RPC_CLOCK_SKEW_MS), true);
  assert.equal(verifyRpcToken(`Bearer ${makeRpcToken(creds, t0 + RPC_CLOCK_SKEW_MS + 1)}`, creds, t0), false);
  // Expired, within the skew: accepted; beyond: refused.
  assert.equal(verifyRpcToken(token, creds, t0 + RPC_TOKEN_VALIDITY_MS + RPC_CLOCK_SKEW_MS), true);
  assert.equal(verifyRpcToken(token, creds, t0 + RPC_TOKEN_VALIDITY_MS + RPC_CLOCK_SKEW_MS + 1), false);
});

test('the token source reuses a token for half its validity, then renews it', () => {
  let now = t0;
  const src = new RpcTokenSource(creds, () => now);
  const first = src.header();
  now += RPC_TOKEN_VALIDITY_MS / 2 - 1;
  assert.equal(src.header(), first);
  assert.equal(verifyRpcToken(first, creds, now), true);
  now += 2;
  const second = src.header();
  assert.notEqual(second, first);
  assert.equal(verifyRpcToken(second, creds, now), true);
});
