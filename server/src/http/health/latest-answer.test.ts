import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { LatestAnswer } from './latest-answer.js';

/** A source whose calls are answered one by one by the test (each call waits for the next `answer`). */
function scripted<T>() {
  const waiting: Array<{ resolve: (v: T) => void; reject: (e: Error) => void }> = [];
  let calls = 0;
  return {
    ask: () => { calls++; return new Promise<T>((resolve, reject) => { waiting.push({ resolve, reject }); }); },
    answer(v: T) { waiting.shift()!.resolve(v); },
    fail(e: Error) { waiting.shift()!.reject(e); },
    get calls() { return calls; },
    get pending() { return waiting.length; },
  };
}

// A probe that waited the hour-long deadline would fail by the test's own timeout, never pass.
const HOUR = 3_600_000;

test('with no earlier answer a probe waits for the call, which answers', { timeout: 10_000 }, async () => {
  const src = scripted<string>();
  const latest = new LatestAnswer(src.ask, { deadlineMs: HOUR, answerWithinMs: 10, maxAgeMs: HOUR });
  const got = latest.get();
  await sleep(30);
  src.answer('a');
  assert.equal(await got, 'a');
});

test('a recent answer stands in while the next call hangs (a frozen peer), and the late answer then replaces it', { timeout: 10_000 }, async () => {
  const src = scripted<string>();
  const latest = new LatestAnswer(src.ask, { deadlineMs: HOUR, answerWithinMs: 10, maxAgeMs: HOUR });
  const first = latest.get();
  src.answer('ok');
  assert.equal(await first, 'ok');
  assert.equal(await latest.get(), 'ok', 'the hanging call is not waited for');
  assert.equal(await latest.get(), 'ok');
  assert.equal(src.calls, 2, 'probes share the running call');
  src.answer('degraded');
  await sleep(0);
  const next = latest.get();
  src.answer('back');
  assert.equal(await next, 'back', 'a call that answers in time is used');
  assert.equal(src.calls, 3);
});

test('while one call hangs only the probe that started it waits: later probes answer from the recent answer at once', { timeout: 10_000 }, async () => {
  const src = scripted<string>();
  const latest = new LatestAnswer(src.ask, { deadlineMs: HOUR, answerWithinMs: 100, maxAgeMs: HOUR });
  const first = latest.get();
  src.answer('ok');
  assert.equal(await first, 'ok');
  assert.equal(await latest.get(), 'ok', 'the probe that started the hanging call waited its 100 ms');
  // Answered without a timer: were it to wait (the 100 ms again), the 1 ms timer would win the race.
  const got = await Promise.race([latest.get(), sleep(1).then(() => 'waited')]);
  assert.equal(got, 'ok');
  assert.equal(src.calls, 2, 'still the one hanging call');
});

test('the late answer of a slow call is what the next probe sees when the following call is slow too', { timeout: 10_000 }, async () => {
  const src = scripted<string>();
  const latest = new LatestAnswer(src.ask, { deadlineMs: HOUR, answerWithinMs: 10, maxAgeMs: HOUR });
  const first = latest.get();
  src.answer('ok');
  await first;
  assert.equal(await latest.get(), 'ok');
  src.answer('degraded');
  await sleep(0);
  assert.equal(await latest.get(), 'degraded');
});

test('an answer older than maxAgeMs does not stand in: the probe waits its deadline and answers undefined', { timeout: 10_000 }, async () => {
  const src = scripted<string>();
  const latest = new LatestAnswer(src.ask, { deadlineMs: 50, answerWithinMs: 10, maxAgeMs: 40 });
  const first = latest.get();
  src.answer('ok');
  assert.equal(await first, 'ok');
  await sleep(60);
  assert.equal(await latest.get(), undefined);
});

test('a rejected call answers undefined (not ready), and that answer stands in like any other', { timeout: 10_000 }, async () => {
  const src = scripted<boolean>();
  const latest = new LatestAnswer(src.ask, { deadlineMs: HOUR, answerWithinMs: 10, maxAgeMs: HOUR });
  const first = latest.get();
  src.fail(new Error('peer gone'));
  assert.equal(await first, undefined);
  assert.equal(await latest.get(), undefined);
});

test('a call that never settles is abandoned after maxAgeMs and a new one is made', { timeout: 10_000 }, async () => {
  const src = scripted<string>();
  const latest = new LatestAnswer(src.ask, { deadlineMs: 20, answerWithinMs: 10, maxAgeMs: 30 });
  assert.equal(await latest.get(), undefined);
  await sleep(40);
  const next = latest.get();
  assert.equal(src.calls, 2);
  src.answer('abandoned');
  src.answer('new');
  assert.equal(await next, 'new');
  assert.equal(await latest.get(), 'new', 'the abandoned call settling first does not overwrite the newer answer');
  assert.equal(src.pending, 1);
});
