/**
 * Moved to src/services/preflight.ts (issue 28). Kept only for src/app/duplicate-delete.ts, which another branch
 * is rewriting: delete this file once that branch's import points at ../services/preflight.
 */
export * from '../services/preflight';
