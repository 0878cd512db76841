import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { journalLessDisk, powerCut } from '../../test/helpers/power-cut.js';
import { loadOrCreateRootCredentials } from './root-credentials.js';

/** A directory path under a new temp directory, removed with it after the test (it holds generated credentials). */
function tempCfg(t: { after(fn: () => void): void }): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-iam-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return join(root, 'cfg');
}

test('credentials are generated once, stored with mode 600, and reused', async (t) => {
  const dir = tempCfg(t);
  const first = await loadOrCreateRootCredentials(undefined, dir);
  assert.equal(first.generated, true);
  assert.match(first.credentials.accessKey, /^[A-Z0-9]{20}$/);
  assert.match(first.credentials.secretKey, /^[A-Za-z0-9]{40}$/);
  assert.equal(statSync(join(dir, 'credentials.json')).mode & 0o777, 0o600);
  const second = await loadOrCreateRootCredentials(undefined, dir);
  assert.equal(second.generated, false);
  assert.deepEqual(second.credentials, first.credentials);
});

test('credentials from the environment win and nothing is written', async (t) => {
  const dir = tempCfg(t);
  const r = await loadOrCreateRootCredentials({ accessKey: 'admin', secretKey: 'password1' }, dir);
  assert.deepEqual(r, { credentials: { accessKey: 'admin', secretKey: 'password1' }, generated: false });
  assert.throws(() => statSync(dir));
});

test('generated credentials survive a power cut right after they were written', async (t) => {
  const disk = await journalLessDisk(t, 32);
  const made = await loadOrCreateRootCredentials(undefined, join(disk.mount, 'cfg'));
  const cut = await powerCut(t, disk);
  const after = await loadOrCreateRootCredentials(undefined, join(cut.mount, 'cfg'));
  assert.equal(after.generated, false, 'read back, not generated anew');
  assert.deepEqual(after.credentials, made.credentials);
});
