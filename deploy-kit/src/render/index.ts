export { planRender, listTemplateFiles } from './plan.js';
export type { PlannedFile, RenderPlan, TemplateSet } from './plan.js';
export { createRenderer, partialsOf } from './engine.js';
export type { Renderer } from './engine.js';
export { RenderError, RENDER_ERROR_CODES } from './render-error.js';
export type { RenderErrorCode } from './render-error.js';
export { CERT_PATHS, OUTPUT_FILES } from '../providers/index.js';
