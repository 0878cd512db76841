import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitMiddle, humanBytes, humanDuration, ordinal, parseDuration } from './format.js';

test('humanBytes uses IEC units with one decimal', () => {
  assert.equal(humanBytes(0), '0 B');
  assert.equal(humanBytes(1023), '1023 B');
  assert.equal(humanBytes(1536), '1.5 KiB');
  assert.equal(humanBytes(300 * 1024 * 1024), '300.0 MiB');
  assert.equal(humanBytes(5 * 1024 ** 4), '5.0 TiB');
  assert.equal(humanBytes(-1), '-');
});

test('humanDuration shows the two largest units', () => {
  assert.equal(humanDuration(0), '0 seconds');
  assert.equal(humanDuration(1), '1 second');
  assert.equal(humanDuration(5321), '1 hour 28 minutes');
  assert.equal(humanDuration(86_400 * 2 + 3600 * 3 + 59), '2 days 3 hours');
  assert.equal(humanDuration(3600), '1 hour');
});

test('ordinal and fitMiddle', () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22].map(ordinal), ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd']);
  assert.equal(fitMiddle('abcdef', 10), 'abcdef');
  assert.equal(fitMiddle('abcdefghij', 5), 'ab…ij');
  assert.equal(fitMiddle('abcdefghij', 5).length, 5);
});

test('parseDuration accepts s/m/h/d and combinations, refuses anything else', () => {
  assert.equal(parseDuration('30s'), 30);
  assert.equal(parseDuration('7d'), 604_800);
  assert.equal(parseDuration('1h30m'), 5400);
  assert.equal(parseDuration('90'), 90);
  for (const bad of ['', '7x', 'd', '1h 30m', '-5s', '1.5h']) assert.equal(parseDuration(bad), undefined, bad);
});
