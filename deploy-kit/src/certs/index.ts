export { CERT_MODES, storeCertificate } from './store.js';
export type { CertLayout, CertMaterial, StoredFile } from './store.js';
export { assembleCombinedPem, combinePem, generateSelfSigned, inspectCombinedPem, nameCovered, parseCombinedPem, readCertificate, splitPem } from './pem/index.js';
export type { CertFacts, CertFinding, PemReport, SelfSignedBundle } from './pem/index.js';
