/** The server's one configuration object (STYLE.md convention 8), built once by `loadConfig` and frozen. */
export interface ListenAddress {
  /** Empty string means all interfaces (the `:<port>` form of SPEC §1 rule 1). */
  host: string;
  port: number;
}

export interface ServerConfig {
  address: ListenAddress;
  consoleAddress: ListenAddress;
  consoleEnabled: boolean;
  healthEndpointsEnabled: boolean;
  /** Drive paths (absolute), grouped per erasure set; empty in node-URL mode (see `endpoints`). */
  sets: string[][];
  /**
   * Node-URL mode (`http://node{1...4}:9000/srv/d{1...4}`): the endpoint arguments as given, for the cluster
   * topology to expand (paths inside URLs are paths on the node named by the URL, never resolved here).
   */
  endpoints?: string[];
  /** SVC_STORAGE_CLASS_STANDARD as given (`EC:N`), for the cluster topology; undefined when unset. */
  storageClass?: string;
  /** SVC_HOSTNAME: an extra host name this node answers to when matching its own endpoints. */
  hostname?: string;
  parity: number;
  /** Root credentials when given by the environment; undefined → generated on first start. */
  credentials?: { accessKey: string; secretKey: string };
  /** Where generated credentials are kept (mode 600). */
  configDir: string;
  region: string;
  /** SVC_DOMAIN: domains for virtual-host style requests (`bucket.<domain>`); empty → path style only. */
  domains: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logDirectory?: string;
  /** SVC_KMS_SECRET_KEY (`<name>:<base64 key>`): the local KMS of SSE-S3; absent → no KMS, SSE-S3 refused. */
  kmsSecretKey?: string;
  /** SVC_SSE_C_ALLOW_HTTP: accept SSE-C keys over plain HTTP from non-loopback peers (default: HTTPS or loopback only). */
  sseCOverHttp?: boolean;
  /**
   * SVC_KEY_INDEX (default true): drives formatted from now on keep their object records in a key index; false gives
   * them a metadata file per key (README, "Drive layouts"). Drives already formatted keep theirs.
   */
  keyIndex: boolean;
}

/** Defaults of every optional setting (SPEC §2). */
export const DEFAULTS = {
  address: ':9000',
  consoleAddress: ':9001',
  region: 'us-east-1',
  logLevel: 'info',
} as const;
