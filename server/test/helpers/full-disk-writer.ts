/**
 * Run as its own process by local-drive.test.ts ("a full disk"): inline commits on a drive whose file system
 * fills up, then gets space back. Its own process because lmdb-js rejects promises nobody holds when a commit fails
 * (inline-index.ts guardCommitFailures), which the test runner would count against whatever test is running.
 * Prints one JSON line: how the commits went. Usage: full-disk-writer.ts <drive root> <ballast file>.
 */
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { DiskFullError, LocalDrive } from '../../src/storage/drive/index.js';

const [root, ballast] = process.argv.slice(2) as [string, string];
const drive = new LocalDrive(root);
await drive.writeFormat(Buffer.from('{}'));
await drive.cleanTemp();
await drive.makeVolume('b', Buffer.alloc(0));
const record = Buffer.alloc(2400, 7);
const inline = { srcDataPath: null, dataDir: null };
await drive.renameData('b', 'before', record, inline);

const fd = openSync(ballast, 'w');
try {
  for (const size of [65536, 4096, 64]) {
    const chunk = Buffer.alloc(size, 1);
    for (;;) {
      try { writeSync(fd, chunk); } catch { break; }
    }
  }
} finally {
  closeSync(fd);
}
let full = 0;
const other: string[] = [];
for (let i = 0; i < 50; i++) {
  await drive.renameData('b', `k${i}`, record, inline).catch((err: unknown) => {
    if (err instanceof DiskFullError) full++;
    else other.push(String(err));
  });
}
// Rejections lmdb-js leaves unhandled surface after a turn: the process must still be here.
await new Promise((r) => setTimeout(r, 100));
unlinkSync(ballast);
await drive.renameData('b', 'after', record, inline);
const after = (await drive.readMeta('b', 'after')).equals(record) && (await drive.readMeta('b', 'before')).equals(record);
process.stdout.write(`${JSON.stringify({ full, other, after })}\n`);
