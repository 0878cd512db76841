import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; let total = 0;
const counts = new Map();
p.samples.forEach((id, i) => { counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)); total += dt[i] ?? 0; });
for (const [id, t] of counts) {
  const n = byId.get(id); const cf = n.callFrame;
  const k = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*\/work\/main\//, '').replace(/.*node_modules\//, 'nm/')}:${cf.lineNumber}`;
  self.set(k, (self.get(k) ?? 0) + t);
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 45));
for (const [k, t] of rows) console.log((100 * t / total).toFixed(1).padStart(5), k);
