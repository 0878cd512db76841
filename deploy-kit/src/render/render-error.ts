/** Stable codes of {@link RenderError}; COMMANDS maps them to DK_ERR_* and exit codes at the edge. */
export const RENDER_ERROR_CODES = {
  templateMissing: 'RENDER_TEMPLATE_MISSING',
  templateFailed: 'RENDER_TEMPLATE_FAILED',
  outputInvalid: 'RENDER_OUTPUT_INVALID',
} as const;

/** One of {@link RENDER_ERROR_CODES}. */
export type RenderErrorCode = (typeof RENDER_ERROR_CODES)[keyof typeof RENDER_ERROR_CODES];

/** Raised by planRender when a template is missing, fails in strict mode, or yields unparsable output. */
export class RenderError extends Error {
  readonly code: RenderErrorCode;
  readonly file: string;
  readonly hint: string;

  constructor(code: RenderErrorCode, file: string, message: string, hint: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'RenderError';
    this.code = code;
    this.file = file;
    this.hint = hint;
  }
}
