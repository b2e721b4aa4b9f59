/**
 * Moved to src/services/done-rows.ts (issue 28). Kept only for src/app/duplicate-delete.ts, which another branch
 * is rewriting: delete this file once that branch's import points at ../services/done-rows.
 */
export * from '../services/done-rows';
