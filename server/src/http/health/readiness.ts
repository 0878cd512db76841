/**
 * Pure evaluation of the probes' answers from the state of storage, IAM and lock (SPEC §2 "Readiness
 * response", §4, §7). Kept apart from the fastify plugin so every combination is unit-tested.
 */

import type { StorageHealth } from '../../storage/index.js';

/** What the probes know about storage: the engine's quorum state. */
export type ProbeStorageState = StorageHealth;

/** A snapshot of every dependency, gathered once per probe. */
export interface ProbeSnapshot {
  /** undefined when storage did not answer within the probe deadline. */
  storage: ProbeStorageState | undefined;
  iamReady: boolean;
  lockReady: boolean;
  /** The 'ready' probe also requires lock quorum (cluster node). */
  readyNeedsLock?: boolean;
  /** The KMS, when one is configured. */
  kms?: ProbeKmsState;
}

/** What the probes know about a configured KMS. */
export interface ProbeKmsState {
  ready: boolean;
  keyId: string;
}

/** The degradedReasons values SPEC §7 defines. */
export type DegradedReason = 'storage_quorum_unavailable' | 'iam_not_ready' | 'lock_quorum_unavailable';

interface DependencyDetail {
  status: 'connected' | 'disconnected';
  ready: boolean;
  [extra: string]: unknown;
}

/** Body of /health/ready and the /compat/health/* probes (SPEC §2 Readiness response). */
export interface ReadinessBody {
  status: 'ok' | 'degraded';
  ready: boolean;
  details: { storage: DependencyDetail; iam: DependencyDetail; lock: DependencyDetail; kms?: DependencyDetail };
  degradedReasons: DegradedReason[];
}

/** Which question a probe asks. */
export type ProbeKind = 'ready' | 'cluster-write' | 'cluster-read';

function detail(ok: boolean, extra: Record<string, unknown> = {}): DependencyDetail {
  return { status: ok ? 'connected' : 'disconnected', ready: ok, ...extra };
}

/**
 * Readiness needs storage write quorum and IAM; the two cluster probes need, respectively, write or read
 * quorum in every set and also lock quorum (SPEC §4 table: "also requires lock quorum").
 */
export function evaluateProbe(kind: ProbeKind, snap: ProbeSnapshot): ReadinessBody {
  const s = snap.storage;
  const storageOk = s !== undefined && (kind === 'cluster-read' ? s.readable : s.writable);
  const reasons: DegradedReason[] = [];
  if (!storageOk) reasons.push('storage_quorum_unavailable');
  if (!snap.iamReady) reasons.push('iam_not_ready');
  if ((kind !== 'ready' || snap.readyNeedsLock === true) && !snap.lockReady) reasons.push('lock_quorum_unavailable');
  const storageExtra = s === undefined
    ? { error: 'storage did not answer within the probe deadline' }
    : { onlineDrives: s.onlineDrives, offlineDrives: s.offlineDrives, healingDrives: s.healingDrives,
        writeQuorum: s.writeQuorum, readQuorum: s.readQuorum };
  const ready = reasons.length === 0;
  return {
    status: ready ? 'ok' : 'degraded',
    ready,
    details: {
      storage: detail(storageOk, storageExtra), iam: detail(snap.iamReady), lock: detail(snap.lockReady),
      // SPEC §2: `kms` only when a KMS is configured. It is reported, not a readiness condition (SSE-S3 requests
      // fail on their own when it cannot serve).
      ...(snap.kms !== undefined ? { kms: detail(snap.kms.ready, { keyId: snap.kms.keyId }) } : {}),
    },
    degradedReasons: reasons,
  };
}
