import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createExecaExec } from './execa-exec.js';

test('a missing program is notFound, a failing one is data with its exit code and output', async () => {
  const exec = createExecaExec();
  assert.deepEqual(await exec.run('deploy-kit-no-such-program', []), { notFound: true, exitCode: 127, stdout: '', stderr: '' });
  assert.deepEqual(await exec.run('sh', ['-c', 'echo out; echo err >&2; exit 3']), { notFound: false, exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
});
