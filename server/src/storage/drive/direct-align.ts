/**
 * What O_DIRECT reads and writes of shard files share (direct-shard-writer.ts, direct-read.ts): the alignment they
 * need, and finding an aligned offset in a buffer whose address JS cannot see.
 */

/** Alignment of every direct read and write (covers 512 and 4096-byte logical blocks). */
export const ALIGN = 4096;

/**
 * A new ArrayBuffer of `size` bytes whose memory starts on a page boundary, for buffers that O_DIRECT reads or writes.
 * The kernel accepts any address aligned to the logical block (512 bytes on virtio disks), which is all the probe
 * below can find, but such a transfer from memory that is not page-aligned ran at a third of the speed: 1 MiB direct
 * writes from a 512-aligned address 103–116 MiB/s, from a page-aligned one 303 MiB/s (virtio disk, 512-byte logical
 * and 4 KiB physical blocks; docs/performance.md, twenty-eighth session), and 64 MiB PUTs were bound by it. JS cannot
 * see or choose an address, but V8 allocates a resizable ArrayBuffer (`maxByteLength`) by reserving whole pages
 * (its BackingStore reserves and commits page-allocator memory) while malloc, behind an ordinary ArrayBuffer, puts a
 * 16-byte header before the block. The probe still checks what the kernel accepts, so another allocator costs speed,
 * never correctness.
 */
export function pageAlignedArrayBuffer(size: number): ArrayBuffer {
  // ES2024's resizable ArrayBuffer (Node 20); the project's lib is ES2023.
  const Resizable = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer;
  return new Resizable(size, { maxByteLength: size });
}

/**
 * pageAlignedArrayBuffer's shared twin: a growable SharedArrayBuffer, which V8 reserves by whole pages in the same
 * way. For shard reads (buffer-pool.ts readBuffers), whose bitrot hash a worker computes in place
 * (bitrot/hash-offload.ts).
 */
export function pageAlignedSharedBuffer(size: number): SharedArrayBuffer {
  // ES2024's growable SharedArrayBuffer (Node 20); the project's lib is ES2023.
  const Growable = SharedArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => SharedArrayBuffer;
  return new Growable(size, { maxByteLength: size });
}

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
