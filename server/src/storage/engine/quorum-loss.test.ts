import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DiskFullError, DiskNotFoundError } from '../drive/index.js';
import { writeQuorumLost } from './quorum-loss.js';
import { InsufficientWriteQuorumError, StorageFullError } from './storage-errors.js';

const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
const edquot = Object.assign(new Error('EDQUOT: disk quota exceeded'), { code: 'EDQUOT' });

test('writeQuorumLost: full drives among at least half of the failures make StorageFullError', () => {
  const full = writeQuorumLost('write quorum 3 lost', [undefined, enospc, new DiskFullError('/d3'), undefined]);
  assert.ok(full instanceof StorageFullError && full instanceof InsufficientWriteQuorumError);
  assert.equal(full.message, 'write quorum 3 lost (2 with no space left)');
  assert.ok(writeQuorumLost('m', [edquot, new DiskNotFoundError('/d2')]) instanceof StorageFullError, 'one of two is half');
});

test('writeQuorumLost: offline drives (or no errors at all) stay a plain quorum loss', () => {
  for (const errors of [[new DiskNotFoundError('/d1'), new DiskNotFoundError('/d2'), enospc], [], [undefined, undefined]]) {
    const err = writeQuorumLost('write quorum 3 lost', errors);
    assert.ok(!(err instanceof StorageFullError), String(errors.length));
    assert.equal(err.message, 'write quorum 3 lost');
  }
});
