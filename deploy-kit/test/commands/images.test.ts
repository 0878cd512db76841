import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { imagesCommand } from '../../src/commands/images/command.js';
import type { ImagesBuildOptions } from '../../src/commands/images/run.js';
import { createMemoryFs, createRecordingExec, createTestDeps, execResults } from '../../src/io/testing.js';
import type { ExecCall, MemoryFs, RecordingExec } from '../../src/io/testing.js';
import { main } from '../../src/main.js';

/** The checkout deploy-kit runs from in the test deps: templatesDir is /kit/templates. */
const KIT = '/kit';

/** A built repository: Dockerfile, the server's bin and dist, and its one production dependency installed. */
function repo(root: string, omit: readonly string[] = []): MemoryFs {
  const files: Record<string, string> = {
    [`${root}/Dockerfile`]: 'ARG BASE_IMAGE=node:20-bookworm-slim\nFROM ${BASE_IMAGE}\n',
    [`${root}/package.json`]: '{"name":"svc-monorepo","private":true}',
    [`${root}/server/package.json`]: '{"name":"@svc/server","dependencies":{"fastify":"^5.0.0"}}',
    [`${root}/server/bin/svc.js`]: 'import "../dist/src/main.js";\n',
    [`${root}/server/dist/src/main.js`]: 'export {};\n',
    [`${root}/server/dist/console/index.html`]: '<!doctype html>\n',
    [`${root}/server/native/build/md5x4.node`]: 'ELF',
    [`${root}/node_modules/fastify/package.json`]: '{"name":"fastify"}',
  };
  for (const f of omit) delete files[`${root}/${f}`];
  return createMemoryFs(files);
}

/** docker whose `build` exits with `buildExit`; `cp` always works. */
function docker(buildExit = 0): RecordingExec {
  return createRecordingExec((c: ExecCall) => {
    if (c.file === 'cp') return execResults.ok();
    if (c.file === 'docker' && c.args[0] === 'build') {
      return buildExit === 0 ? execResults.ok('Successfully built 0123abcd\n') : execResults.fail(buildExit, 'pull access denied for node, repository does not exist');
    }
    return execResults.notFound();
  });
}

async function run(args: string[], fs: MemoryFs, exec: RecordingExec): Promise<{ code: number; out: string; err: string }> {
  const deps = createTestDeps({ fs, exec });
  const code = await main(['node', 'deploy-kit', ...args], deps);
  return { code, out: deps.out.stdoutText(), err: deps.out.stderrText() };
}

const buildCall = (exec: RecordingExec): ExecCall | undefined => exec.calls.find((c) => c.file === 'docker' && c.args[0] === 'build');

test('images build: flags map to options (tag, base image, repository, global --json); all optional', async () => {
  const seen: ImagesBuildOptions[] = [];
  const program = (): Command => new Command('deploy-kit').option('--json', '', false)
    .addCommand(imagesCommand(createTestDeps(), async (o) => { seen.push(o); }));
  await program().parseAsync(['images', 'build'], { from: 'user' });
  await program().parseAsync(['images', 'build', '--tag', 'local/svc:1', '--base-image', 'svc-test/node:20', '--repo', '../svc'], { from: 'user' });
  await program().parseAsync(['--json', 'images', 'build', '--tag', 't:1'], { from: 'user' });
  assert.deepEqual(seen, [
    { tag: undefined, baseImage: undefined, repo: undefined, json: false },
    { tag: 'local/svc:1', baseImage: 'svc-test/node:20', repo: '../svc', json: false },
    { tag: 't:1', baseImage: undefined, repo: undefined, json: true },
  ]);
});

test('images build: defaults are svc/server:latest on node:20-bookworm-slim from deploy-kit\'s own checkout', async () => {
  const exec = docker();
  const r = await run(['images', 'build'], repo(KIT), exec);
  assert.equal(r.code, 0, r.err);
  const build = buildCall(exec);
  assert.deepEqual(build?.args.slice(0, 5), ['build', '--build-arg', 'BASE_IMAGE=node:20-bookworm-slim', '-t', 'svc/server:latest']);
  assert.equal(r.out, `built svc/server:latest on node:20-bookworm-slim from ${KIT}\n`);
});

test('images build: an air-gapped build names a local base; --repo is resolved against the working directory; --json', async () => {
  const fs = repo('/work/svc');
  const exec = docker();
  const r = await run(['--json', 'images', 'build', '--tag', 'local/svc:1', '--base-image', 'svc-test/node:20', '--repo', '../svc'], fs, exec);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), { tag: 'local/svc:1', baseImage: 'svc-test/node:20', repo: '/work/svc' });
  const build = buildCall(exec);
  assert.deepEqual(build?.args.slice(0, 5), ['build', '--build-arg', 'BASE_IMAGE=svc-test/node:20', '-t', 'local/svc:1']);
  // The context is a staged copy holding only what the Dockerfile copies (and the production dependencies), then removed.
  const context = build?.args[5] ?? '';
  const copied = exec.calls.filter((c) => c.file === 'cp').map((c) => c.args[1]);
  assert.ok(copied.includes('/work/svc/server/dist/src'));
  assert.ok(copied.includes('/work/svc/server/dist/console'), 'the built console is staged');
  assert.ok(copied.includes('/work/svc/server/native/build'), 'the built C addon is staged');
  assert.ok(copied.includes('/work/svc/node_modules/fastify'));
  assert.ok(!copied.some((p) => p?.includes('deploy-kit')), copied.join(' '));
  assert.equal(await fs.stat(context), undefined, 'the staged context is removed');
});

test('images build: an unbuilt server or a missing dependency is exit 1 with the fix; nothing is built', async () => {
  const unbuilt = docker();
  const r = await run(['images', 'build'], repo(KIT, ['server/dist/src/main.js']), unbuilt);
  assert.equal(r.code, 1);
  assert.match(r.err, /server\/dist\/src\/main\.js is missing \(hint: build the server and the console first: `sh scripts\/setup\.sh`/);
  assert.equal(buildCall(unbuilt), undefined);

  const noDeps = docker();
  const r2 = await run(['images', 'build'], repo(KIT, ['node_modules/fastify/package.json']), noDeps);
  assert.equal(r2.code, 1);
  assert.match(r2.err, /dependencies are not installed \(hint: run `npm ci`/);
  assert.match(r2.err, /- fastify \(needed by server\)/);
  assert.equal(buildCall(noDeps), undefined);
});

test('images build: a failing docker build is exit 4 naming the base image, with the build\'s last lines', async () => {
  const r = await run(['images', 'build', '--base-image', 'node:20-bookworm-slim'], repo(KIT), docker(1));
  assert.equal(r.code, 4);
  assert.match(r.err, /docker build of svc\/server:latest on node:20-bookworm-slim failed \(exit 1\) \(hint: check that the base image node:20-bookworm-slim exists locally/);
  assert.match(r.err, /pull access denied/);
});

test('images: usage errors exit 2 with one line (unknown subcommand, unknown flag, a flag without its value)', async () => {
  for (const args of [['images', 'pull'], ['images', 'build', '--push'], ['images', 'build', '--tag']]) {
    const exec = docker();
    const r = await run(args, repo(KIT), exec);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.err.trimEnd().split('\n').length, 1, r.err);
    assert.equal(buildCall(exec), undefined);
  }
});
