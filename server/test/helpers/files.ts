/** Test files with known content and their digests. */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** Writes `size` pseudo-random bytes to `path` in 1 MiB blocks and returns their sha256 hex. */
export async function writeRandomFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  let left = size;
  while (left > 0) {
    const block = randomBytes(Math.min(left, 1 << 20));
    hash.update(block);
    if (!out.write(block)) await once(out, 'drain');
    left -= block.length;
  }
  out.end();
  await once(out, 'finish');
  return hash.digest('hex');
}

/** sha256 hex of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
