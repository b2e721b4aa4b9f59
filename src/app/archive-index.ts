/**
 * Moved to src/services/archive-index.ts (issue 28). Kept only for src/app/duplicate-delete.ts, which another branch
 * is rewriting: delete this file once that branch's import points at ../services/archive-index.
 */
export * from '../services/archive-index';
