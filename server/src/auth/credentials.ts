/**
 * Port through which SigV4 verification finds the secret of an access key (implemented by iam/, or by a
 * fixed root credential in main.ts). Resolves undefined when the key does not exist or is disabled;
 * rejects only on an internal failure (which the HTTP edge reports as InternalError).
 */
export type LookupSecret = (accessKey: string) => Promise<string | undefined>;
