export { applyPlan, comparePlan } from './apply-plan.js';
export type { FileComparison, FileStatus, PlanFile } from './apply-plan.js';
export { unifiedDiff } from './line-diff.js';
export type { DiffOptions } from './line-diff.js';
