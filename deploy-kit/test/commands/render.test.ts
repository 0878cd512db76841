import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Command } from 'commander';
import { renderCommand, toRenderOptions } from '../../src/commands/render/command.js';
import { runRender } from '../../src/commands/render/run.js';
import type { RenderOptions } from '../../src/commands/render/run.js';
import { buildSpec, formatSpec, parseSpec } from '../../src/config/index.js';
import type { SpecAnswers } from '../../src/config/index.js';
import { DeployKitError } from '../../src/errors.js';
import { createNodeFs, defaultKitPaths } from '../../src/io/index.js';
import { createCapturedOutput, createTestDeps } from '../../src/io/testing.js';

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

async function deployment(over: Partial<SpecAnswers> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dk-render-'));
  dirs.push(dir);
  const { spec, problems } = parseSpec(buildSpec({
    s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'pem', nodes: 1, drivesPerNode: 1, ...over,
  }));
  assert.deepEqual(problems, []);
  await writeFile(join(dir, 'deploy-kit.yaml'), formatSpec(spec!));
  return dir;
}

function realDeps(cwd: string) {
  return createTestDeps({ fs: createNodeFs(), cwd, paths: defaultKitPaths({}), out: createCapturedOutput() });
}

test('argv → options', async () => {
  const table: [string[], Partial<RenderOptions>][] = [
    [[], { dir: '.', mode: 'write', templates: undefined, json: false }],
    [['--dry-run'], { mode: 'dry-run' }],
    [['--diff'], { mode: 'diff' }],
    [['--diff', '--dry-run', '--dir', 'x', '--templates', 't'], { mode: 'diff', dir: 'x', templates: 't' }],
  ];
  for (const [argv, expected] of table) {
    const seen: RenderOptions[] = [];
    const root = new Command('deploy-kit').option('--json').exitOverride();
    root.addCommand(renderCommand(createTestDeps(), async (o) => { seen.push(o); }).exitOverride());
    await root.parseAsync(['render', ...argv], { from: 'user' });
    assert.deepEqual(seen[0], { ...toRenderOptions({ dir: '.' }, false), ...expected }, argv.join(' '));
  }
});

test('render writes the planned files atomically with their modes; a second render changes nothing', async () => {
  const dir = await deployment();
  const deps = realDeps(dir);
  await runRender({ dir: undefined, mode: 'write', templates: undefined, json: false }, deps);
  assert.equal((await stat(join(dir, 'compose.yaml'))).mode & 0o777, 0o644);
  assert.match(await readFile(join(dir, 'haproxy/haproxy.cfg'), 'utf8'), /frontend/);
  assert.match(deps.out.stdoutText(), /^created +compose\.yaml +\(mode 644, \d+ bytes\)$/m);
  const again = realDeps(dir);
  await runRender({ dir: undefined, mode: 'write', templates: undefined, json: false }, again);
  assert.doesNotMatch(again.out.stdoutText(), /created|updated/);
  assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
});

test('render --dry-run prints paths, modes and sizes and writes nothing', async () => {
  const dir = await deployment();
  const deps = realDeps(dir);
  await runRender({ dir, mode: 'dry-run', templates: undefined, json: false }, deps);
  assert.deepEqual(await readdir(dir), ['deploy-kit.yaml']);
  assert.match(deps.out.stdoutText(), /^create +compose\.yaml +\(mode 644, \d+ bytes\)$/m);
  assert.match(deps.out.stdoutText(), /^create +haproxy\/haproxy\.cfg/m);
});

test('render --diff shows an edited line and restores nothing', async () => {
  const dir = await deployment();
  await runRender({ dir, mode: 'write', templates: undefined, json: false }, realDeps(dir));
  const cfgPath = join(dir, 'haproxy/haproxy.cfg');
  const original = await readFile(cfgPath, 'utf8');
  const edited = original.replace(/^(\s*)balance roundrobin$/m, '$1balance leastconn');
  assert.notEqual(edited, original);
  await writeFile(cfgPath, edited);
  const deps = realDeps(dir);
  await runRender({ dir, mode: 'diff', templates: undefined, json: false }, deps);
  assert.match(deps.out.stdoutText(), /^--- a\/haproxy\/haproxy\.cfg$/m);
  assert.match(deps.out.stdoutText(), /^-\s*balance leastconn$/m);
  assert.match(deps.out.stdoutText(), /^\+\s*balance roundrobin$/m);
  assert.equal(await readFile(cfgPath, 'utf8'), edited);
});

test('traefik + acme: acme/acme.json is created empty with mode 600 and never overwritten', async () => {
  const dir = await deployment({ proxy: 'traefik', tls: 'acme', acmeEmail: 'ops@example.test' });
  await runRender({ dir, mode: 'write', templates: undefined, json: false }, realDeps(dir));
  const acme = join(dir, 'acme/acme.json');
  assert.equal((await stat(acme)).mode & 0o777, 0o600);
  await writeFile(acme, '{"issued":true}');
  await runRender({ dir, mode: 'write', templates: undefined, json: false }, realDeps(dir));
  assert.equal(await readFile(acme, 'utf8'), '{"issued":true}');
  assert.match(await readFile(join(dir, 'traefik/dynamic.yml'), 'utf8'), /routers/);
});

test('a missing templates folder is DK_ERR_TEMPLATES_NOT_FOUND listing the files', async () => {
  const dir = await deployment();
  await assert.rejects(runRender({ dir, mode: 'write', templates: 'nowhere', json: false }, realDeps(dir)),
    (e) => e instanceof DeployKitError && e.code === 'DK_ERR_TEMPLATES_NOT_FOUND' && e.details.includes('haproxy/haproxy.cfg.hbs'));
});

test('an invalid spec lists every problem (exit 2)', async () => {
  const dir = await deployment();
  await writeFile(join(dir, 'deploy-kit.yaml'), 'version: 1\nhosts: { s3: s3.example.test, console: s3.example.test }\nproxy: nginx\n');
  await assert.rejects(runRender({ dir, mode: 'write', templates: undefined, json: false }, realDeps(dir)), (e) => {
    assert.ok(e instanceof DeployKitError);
    assert.equal(e.exitCode, 2);
    assert.ok(e.details.some((l) => l.startsWith('hosts.console: same hostname')), e.details.join('\n'));
    assert.ok(e.details.some((l) => l.startsWith('proxy:')), e.details.join('\n'));
    return true;
  });
});
