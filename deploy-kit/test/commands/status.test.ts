import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { statusCommand } from '../../src/commands/status/command.js';
import { runStatus } from '../../src/commands/status/run.js';
import type { StatusOptions, StatusReport } from '../../src/commands/status/run.js';
import type { AdminInfoAnswer, AdminInfoRequest, AdminInfoSource, ProbeRequest, ProbeResult, ProxyProbe } from '../../src/compose/index.js';
import { infoReportFixture } from '../../src/compose/info-report.fixture.js';
import { buildSpec, formatSpec, parseSpec } from '../../src/config/index.js';
import { DeployKitError } from '../../src/errors.js';
import { createFixedClock, createMemoryFs, createRecordingExec, createTestDeps, execResults } from '../../src/io/testing.js';
import type { ExecCall, RecordingExec } from '../../src/io/testing.js';
import { main } from '../../src/main.js';

const DIR = '/work/deploy';
const NOW = new Date('2026-06-01T00:00:00Z');
const HEADER = '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status';

function specYaml(): string {
  const { spec, problems } = parseSpec(buildSpec({ s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'pem', nodes: 2, drivesPerNode: 1 }));
  assert.deepEqual(problems, []);
  return formatSpec(spec!);
}

/** `show stat` with each server of s3 and console in the given state. */
function showStat(node2: string, check2: string): string {
  const row = (px: string, sv: string, status: string, check: string): string =>
    `${px},${sv},0,0,0,1,,10,0,0,,0,,0,0,0,0,${status},1,1,0,0,0,5,0,,1,3,1,,10,,2,0,,1,${check}`;
  return [HEADER, row('https', 'FRONTEND', 'OPEN', ''), row('s3', 'node1', 'UP', 'L7OK'), row('s3', 'node2', node2, check2),
    row('s3', 'BACKEND', 'UP', ''), row('console', 'node1', 'UP', 'L7OK'), row('console', 'node2', node2, check2), ''].join('\n');
}

interface HostOpts { readonly ids?: string; readonly stat?: string; readonly statFails?: boolean }

/** compose v2 with a running proxy and two nodes; the runtime API answers `stat`. */
function dockerHost(o: HostOpts = {}): RecordingExec {
  return createRecordingExec((c: ExecCall) => {
    const a = c.args.join(' ');
    if (a === 'compose version') return execResults.ok('Docker Compose version v2.26.1');
    if (a.includes(' ps -a -q')) return execResults.ok(o.ids ?? 'p1\nn1\nn2\n');
    if (a.startsWith('inspect')) {
      return execResults.ok([
        'p1|/proj-proxy-1|proxy|{"Status":"running"}',
        'n1|/proj-node1-1|node1|{"Status":"running","Health":{"Status":"healthy"}}',
        'n2|/proj-node2-1|node2|{"Status":"paused","Health":{"Status":"healthy"}}',
      ].join('\n'));
    }
    if (a.startsWith('exec p1 bash -c')) return o.statFails === true ? execResults.fail(1, 'Error: container p1 is restarting') : execResults.ok(o.stat ?? showStat('UP', 'L7OK'));
    return execResults.notFound();
  });
}

function probe(status: number): ProxyProbe & { seen: ProbeRequest[] } {
  const seen: ProbeRequest[] = [];
  return {
    seen,
    async get(r): Promise<ProbeResult> {
      seen.push(r);
      return { ok: true, status, certificate: { names: ['s3.example.test', 'console.example.test'], notAfter: new Date('2026-08-30T12:00:00Z'), issuer: 'deploy-kit local CA' } };
    },
  };
}

function admin(answer: AdminInfoAnswer = { ok: true, report: infoReportFixture() }): AdminInfoSource & { seen: AdminInfoRequest[] } {
  const seen: AdminInfoRequest[] = [];
  return { seen, async info(r) { seen.push(r); return answer; } };
}

const ENV = 'SVC_ACCESS_KEY=AKIAROOT\nSVC_SECRET_KEY="root-secret"\nSVC_CONSOLE_SESSION_KEY=x\n';

function deps(exec: RecordingExec, extra: Record<string, string> = {}) {
  const fs = createMemoryFs({
    ...extra,
    [`${DIR}/deploy-kit.yaml`]: specYaml(),
    [`${DIR}/compose.yaml`]: 'services:\n  proxy:\n    ports: ["80:80", "443:443"]\n',
    [`${DIR}/.compose.published.yaml`]: 'services:\n  proxy:\n    ports: ["127.0.0.1:18080:80", "127.0.0.1:18443:443"]\n',
    [`${DIR}/certs/ca.crt`]: '-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n',
  });
  return createTestDeps({ fs, exec, clock: createFixedClock(NOW) });
}

