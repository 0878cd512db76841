/** An incremental bitrot hash: the pieces appended, in order, hash as the chunk they make up. */
export interface BitrotStream {
  append(data: Uint8Array): void;
  /** Copies `src` into `dst` (at least as long, not overlapping) and appends it: what the encoder does with a body piece. */
  copyIn(src: Uint8Array, dst: Uint8Array): void;
  digest(): Buffer;
}
