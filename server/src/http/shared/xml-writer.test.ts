import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeXml, xmlDocument } from './xml-writer.js';

test('xmlDocument writes elements in key order, repeats arrays and skips undefined', () => {
  const xml = xmlDocument('Root', {
    A: 'x',
    B: [{ C: 1 }, { C: 2 }],
    D: undefined,
    E: true,
    F: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)),
  }, 'http://example.com/ns');
  assert.equal(
    xml,
    '<?xml version="1.0" encoding="UTF-8"?><Root xmlns="http://example.com/ns"><A>x</A>' +
      '<B><C>1</C></B><B><C>2</C></B><E>true</E><F>2024-01-02T03:04:05.006Z</F></Root>',
  );
});

test('escapeXml escapes markup, quotes, CR and control characters', () => {
  assert.equal(escapeXml(`a&b<c>d"e'f`), 'a&amp;b&lt;c&gt;d&quot;e&apos;f');
  assert.equal(escapeXml('x\ry\u0001z\tw\n'), 'x&#xD;y&#x1;z\tw\n');
  assert.equal(escapeXml('ключ/日本'), 'ключ/日本');
});

test('an empty array or object yields no children', () => {
  assert.equal(xmlDocument('R', { A: [], B: {} }), '<?xml version="1.0" encoding="UTF-8"?><R><B></B></R>');
});
