/**
 * Coalesces the JSON drive calls made to one peer in the same tick into one `POST /svc/rpc/batch` (protocol.ts).
 * An erasure-set fan-out calls every drive of the set at once, so a PUT on a 4-node × 4-drive set made 12 HTTP
 * requests per step (3 peers × 4 drives); batched it makes 3. Each request's fixed cost (HTTP parsing, routing,
 * the node token's HMAC, headers) was most of a small call's cost: ~0.3 ms of the serving node's CPU for a
 * metadata read (docs/performance.md, `server/bench/rpc-bench.ts`).
 *
 * Calls are queued and sent from a microtask, so nothing waits for a timer: a fan-out issues its calls in one
 * synchronous loop and they all make the batch; a request holds at most one call per drive (see #flush). A lone
 * call goes the single-call route. Every call keeps its own answer (value or typed error); a transport failure
 * fails every call of the batch, as it would have failed each.
 */
import { MAX_BATCH_CALLS } from './protocol.js';
import type { BatchCall } from './protocol.js';

/** What became of one call of a batch: its value, or its error (already rebuilt into its class). */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: Error };

/** How the batcher reaches the peer. */
export interface BatchTransport {
  /** One call on its own (the single-call route). */
  single(call: BatchCall): Promise<unknown>;
  /** Several calls in one request, answered in order. */
  batch(calls: readonly BatchCall[]): Promise<CallOutcome[]>;
}

interface Queued {
  call: BatchCall;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Batches calls to one peer (see the module comment). */
export class CallBatcher {
  readonly #transport: BatchTransport;
  #queue: Queued[] = [];

  constructor(transport: BatchTransport) {
    this.#transport = transport;
  }

  /** Queues one call; it is sent with the others made in the same tick. */
  call(call: BatchCall): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ call, resolve, reject });
      if (this.#queue.length === 1) queueMicrotask(() => { this.#flush(); });
    });
  }

  #flush(): void {
    const queue = this.#queue;
    this.#queue = [];
    // One call per drive per request: the k-th call to a drive goes in the k-th request. A listing puts several
    // sub-batches of reads in flight on each drive so that it decodes the first while the drives read the next;
    // one request for all of them would hold every answer until the last one is read.
    const rounds: Queued[][] = [];
    const calls = new Map<string, number>();
    for (const q of queue) {
      const k = calls.get(q.call.drive) ?? 0;
      calls.set(q.call.drive, k + 1);
      (rounds[k] ??= []).push(q);
    }
    for (const round of rounds) this.#send(round);
  }

  #send(round: Queued[]): void {
    for (let i = 0; i < round.length; i += MAX_BATCH_CALLS) {
      const group = round.slice(i, i + MAX_BATCH_CALLS);
      if (group.length === 1) {
        const [only] = group as [Queued];
        this.#transport.single(only.call).then(only.resolve, only.reject);
        continue;
      }
      this.#transport.batch(group.map((q) => q.call)).then((results) => {
        group.forEach((q, j) => {
          const r = results[j]!;
          if (r.ok) q.resolve(r.value);
          else q.reject(r.error);
        });
      }, (err: unknown) => { for (const q of group) q.reject(err); });
    }
  }
}
