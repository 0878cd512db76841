/**
 * Unauthenticated probe endpoints on :9000 (SPEC §4): /health, /health/live, /health/ready, the /compat/health/*
 * aliases, and MinIO's /minio/health/* for drop-in compatibility (REFERENCE.md §1.1: empty bodies, quorum headers,
 * 412 for ?maintenance=true). With `enabled: false` every one of these paths answers 404 (SVC_HEALTH_ENDPOINT_ENABLE=false).
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { LatestAnswer } from './latest-answer.js';
import { evaluateProbe, type ProbeKind, type ProbeKmsState, type ProbeSnapshot, type ProbeStorageState } from './readiness.js';

/** Where the probes read their state from; injected by the composition root. */
export interface HealthSources {
  storage: () => Promise<ProbeStorageState>;
  iamReady: () => boolean;
  lockReady: () => Promise<boolean>;
  /**
   * A cluster node is ready only with its peers (RustFS: readiness needs peer health); their lockers are the
   * nodes, so lock quorum then also gates /health/ready. Single node: false (the lock is in-process).
   */
  readyNeedsLock?: boolean;
  version: string;
  startedAt: Date;
  /** How long a probe waits for storage before answering degraded (default 5 s; MinIO bounds probes at 10 s). */
  deadlineMs?: number;
  /**
   * How long after its start a storage or lock check still running is waited for when the previous one answered
   * recently (default 250 ms; a check of live peers answers in milliseconds): a probe then answers from that one, so a
   * frozen peer never holds a probe past a proxy's check timeout (SPEC §4 rule 7; 1 s in the fast suite).
   */
  answerWithinMs?: number;
  /** How old a previous answer may be and still stand in for a check still running (default 30 s). */
  maxAnswerAgeMs?: number;
  /** True when taking this node down would lose quorum (MinIO `?maintenance=true` → 412); single node: always. */
  maintenanceLosesQuorum: () => boolean;
  /** The configured KMS (SSE-S3); absent when none, and then readiness has no `details.kms` (SPEC §2). */
  kms?: () => ProbeKmsState;
}

/** Options of the health plugin. */
export interface HealthPluginOptions {
  enabled: boolean;
  sources: HealthSources;
}

const LIVE_PATHS = ['/health', '/health/live', '/compat/health/live'];
const READY_PATHS = ['/health/ready', '/compat/health/ready'];
const MINIO_PATHS = ['/minio/health/live', '/minio/health/ready', '/minio/health/cluster', '/minio/health/cluster/read'];
const ALL_PATHS = [...LIVE_PATHS, ...READY_PATHS, '/compat/health/cluster', '/compat/health/cluster/read', ...MINIO_PATHS];

/** The probe plugin; registered outside the S3 authentication scope (STYLE.md convention 6). */
export const healthPlugin: FastifyPluginAsync<HealthPluginOptions> = async (app, opts) => {
  const methods = ['GET', 'HEAD'] as const;
  if (!opts.enabled) {
    for (const url of ALL_PATHS) {
      app.route({ method: [...methods], url, handler: async (_req, reply) => reply.code(404).send({
        code: 'NotFound', message: 'health endpoints are disabled (SVC_HEALTH_ENDPOINT_ENABLE=false)',
      }) });
    }
    return;
  }
  const src = opts.sources;
  const deadlineMs = src.deadlineMs ?? 5000;
  const timing = { deadlineMs, answerWithinMs: Math.min(src.answerWithinMs ?? 250, deadlineMs), maxAgeMs: src.maxAnswerAgeMs ?? 30_000 };
  const storageAnswer = new LatestAnswer(() => src.storage(), timing);
  const lockAnswer = new LatestAnswer(() => src.lockReady(), timing);
  const snapshot = async (): Promise<ProbeSnapshot> => {
    const [storage, lockReady] = await Promise.all([storageAnswer.get(), lockAnswer.get()]);
    return {
      storage, iamReady: src.iamReady(), lockReady: lockReady === true, readyNeedsLock: src.readyNeedsLock === true,
      ...(src.kms !== undefined ? { kms: src.kms() } : {}),
    };
  };
  const liveBody = () => ({
    status: 'ok', ready: true, service: 'svc', version: src.version,
    uptime: Math.round((Date.now() - src.startedAt.getTime()) / 1000),
  });
  const send = (reply: FastifyReply, status: number, body: object | undefined) => {
    reply.code(status).header('cache-control', 'no-store');
    if (reply.request.method === 'HEAD' || body === undefined) return reply.send();
    return reply.send({ ...body, service: 'svc', version: src.version, timestamp: new Date().toISOString() });
  };

  for (const url of LIVE_PATHS) {
    app.route({ method: [...methods], url, handler: async (_req, reply) => send(reply, 200, liveBody()) });
  }
  const jsonProbe = (url: string, kind: ProbeKind) => app.route({
    method: [...methods], url,
    handler: async (_req, reply) => {
      const body = evaluateProbe(kind, await snapshot());
      return send(reply, body.ready ? 200 : 503, body);
    },
  });
  for (const url of READY_PATHS) jsonProbe(url, 'ready');
  jsonProbe('/compat/health/cluster', 'cluster-write');
  jsonProbe('/compat/health/cluster/read', 'cluster-read');

  // MinIO aliases: status and headers only, empty bodies (REFERENCE.md §1.1, "byte-compatible").
  app.route({ method: [...methods], url: '/minio/health/live', handler: async (_req, reply) => send(reply, 200, undefined) });
  app.route({
    method: [...methods], url: '/minio/health/ready',
    handler: async (_req, reply) => send(reply, evaluateProbe('ready', await snapshot()).ready ? 200 : 503, undefined),
  });
  const minioCluster = (url: string, kind: 'cluster-write' | 'cluster-read', header: string) => app.route({
    method: [...methods], url,
    handler: async (req, reply) => {
      const snap = await snapshot();
      const body = evaluateProbe(kind, snap);
      const quorum = kind === 'cluster-write' ? snap.storage?.writeQuorum : snap.storage?.readQuorum;
      if (quorum !== undefined) reply.header(header, String(quorum));
      const healing = snap.storage?.healingDrives ?? 0;
      if (healing > 0) reply.header('X-Minio-Healing-Drives', String(healing));
      const maintenance = (req.query as Record<string, string | undefined>).maintenance === 'true';
      if (maintenance && body.ready && (healing > 0 || src.maintenanceLosesQuorum())) return send(reply, 412, undefined);
      return send(reply, body.ready ? 200 : 503, undefined);
    },
  });
  minioCluster('/minio/health/cluster', 'cluster-write', 'X-Minio-Write-Quorum');
  minioCluster('/minio/health/cluster/read', 'cluster-read', 'X-Minio-Read-Quorum');
};