const options = (over: Partial<StatusOptions> = {}): StatusOptions => ({ dir: DIR, project: 'proj', json: false, ...over });

test('status: flags map to options; --json is the global flag, before or after the command name', async () => {
  const seen: StatusOptions[] = [];
  const program = (): Command => new Command('deploy-kit').option('--json', '', false)
    .addCommand(statusCommand(createTestDeps(), async (o) => { seen.push(o); }));
  await program().parseAsync(['status'], { from: 'user' });
  await program().parseAsync(['status', '--dir', 'prod', '-p', 'svc-prod'], { from: 'user' });
  await program().parseAsync(['--json', 'status', '--project', 'x'], { from: 'user' });
  await program().parseAsync(['status', '--json'], { from: 'user' });
  assert.deepEqual(seen, [
    { dir: '.', project: undefined, json: false },
    { dir: 'prod', project: 'svc-prod', json: false },
    { dir: '.', project: 'x', json: true },
    { dir: '.', project: undefined, json: true },
  ]);
});

test('status: every server UP and both probes 200 → healthy, with the certificate\'s names and days left', async () => {
  const d = deps(dockerHost());
  const p = probe(200);
  await runStatus(options(), d, p);
  const out = d.out.stdoutText();
  assert.match(out, /^project proj: healthy$/m);
  assert.match(out, /^ {2}node2 +paused \(healthy\)$/m);
  assert.match(out, /^ {2}s3\/node1 +UP \(last check L7OK\)$/m);
  assert.match(out, /^ {2}console\/node2 +UP \(last check L7OK\)$/m);
  assert.doesNotMatch(out, /FRONTEND|BACKEND/);
  assert.match(out, /S3 \/health\/ready +ready/);
  assert.match(out, /console \/svc\/console\/health +ready/);
  assert.match(out, /^certificate: s3\.example\.test, console\.example\.test; issuer deploy-kit local CA; expires 2026-08-30T12:00:00\.000Z \(90 days left\)$/m);
  // The probes go to the published address and port, with the public names as SNI/Host and the deployment's CA.
  assert.deepEqual(p.seen.map((r) => [r.address, r.port, r.host, r.path, r.ca !== undefined]), [
    ['127.0.0.1', 18443, 's3.example.test', '/health/ready', true],
    ['127.0.0.1', 18443, 'console.example.test', '/svc/console/health', true],
  ]);
});

test('status: a DOWN server or a 503 through the proxy is reported as degraded, and the command still succeeds', async () => {
  const d = deps(dockerHost({ stat: showStat('DOWN', 'L7TOUT') }));
  await runStatus(options(), d, probe(503));
  const out = d.out.stdoutText();
  assert.match(out, /^project proj: degraded$/m);
  assert.match(out, /^ {2}s3\/node2 +DOWN \(last check L7TOUT\)$/m);
  assert.match(out, /S3 \/health\/ready +not ready \(HTTP 503\)/);
});

test('status: when the runtime API cannot be read, the servers are "unknown" with docker\'s reason', async () => {
  const d = deps(dockerHost({ statFails: true }));
  await runStatus(options(), d, probe(200));
  assert.match(d.out.stdoutText(), /^project proj: degraded$/m);
  assert.match(d.out.stdoutText(), /^ {2}unknown: Error: container p1 is restarting$/m);
});

test('status --json: the whole report as JSON', async () => {
  const d = deps(dockerHost());
  await runStatus(options({ json: true }), d, probe(200));
  const r = JSON.parse(d.out.stdoutText()) as StatusReport;
  assert.equal(r.project, 'proj');
  assert.equal(r.healthy, true);
  assert.deepEqual(r.backends.servers.map((s) => `${s.backend}/${s.server} ${s.status}`), ['s3/node1 UP', 's3/node2 UP', 'console/node1 UP', 'console/node2 UP']);
  assert.deepEqual(r.ready, { s3: 'ready', console: 'ready' });
  assert.equal(r.certificate?.daysLeft, 90);
});

