/** One result of a check of rendered output, with a fix hint for the user. */
export interface Finding {
  level: 'error' | 'warning';
  path?: string;
  message: string;
  hint: string;
}
