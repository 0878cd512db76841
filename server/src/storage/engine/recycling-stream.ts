import { Readable } from 'node:stream';
import { readBuffers } from '../drive/index.js';
import type { ReadSink } from './object-layer.js';

/**
 * The body of a read piped straight into `sink` (the HTTP response), handing the chunk buffers back to the
 * read-buffer pool once their bytes have left the process (buffer-pool.ts tells why that matters).
 *
 * A chunk's buffer is free when (1) the pipe has taken the chunk out of this stream — bytes pushed minus bytes still
 * buffered here — and (2) the sink holds no byte of it: `writableLength` of a ServerResponse counts what it has
 * queued plus what its socket has not yet handed to the kernel, so 0 means every chunk written so far is in the
 * kernel's socket buffer (copied) and nothing in the process points at it. At the sink's 'finish' the same holds for
 * all of them. A stream destroyed early (client gone) hands nothing back: a write may still be in flight.
 */
export class RecyclingReadable extends Readable {
  readonly #source: AsyncIterator<Buffer>;
  readonly #sink: ReadSink;
  /** Chunks pushed and not yet handed back, oldest first, with the stream offset where each ends. */
  #pending: { end: number; chunk: Buffer }[] = [];
  #pushed = 0;

  constructor(source: AsyncIterable<Buffer>, sink: ReadSink, highWaterMark: number) {
    super({ highWaterMark });
    this.#source = source[Symbol.asyncIterator]();
    this.#sink = sink;
    sink.once('finish', () => this.#sweep(true));
  }

  /** Hands back the buffers of every chunk the sink has taken and let go of. */
  #sweep(finished: boolean): void {
    if (this.#pending.length === 0 || (!finished && this.#sink.writableLength !== 0)) return;
    const handed = this.#pushed - this.readableLength;
    let n = 0;
    while (n < this.#pending.length && this.#pending[n]!.end <= handed) n++;
    if (n === 0) return;
    const done = this.#pending.splice(0, n);
    for (const { chunk } of done) {
      // Two chunks can be views of one buffer: it goes back only with the last of them.
      if (!this.#pending.some((p) => p.chunk.buffer === chunk.buffer)) readBuffers.recycle(chunk);
    }
  }

  override _read(): void {
    this.#sweep(false);
    this.#source.next().then(({ value, done }) => {
      if (this.destroyed) return;
      if (done === true) {
        this.push(null);
        return;
      }
      this.#pushed += value.length;
      this.#pending.push({ end: this.#pushed, chunk: value });
      this.push(value);
    }, (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))));
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    // After a normal end the sink's 'finish' still hands the last chunks back; otherwise they are dropped.
    if (err !== null || !this.readableEnded) this.#pending = [];
    // Ends the source early so that its cleanup (closing shard files, waiting for read-ahead) runs.
    const ended = this.#source.return?.();
    if (ended === undefined) callback(err);
    else ended.then(() => callback(err), (e: unknown) => callback(err ?? (e instanceof Error ? e : new Error(String(e)))));
  }
}
