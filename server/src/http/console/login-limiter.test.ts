import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConsoleError } from './console-error.js';
import { LoginLimiter } from './login-limiter.js';

test('failures past the limit answer TooManyAttempts with Retry-After until the window moves on', () => {
  let now = 1_000_000;
  const limiter = new LoginLimiter({ maxFailures: 3, windowMs: 60_000, now: () => now });
  const keys = ['ip:1.2.3.4', 'ak:alice'];
  for (let i = 0; i < 3; i++) {
    limiter.check(keys);
    limiter.fail(keys);
  }
  assert.throws(() => limiter.check(keys), (err: unknown) => err instanceof ConsoleError && err.code === 'TooManyAttempts' && err.status === 429 && err.retryAfter === 60);
  assert.throws(() => limiter.check(['ip:1.2.3.4']), ConsoleError);
  limiter.check(['ip:5.6.7.8']);
  now += 60_001;
  limiter.check(keys);
});

test('a success clears the access key but not the address', () => {
  const limiter = new LoginLimiter({ maxFailures: 1 });
  limiter.fail(['ip:a', 'ak:bob']);
  limiter.succeed('ak:bob');
  limiter.check(['ak:bob']);
  assert.throws(() => limiter.check(['ip:a']), ConsoleError);
});
