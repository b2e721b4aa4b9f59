/**
 * Entry wiring only: Apps Script finds handlers by name on the global object (DESIGN §6).
 * Assignments are explicit so gas-webpack-plugin emits a top-level stub for each.
 */
import { onOpen } from './app/on-open';
import { setup } from './app/setup';

declare const global: Record<string, unknown>;

global.onOpen = onOpen;
global.setup = setup;
