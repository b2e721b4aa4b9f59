/**
 * Moved to src/services/run.ts (issue 28). Kept only for src/app/duplicate-delete.ts, which another branch
 * is rewriting: delete this file once that branch's import points at ../services/run.
 */
export * from '../services/run';
