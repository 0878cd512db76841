import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newHostId, newRequestId } from './request-id.js';

test('request ids look like AWS ids and differ per call', () => {
  const a = newRequestId();
  assert.match(a, /^[0-9A-F]{16}$/);
  assert.notEqual(a, newRequestId());
  assert.match(newHostId(), /^[A-Za-z0-9+/]{32}$/);
});
