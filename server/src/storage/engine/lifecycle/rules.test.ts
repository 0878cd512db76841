import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dueTime, filterMatches } from './rules.js';

test('dueTime adds the days and rounds up to the next midnight UTC (AWS example: 1/15 10:30 + 3 days → 1/19 00:00)', () => {
  assert.equal(dueTime(Date.UTC(2014, 0, 15, 10, 30), 3), Date.UTC(2014, 0, 19));
  assert.equal(dueTime(Date.UTC(2014, 0, 15, 23, 59, 59), 1), Date.UTC(2014, 0, 17));
  assert.equal(dueTime(Date.UTC(2014, 0, 15, 0, 0, 1), 1), Date.UTC(2014, 0, 17));
  assert.equal(dueTime(Date.UTC(2014, 11, 31, 12), 1), Date.UTC(2015, 0, 2));
});

test('filterMatches: prefix, every tag, exclusive size bounds; markers never match tag or size filters', () => {
  const obj = { tags: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }], size: 100 };
  assert.equal(filterMatches({}, 'x', obj), true);
  assert.equal(filterMatches({ prefix: 'lo' }, 'logs/1', obj), true);
  assert.equal(filterMatches({ prefix: 'lo' }, 'data/1', obj), false);
  assert.equal(filterMatches({ tags: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }] }, 'x', obj), true);
  assert.equal(filterMatches({ tags: [{ key: 'a', value: '2' }] }, 'x', obj), false);
  assert.equal(filterMatches({ sizeGreaterThan: 99, sizeLessThan: 101 }, 'x', obj), true);
  assert.equal(filterMatches({ sizeGreaterThan: 100 }, 'x', obj), false);
  assert.equal(filterMatches({ sizeLessThan: 100 }, 'x', obj), false);
  assert.equal(filterMatches({ prefix: 'x' }, 'x', undefined), true);
  assert.equal(filterMatches({ sizeLessThan: 100 }, 'x', undefined), false);
});
