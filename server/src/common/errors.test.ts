import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerError, isServerError } from './errors.js';

test('ServerError carries a stable code and its subclass name', () => {
  class DemoError extends ServerError {
    constructor() { super('ERR_DEMO', 'demo'); }
  }
  const e = new DemoError();
  assert.equal(e.code, 'ERR_DEMO');
  assert.equal(e.name, 'DemoError');
  assert.ok(isServerError(e));
  assert.ok(!isServerError(new Error('x')));
});
