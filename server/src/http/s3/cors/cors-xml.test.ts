import { test } from 'node:test';
import assert from 'node:assert/strict';
import { S3Error } from '../s3-error.js';
import { decodeCorsConfiguration, encodeCorsConfiguration, loadCorsRules, storeCorsRules } from './cors-xml.js';

const DOC = `<?xml version="1.0" encoding="UTF-8"?>
<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <CORSRule>
    <ID>site</ID>
    <AllowedOrigin> https://*.example.com </AllowedOrigin>
    <AllowedMethod>PUT</AllowedMethod><AllowedMethod>POST</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>3000</MaxAgeSeconds>
  </CORSRule>
  <CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule>
</CORSConfiguration>`;

test('decodeCorsConfiguration reads every element; encode and the stored form round-trip', () => {
  const rules = decodeCorsConfiguration(Buffer.from(DOC));
  assert.deepEqual(rules, [
    { id: 'site', allowedOrigins: ['https://*.example.com'], allowedMethods: ['PUT', 'POST'], allowedHeaders: ['*'], exposeHeaders: ['ETag'], maxAgeSeconds: 3000 },
    { allowedOrigins: ['*'], allowedMethods: ['GET'], allowedHeaders: [], exposeHeaders: [] },
  ]);
  const xml = encodeCorsConfiguration(rules);
  assert.match(xml, /<CORSRule><ID>site<\/ID><AllowedHeader>\*<\/AllowedHeader><AllowedMethod>PUT<\/AllowedMethod><AllowedMethod>POST<\/AllowedMethod>/);
  assert.deepEqual(decodeCorsConfiguration(Buffer.from(xml)), rules);
  assert.deepEqual(loadCorsRules(storeCorsRules(rules)), rules);
  assert.throws(() => loadCorsRules('{"v":2}'));
});

const malformed: Array<[string, string]> = [
  ['another root', '<Cors><CORSRule/></Cors>'],
  ['a negative MaxAgeSeconds', '<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><MaxAgeSeconds>-1</MaxAgeSeconds></CORSRule></CORSConfiguration>'],
  ['two MaxAgeSeconds', '<CORSConfiguration><CORSRule><MaxAgeSeconds>1</MaxAgeSeconds><MaxAgeSeconds>2</MaxAgeSeconds></CORSRule></CORSConfiguration>'],
  ['an origin with children', '<CORSConfiguration><CORSRule><AllowedOrigin><a/></AllowedOrigin></CORSRule></CORSConfiguration>'],
];
for (const [name, body] of malformed) {
  test(`decodeCorsConfiguration: ${name} is MalformedXML`, () => {
    assert.throws(() => decodeCorsConfiguration(Buffer.from(body)), (e: unknown) => e instanceof S3Error && e.code === 'MalformedXML');
  });
}
