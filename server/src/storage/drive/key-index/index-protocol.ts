import type { PutItem } from './drive-index.js';

/**
 * Messages between the event loop (index-host.ts) and an index worker (index-worker.ts). `dir` names a drive's key
 * index directory; a request carries the operations asked for in one turn of the event loop, across the worker's drives.
 */
export type IndexOp =
  | { op: 'open'; dir: string; segmentBytes?: number }
  | { op: 'put'; dir: string; items: PutItem[] }
  | { op: 'get'; dir: string; volume: string; key: string }
  | { op: 'delete'; dir: string; volume: string; key: string }
  | { op: 'dropVolume'; dir: string; volume: string }
  | { op: 'children'; dir: string; volume: string; dirKey: string }
  | { op: 'childStates'; dir: string; volume: string; dirKey: string; names: string[]; withMeta: boolean }
  | { op: 'flush'; dir: string }
  | { op: 'close'; dir: string };

export interface IndexRequest {
  rid: number;
  ops: IndexOp[];
}

/**
 * Per operation: its value (put: the replaced record per item, null when none or not asked for; get and delete: the
 * record or null; children: the names; childStates: per name `{ meta, children }`; the others: null), or the error the drive's files gave (its errno code when there is one).
 */
export type OpResult = { value: unknown } | { error: { code: string; message: string; errno?: number } };

export interface IndexReply {
  rid: number;
  results: OpResult[];
}

/** Operations that change nothing: sent and answered apart from the writes of their turn (index-worker.ts `handle`). */
export function isRead(op: IndexOp): boolean {
  return op.op === 'get' || op.op === 'children' || op.op === 'childStates';
}
