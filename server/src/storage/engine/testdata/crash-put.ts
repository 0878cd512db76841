/**
 * Child process of open-storage.test.ts: starts an endless overwrite PUT of bkt/key and prints
 * "streaming" once shards are being written, so the parent can kill -9 it mid-write.
 */
import { Readable } from 'node:stream';
import { openStorage } from '../open-storage.js';

const sets = JSON.parse(process.argv[2] ?? '[]') as string[][];
const st = await openStorage({ sets, parity: 2 });
let sent = 0;
const body = new Readable({
  read() {
    sent += 1 << 20;
    this.push(Buffer.alloc(1 << 20, 7));
    if (sent === 8 << 20) process.stdout.write('streaming\n');
  },
});
await st.putObject('bkt', 'key', body, { size: -1, metadata: { system: {}, user: {} } });
