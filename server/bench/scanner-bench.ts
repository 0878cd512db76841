/**
 * What one background-scanner cycle costs (issue 9: an idle server's CPU): `npm run bench:scanner [-- --keys N
 * --cycles C --sample-every S]`. Writes N small objects into one bucket of a 4-drive EC:2 set opened in this process
 * (its background loop resting a day between cycles), then runs C cycles back to back with no pauses and prints one
 * JSON line per cycle: wall time, the process's CPU, and CPU per key walked. The background loop pauses 10 ms after
 * every 32 keys walked and after each object checked, so the CPU per key here bounds the share of a core it takes.
 */
import { checkOptions, optionCount } from './cli-options.js';
import { testCluster, put, pattern } from '../src/storage/engine/testing.js';

checkOptions('bench:scanner', `Usage: npm run bench:scanner [-- --keys N --cycles C --sample-every S]
One background-scanner cycle's CPU over N small objects (default 20000), C cycles (default 3), no pauses; JSON lines.
Options:
  --keys N               objects written first (default 20000)
  --cycles C             cycles measured (default 3)
  --sample-every S       each object checked once every S cycles, as the scanner's sampleEvery (default 16; 1
                         checks every object, a large S measures the walk alone)
  -h, --help             this text
`, { values: ['--keys', '--cycles', '--sample-every'] });

const keys = optionCount('bench:scanner', '--keys', 20_000);
const cycles = optionCount('bench:scanner', '--cycles', 3);
const sampleEvery = optionCount('bench:scanner', '--sample-every', 16);
const c = await testCluster(1, 4, 2);
try {
  const st = await c.open({ scanner: { intervalMs: 86_400_000, pauseMs: 0 } });
  await st.makeBucket('scan');
  const body = pattern(4096);
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < keys) await put(st, 'scan', `k/${String(next++).padStart(6, '0')}`, body);
  }));
  for (let i = 0; i < cycles; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await st.runScanCycle({ sampleEvery });
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(JSON.stringify({ scenario: 'scanner-cycle', keys, cycle: i, sampleEvery, objectsChecked: r.objectsScanned, ms: +ms.toFixed(1), cpuMs: +cpuMs.toFixed(1), cpuUsPerKey: +(cpuMs * 1000 / keys).toFixed(1) }));
  }
} finally {
  await c.cleanup();
}
