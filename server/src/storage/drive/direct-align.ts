/**
 * What O_DIRECT reads and writes of shard files share (direct-shard-writer.ts, direct-read.ts): the alignment they
 * need, and finding an aligned offset in a buffer whose address JS cannot see.
 */

/** Alignment of every direct read and write (covers 512 and 4096-byte logical blocks). */
export const ALIGN = 4096;

export function isEinval(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'EINVAL';
}

/**
 * The first offset (in steps of 8, below ALIGN) at which `attempt` — one O_DIRECT read or write of ALIGN bytes from
 * the buffer at that offset — is accepted, or null when none is. The kernel refuses a misaligned O_DIRECT transfer
 * with EINVAL in microseconds, before any I/O; other errors are thrown.
 */
export function probeAlignment(attempt: (off: number) => void): number | null {
  for (let off = 0; off < ALIGN; off += 8) {
    try {
      attempt(off);
      return off;
    } catch (err) {
      if (!isEinval(err)) throw err;
    }
  }
  return null;
}
