/**
 * The storage RPC alone (issue 9 point 5, what limits the cluster): `npm run bench:rpc [-- --seconds N]`.
 * Starts a 2-node cluster (4 drives per node, built server) and, from this process, makes the fan-out an erasure
 * set makes: one metadata read on each of node 2's 4 drives at once, 8 such fan-outs in flight. Once as 4 single
 * calls (one HTTP request per drive, as before call-batcher.ts), once through the batcher (one request per
 * fan-out). Prints one JSON line per mode: fan-outs per second and the serving node's CPU per fan-out (from
 * /proc/<pid>/stat), and this process's CPU per fan-out (the calling node's side). Needs root (mount namespaces).
 */
import { readFileSync } from 'node:fs';
import { drivePath, RpcClient } from '../src/cluster/rpc/index.js';
import { startCluster } from '../test/cluster/helpers/cluster.js';
import { LeanS3 } from './lean-client.js';
import { checkOptions } from './cli-options.js';

checkOptions('bench:rpc', `Usage: npm run bench:rpc [-- --seconds N]
The storage RPC alone: a 2-node cluster (4 drives per node, needs root), and from this process 8 fan-outs in flight
of one metadata read on each of node 2's drives, as single calls and batched; one JSON line per mode.
Options:
  --seconds N            length of each mode (default 5)
  -h, --help             this text
`, { values: ['--seconds'] });

const at = process.argv.indexOf('--seconds');
const seconds = at >= 0 ? Number(process.argv[at + 1]) : 5;
const IN_FLIGHT = 8;
const DRIVES = 4;

const c = await startCluster({ nodes: 2, drivesPerNode: DRIVES, built: true, env: { SVC_OBS_LOGGER_LEVEL: 'error' } });
try {
  for (const n of c.nodes) {
    for (let i = 0; i < 240 && (await fetch(`${n.url}/health/ready`).catch(() => undefined))?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const lean = new LeanS3(c.nodes[0]!.url, c.credentials.accessKey, c.credentials.secretKey);
  await lean.send('PUT', 'rpcbench', '');
  await lean.put('rpcbench', 'k', Buffer.alloc(4096, 1));
  lean.destroy();
  const client = new RpcClient({ origin: c.nodes[1]!.url, credentials: c.credentials });
  const drives = Array.from({ length: DRIVES }, (_, d) => `${c.mount}/d${d + 1}`);
  const pid = c.nodes[1]!.current!.proc.pid!;
  const servingCpuMs = (): number => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  const modes = {
    single: () => Promise.all(drives.map((d) => client.call(drivePath(d, 'readMeta'), ['rpcbench', 'k']))),
    batched: () => Promise.all(drives.map((d) => client.driveCall(d, 'readMeta', ['rpcbench', 'k']))),
  };
  for (const round of [0, 1]) {
    for (const [mode, fanOut] of Object.entries(modes)) {
      const cpu0 = servingCpuMs();
      const self0 = process.cpuUsage();
      const t0 = performance.now();
      const end = t0 + seconds * 1000;
      let n = 0;
      await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < end) {
          await fanOut();
          n++;
        }
      }));
      const s = (performance.now() - t0) / 1000;
      const self = process.cpuUsage(self0);
      // Round 0 warms both paths up (JIT); only round 1 is printed.
      if (round === 0) continue;
      process.stdout.write(`${JSON.stringify({
        scenario: `rpc-fanout-${DRIVES}-readMeta`, mode, inFlight: IN_FLIGHT, fanOutsPerSec: Math.round(n / s),
        servingCpuMsPerFanOut: +((servingCpuMs() - cpu0) / n).toFixed(3),
        callingCpuMsPerFanOut: +((self.user + self.system) / 1000 / n).toFixed(3),
      })}\n`);
    }
  }
  await client.close();
} finally {
  await c.destroy();
}
