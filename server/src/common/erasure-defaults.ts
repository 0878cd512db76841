/**
 * MinIO's `DefaultParityBlocks` by erasure-set size (REFERENCE.md fact 3): 1 → 0; 2–3 → 1; 4–5 → 2; 6–7 → 3;
 * 8–16 → 4. Kept in the kernel because config (validation, banner) and storage (formatting) both need it.
 */
export function defaultParity(setDriveCount: number): number {
  if (setDriveCount <= 1) return 0;
  if (setDriveCount <= 3) return 1;
  if (setDriveCount <= 5) return 2;
  if (setDriveCount <= 7) return 3;
  return 4;
}
