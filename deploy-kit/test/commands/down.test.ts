import assert from 'node:assert/strict';
import { test } from 'node:test';
import { downCommand } from '../../src/commands/down/command.js';
import type { DownOptions } from '../../src/commands/down/run.js';
import { buildSpec, formatSpec, parseSpec } from '../../src/config/index.js';
import { createMemoryFs, createRecordingExec, createTestDeps, execResults } from '../../src/io/testing.js';
import type { ExecCall, MemoryFs, RecordingExec } from '../../src/io/testing.js';
import { main } from '../../src/main.js';

const DIR = '/work/deploy';

function specYaml(): string {
  const { spec, problems } = parseSpec(buildSpec({ s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'pem', nodes: 1, drivesPerNode: 1 }));
  assert.deepEqual(problems, []);
  return formatSpec(spec!);
}

function deployment(dir = DIR, extra: Record<string, string> = {}): MemoryFs {
  return createMemoryFs({ [`${dir}/deploy-kit.yaml`]: specYaml(), [`${dir}/compose.yaml`]: 'services: {}\n', ...extra });
}

/** A host with compose v1 only; `down` exits with `downExit`. */
function v1Host(downExit = 0): RecordingExec {
  return createRecordingExec((c: ExecCall) => {
    const a = c.args.join(' ');
    if (c.file === 'docker' && a === 'compose version') return execResults.fail(1, 'docker: \'compose\' is not a docker command.');
    if (c.file === 'docker-compose' && a === 'version --short') return execResults.ok('1.29.2\n');
    if (c.args.includes('down')) return downExit === 0 ? execResults.ok() : execResults.fail(downExit, 'ERROR: error while removing network: network proj_default has active endpoints');
    return execResults.notFound();
  });
}

async function run(args: string[], fs: MemoryFs, exec: RecordingExec): Promise<{ code: number; out: string; err: string }> {
  const deps = createTestDeps({ fs, exec });
  const code = await main(['node', 'deploy-kit', 'down', ...args], deps);
  return { code, out: deps.out.stdoutText(), err: deps.out.stderrText() };
}

const downCall = (exec: RecordingExec): ExecCall | undefined => exec.calls.find((c) => c.args.includes('down'));

test('down: flags map to options; defaults are the current directory, the directory\'s project name and volumes kept', async () => {
  const seen: DownOptions[] = [];
  const capture = async (o: DownOptions): Promise<void> => { seen.push(o); };
  await downCommand(createTestDeps(), capture).parseAsync([], { from: 'user' });
  await downCommand(createTestDeps(), capture).parseAsync(['--dir', 'prod', '-p', 'svc-prod', '--volumes'], { from: 'user' });
  await downCommand(createTestDeps(), capture).parseAsync(['--project', 'other'], { from: 'user' });
  assert.deepEqual(seen, [
    { dir: '.', project: undefined, volumes: false },
    { dir: 'prod', project: 'svc-prod', volumes: true },
    { dir: '.', project: 'other', volumes: false },
  ]);
});

test('down: runs `compose down` on the project with -p/-f, keeps the volumes and says so (exit 0)', async () => {
  const exec = v1Host();
  const r = await run(['--dir', DIR, '-p', 'proj'], deployment(), exec);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(downCall(exec), { file: 'docker-compose', args: ['-p', 'proj', '-f', `${DIR}/compose.yaml`, 'down', '--remove-orphans', '-t', '10'] });
  assert.equal(r.out, 'project proj is down (data volumes kept)\n');
});

test('down --volumes: also removes the volumes and warns that the data is gone', async () => {
  const exec = v1Host();
  const r = await run(['--dir', DIR, '-p', 'proj', '--volumes'], deployment(), exec);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(downCall(exec)?.args.slice(-5), ['down', '--remove-orphans', '-t', '10', '--volumes']);
  assert.match(r.out, /volumes removed: the stored data is gone/);
});

test('down: a deployment started with --publish-* is stopped from its published compose file, which is then removed', async () => {
  const fs = deployment(DIR, { [`${DIR}/.compose.published.yaml`]: 'services: {}\n' });
  const exec = v1Host();
  const r = await run(['--dir', DIR, '-p', 'proj'], fs, exec);
  assert.equal(r.code, 0, r.err);
  assert.equal(downCall(exec)?.args[3], `${DIR}/.compose.published.yaml`);
  assert.equal(await fs.stat(`${DIR}/.compose.published.yaml`), undefined);
});

test('down: --dir is resolved against the working directory; the project defaults to the directory\'s name as compose derives it', async () => {
  const exec = v1Host();
  const r = await run(['--dir', 'My.Site'], deployment('/work/deploy/My.Site'), exec);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(downCall(exec)?.args.slice(0, 4), ['-p', 'mysite', '-f', '/work/deploy/My.Site/compose.yaml']);
});

test('down: usage errors exit 2 with one line and run nothing (bad project name, unknown flag, extra argument)', async () => {
  for (const args of [['-p', 'Bad Name'], ['--force'], ['node1']]) {
    const exec = v1Host();
    const r = await run(['--dir', DIR, ...args], deployment(), exec);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.err.trimEnd().split('\n').length, 1, r.err);
    assert.match(r.err, /^deploy-kit: error: .+ \(hint: .+\)$/m);
    assert.equal(downCall(exec), undefined);
  }
});

test('down: no deploy-kit.yaml is exit 2; compose failing or missing is exit 4 with the tool\'s last lines', async () => {
  const missing = await run(['--dir', '/elsewhere'], deployment(), v1Host());
  assert.equal(missing.code, 2);
  assert.match(missing.err, /deploy-kit\.yaml/);

  const failing = await run(['--dir', DIR, '-p', 'proj'], deployment(), v1Host(1));
  assert.equal(failing.code, 4);
  assert.match(failing.err, /docker-compose -p proj .* down .*failed \(exit 1\)/);
  assert.match(failing.err, /network proj_default has active endpoints/);
  assert.equal(failing.out, '');

  const none = await run(['--dir', DIR], deployment(), createRecordingExec());
  assert.equal(none.code, 4);
  assert.match(none.err, /neither `docker compose` \(v2\) nor `docker-compose` \(v1\) is installed/);
});
