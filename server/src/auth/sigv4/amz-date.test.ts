import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatAmzDate, parseAmzDate } from './amz-date.js';

/** The definition: the pattern, and a time that formats back to the same text. */
function reference(s: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  return formatAmzDate(t) === s ? t.getTime() : undefined;
}

test('parseAmzDate accepts exactly the real calendar times of the SigV4 basic format', () => {
  const cases = [
    '20130524T000000Z', '20240229T235959Z', '20230229T000000Z', '20130431T000000Z', '20130524T240000Z', '20130524T006000Z',
    '20130524T000060Z', '20131324T000000Z', '20130500T000000Z', '00500101T000000Z', '05000101T000000Z', '99991231T235959Z',
    '2013-05-24T00:00:00Z', '20130524T000000', '20130524t000000Z', '2013052４T000000Z', '', ' 20130524T000000Z',
  ];
  for (const s of cases) {
    // Twice: the second answer comes from the one-entry cache.
    for (let i = 0; i < 2; i++) assert.equal(parseAmzDate(s)?.getTime(), reference(s), s);
  }
  fc.assert(fc.property(
    fc.oneof(fc.string({ maxLength: 20 }), fc.stringMatching(/^\d{8}T\d{6}Z$/), fc.date({ noInvalidDate: true }).map((d) => formatAmzDate(d))),
    (s) => parseAmzDate(s)?.getTime() === reference(s),
  ), { numRuns: 20_000 });
});

test('parseAmzDate returns a fresh Date each time (callers may keep or change it)', () => {
  const a = parseAmzDate('20130524T000000Z')!;
  a.setTime(0);
  assert.equal(parseAmzDate('20130524T000000Z')!.getTime(), Date.UTC(2013, 4, 24));
});
