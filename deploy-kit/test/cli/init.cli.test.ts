import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { load } from 'js-yaml';
import { PROMPTS } from '../../src/commands/init/prompts.js';
import { parseSpec } from '../../src/config/index.js';
import { CLI_ENTRY, TSX_LOADER, runCli, tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
after(async () => { for (const c of cleanups) await c(); });

async function dir(): Promise<string> {
  const t = await tempDir('dk-init-cli-');
  cleanups.push(t.cleanup);
  return t.dir;
}

const FLAGS = ['init', '--s3-host', 's3.example.test', '--console-host', 'console.example.test', '--proxy', 'traefik', '--tls', 'acme',
  '--acme-email', 'ops@example.test', '--staging', '--nodes', '4', '--drives-per-node', '4', '--parity', 'EC:4'];

test('init with flags and no TTY never prompts, writes everything, and a second init keeps the secrets', async () => {
  const d = await dir();
  const r = await runCli(FLAGS, { cwd: d });
  assert.equal(r.code, 0, r.stderr);
  for (const p of Object.values(PROMPTS)) assert.ok(!r.stdout.includes(p) && !r.stderr.includes(p), `prompted: ${p}`);
  assert.deepEqual((await readdir(d)).sort(), ['.env', '.gitignore', 'acme', 'compose.yaml', 'deploy-kit.yaml', 'traefik']);
  assert.equal((await stat(join(d, '.env'))).mode & 0o777, 0o600);
  assert.equal((await stat(join(d, 'acme/acme.json'))).mode & 0o777, 0o600);
  const spec = parseSpec(load(await readFile(join(d, 'deploy-kit.yaml'), 'utf8'))).spec;
  assert.equal(spec?.cluster.nodes, 4);
  const env = await readFile(join(d, '.env'), 'utf8');
  const again = await runCli(FLAGS, { cwd: d });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(await readFile(join(d, '.env'), 'utf8'), env);
});

test('init without a TTY and with missing values reports them all at once and exits 2', async () => {
  const d = await dir();
  const r = await runCli(['init', '--proxy', 'nginx', '--nodes', 'many'], { cwd: d });
  assert.equal(r.code, 2);
  const lines = r.stderr.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^deploy-kit: error: 5 values missing or invalid \(hint: .+\)$/);
  assert.deepEqual(lines.slice(1).map((l) => l.replace(/^ {2}- (--[a-z0-9-]+):.*$/, '$1')).sort(), ['--console-host', '--nodes', '--proxy', '--s3-host', '--tls']);
  assert.deepEqual(await readdir(d), []);
});

/** Strips ANSI escapes (inquirer draws with them) so prompt texts can be matched. */
function plain(s: string): string {
  return s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\u001b[()][0-9A-B]/g, '');
}

/** `deploy-kit init --dir d` inside script(1), which gives it a pseudo-terminal; answers are typed when prompts appear. */
function initUnderPty(d: string) {
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [process.execPath, '--import', TSX_LOADER, CLI_ENTRY, 'init', '--dir', d].map(q).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: d, env: { ...process.env, TERM: 'xterm', COLUMNS: '120', LINES: '40' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => { out += s; });
  child.stderr.setEncoding('utf8').on('data', (s: string) => { out += s; });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  let cursor = 0;
  async function answer(prompt: string, keys: string): Promise<void> {
    for (;;) {
      const seen = plain(out.slice(cursor));
      if (seen.includes(prompt)) break;
      if (child.exitCode !== null) throw new Error(`CLI exited before "${prompt}":\n${plain(out)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    cursor = out.length;
    await new Promise((r) => setTimeout(r, 60));
    child.stdin.write(keys);
  }
  return {
    answer,
    exited,
    output: () => plain(out),
    done: () => { clearTimeout(killer); child.stdin.end(); },
  };
}

test('init under a pseudo-terminal answers its prompts (script(1) as the PTY)', async () => {
  const d = await dir();
  const { answer, exited, output, done } = initUnderPty(d);
  try {
    await answer(PROMPTS.s3Host, 's3.example.test\r');
    await answer(PROMPTS.consoleHost, 'console.example.test\r');
    await answer(PROMPTS.proxy, '\u001b[B\r');
    await answer(PROMPTS.tls, '\r');
    await answer(PROMPTS.acmeEmail, 'ops@example.test\r');
    await answer(PROMPTS.staging, 'y\r');
    await answer(PROMPTS.nodes, '2\r');
    await answer(PROMPTS.drivesPerNode, '3\r');
    const code = await exited;
    assert.equal(code, 0, output());
  } finally {
    done();
  }
  const spec = parseSpec(load(await readFile(join(d, 'deploy-kit.yaml'), 'utf8'))).spec;
  assert.deepEqual(
    { hosts: spec?.hosts, proxy: spec?.proxy, tls: spec?.tls, nodes: spec?.cluster.nodes, drives: spec?.cluster.drivesPerNode },
    { hosts: { s3: 's3.example.test', console: 'console.example.test' }, proxy: 'haproxy',
      tls: { mode: 'acme', acme: { email: 'ops@example.test', directory: 'https://acme-staging-v02.api.letsencrypt.org/directory', staging: true } },
      nodes: 2, drives: 3 });
  assert.equal((await stat(join(d, '.env'))).mode & 0o777, 0o600);
  assert.match(await readFile(join(d, 'haproxy/haproxy.cfg'), 'utf8'), /console\.example\.test/);
});

test('Ctrl-C at a prompt cancels init with exit 3 and writes nothing', async () => {
  const d = await dir();
  const { answer, exited, output, done } = initUnderPty(d);
  try {
    await answer(PROMPTS.s3Host, '\u0003');
    assert.equal(await exited, 3, output());
    assert.match(output(), /deploy-kit: error: cancelled/);
  } finally {
    done();
  }
  assert.deepEqual(await readdir(d), []);
});

test('render --dry-run writes nothing; render --diff shows a hand edit and exits 0', async () => {
  const d = await dir();
  const init = await runCli(['init', '--s3-host', 's3.example.test', '--console-host', 'console.example.test', '--proxy', 'haproxy', '--tls', 'pem'], { cwd: d });
  assert.equal(init.code, 0, init.stderr);
  const before = await readFile(join(d, 'compose.yaml'), 'utf8');
  await writeFile(join(d, 'deploy-kit.yaml'), (await readFile(join(d, 'deploy-kit.yaml'), 'utf8')).replace('nodes: 1', 'nodes: 2'));
  const dry = await runCli(['render', '--dry-run'], { cwd: d });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^update +compose\.yaml +\(mode 644, \d+ bytes\)$/m);
  assert.match(dry.stdout, /^dry run: nothing was written$/m);
  assert.equal(await readFile(join(d, 'compose.yaml'), 'utf8'), before);

  const diff = await runCli(['render', '--diff'], { cwd: d });
  assert.equal(diff.code, 0, diff.stderr);
  assert.match(diff.stdout, /^--- a\/compose\.yaml$/m);
  assert.match(diff.stdout, /^\+ {2}node2:$/m);
  assert.equal(await readFile(join(d, 'compose.yaml'), 'utf8'), before);
});