test('status: a project with no containers is exit 4 with a hint to run up (nothing probed)', async () => {
  const d = deps(dockerHost({ ids: '' }));
  const p = probe(200);
  await assert.rejects(runStatus(options(), d, p), (err: unknown) => {
    assert.ok(err instanceof DeployKitError);
    assert.equal(err.exitCode, 4);
    assert.match(err.message, /project proj has no containers/);
    assert.match(err.hint ?? '', /deploy-kit up/);
    return true;
  });
  assert.deepEqual(p.seen, []);
  const viaCli = deps(dockerHost({ ids: '' }));
  assert.equal(await main(['node', 'deploy-kit', 'status', '--dir', DIR, '-p', 'proj'], viaCli), 4);
  assert.match(viaCli.out.stderrText(), /^deploy-kit: error: project proj has no containers \(hint: start it with `deploy-kit up`/);
});

test('status: usage errors exit 2 with one line (bad project name, unknown flag, an argument)', async () => {
  for (const args of [['-p', 'UPPER'], ['--watch'], ['node1']]) {
    const d = deps(dockerHost());
    assert.equal(await main(['node', 'deploy-kit', 'status', '--dir', DIR, ...args], d), 2, args.join(' '));
    assert.equal(d.out.stderrText().trimEnd().split('\n').length, 1, d.out.stderrText());
    assert.equal((d.exec as RecordingExec).calls.filter((c) => c.args.includes('inspect')).length, 0);
  }
});

test('status: the cluster summary from the admin API, signed with .env\'s root keys, through the proxy to the S3 host', async () => {
  const d = deps(dockerHost(), { [`${DIR}/.env`]: ENV });
  const a = admin();
  await runStatus(options(), d, probe(200), a);
  assert.match(d.out.stdoutText(), /^cluster: degraded, servers 3\/4 online, drives 3\/4 online, 3\.0 GiB used of 30\.0 GiB \(10\.0%\)$/m);
  assert.deepEqual(a.seen.map((r) => [r.address, r.port, r.host, r.accessKey, r.secretKey, r.region, r.ca !== undefined]), [
    ['127.0.0.1', 18443, 's3.example.test', 'AKIAROOT', 'root-secret', 'us-east-1', true],
  ]);
  const regional = admin();
  await runStatus(options(), deps(dockerHost(), { [`${DIR}/.env`]: `${ENV}SVC_REGION=eu-west-3\n` }), probe(200), regional);
  assert.equal(regional.seen[0]?.region, 'eu-west-3', 'SVC_REGION is the signing region');
});

test('status --json: the cluster summary is in the report', async () => {
  const d = deps(dockerHost(), { [`${DIR}/.env`]: ENV });
  await runStatus(options({ json: true }), d, probe(200), admin());
  const r = JSON.parse(d.out.stdoutText()) as StatusReport;
  assert.equal(r.cluster.error, undefined);
  assert.deepEqual(r.cluster.summary, {
    status: 'degraded', servers: { online: 3, total: 4 }, drives: { online: 3, total: 4 },
    usage: { usedBytes: 3 * 2 ** 30, totalBytes: 30 * 2 ** 30, usedPercent: 10 }, serverVersion: '0.1.0',
  });
});

test('status: without keys in .env, or when the admin API refuses or answers nonsense, the cluster is "unknown" with the reason', async () => {
  const cases: [Record<string, string>, AdminInfoAnswer, RegExp][] = [
    [{}, { ok: true, report: infoReportFixture() }, /^cluster: unknown \(admin API: no SVC_ACCESS_KEY\/SVC_SECRET_KEY in \.env\)$/m],
    [{ [`${DIR}/.env`]: 'SVC_ACCESS_KEY=a\n' }, { ok: true, report: infoReportFixture() }, /^cluster: unknown \(admin API: no SVC_ACCESS_KEY/m],
    [{ [`${DIR}/.env`]: ENV }, { ok: false, error: 'HTTP 403 AccessDenied: admin:ServerInfo is not allowed' }, /^cluster: unknown \(admin API: HTTP 403 AccessDenied: admin:ServerInfo is not allowed\)$/m],
    [{ [`${DIR}/.env`]: ENV }, { ok: true, report: { version: 7 } }, /^cluster: unknown \(admin API: the admin info report has format version 7, not 1\)$/m],
  ];
  for (const [files, answer, line] of cases) {
    const d = deps(dockerHost(), files);
    const a = admin(answer);
    await runStatus(options(), d, probe(200), a);
    assert.match(d.out.stdoutText(), line);
    assert.match(d.out.stdoutText(), /^project proj: healthy$/m, 'the cluster summary does not change the proxy verdict');
  }
});
