/** The second pass of the suite (scripts/test.sh) keeps every test file that can meet a drive's records. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layoutTests } from '../../../scripts/layout-tests.mjs';

test('the metadata-file pass keeps tests that reach a drive or a spawned server, and drops parser-only, client-side and layout-free ones', () => {
  const reach = [
    'server/src/storage/engine/scanner.test.ts', // opens storage in-process
    'server/src/storage/drive/local-drive.test.ts',
    'server/test/s3/list.test.ts', // a spawned server
    'server/test/faults/fault-run.test.ts',
    'server/test/cluster/cluster.test.ts', // the multi-node paths on this layout
  ];
  const once = [
    'server/src/auth/sigv4/canonical-request.test.ts', // imports nothing that reaches a drive
    'server/src/http/s3/xml/requests.test.ts',
    'server/test/fuzz/xml-bodies.test.ts', // reaches one, but its inputs never pass the parsers
    'server/test/rc/alias.test.ts', // a client of the S3 API (server/test/s3 runs twice)
    'server/test/console/console.test.ts',
    'server/test/cluster/contention.test.ts', // the lock and placement over pools: the layout does not change them
    'server/test/cluster/pools.test.ts',
  ];
  assert.deepEqual(layoutTests([...reach, ...once]), reach);
});
