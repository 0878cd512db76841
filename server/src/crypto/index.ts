/**
 * Public names of the crypto layer: server-side encryption of object data (packages of AES-256-GCM), object
 * key sealing, and the local KMS. Pure: imports node builtins only.
 */
export {
  DecryptError, PACKAGE_SIZE, TAG_SIZE, decryptRange, encryptStream, encryptedSize, plainSize, planRange,
} from './package-cipher.js';
export type { CipherPart, EncryptingStream, RangePlan } from './package-cipher.js';
export { customerKek, newObjectKey, partKey, sealKey, unsealKey } from './key-seal.js';
export { KmsConfigError, KmsError, LocalKms, parseKmsSecretKey } from './local-kms.js';
export type { KmsStatus } from './local-kms.js';
