/**
 * The bitrot hash worker (plain JavaScript, run with `eval`; hash-offload.ts). `workerData.url` is highwayhasher's
 * module URL as the parent resolved it (an evaluated worker has no directory to resolve a bare name from),
 * `workerData.key` the bitrot key's bytes. Messages: `{ rid, sab, off, len }`, a view of a SharedArrayBuffer, read in
 * place and never written; answered `{ rid, hash }` (the 32-byte HighwayHash-256 of those bytes) or `{ rid, error }`.
 */
export const HASH_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ready = import(workerData.url).then((m) => m.HighwayHash.loadModule());
const key = new Uint8Array(workerData.key);
parentPort.on('message', (msg) => {
  ready.then((mod) => {
    parentPort.postMessage({ rid: msg.rid, hash: mod.hash256(key, new Uint8Array(msg.sab, msg.off, msg.len)) });
  }).catch((err) => parentPort.postMessage({ rid: msg.rid, error: String(err && err.message || err) }));
});
`;
