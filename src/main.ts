/**
 * Entry wiring only: Apps Script finds handlers by name on the global object (DESIGN §6).
 * Assignments are explicit so gas-webpack-plugin emits a top-level stub for each.
 */
import { authCallback } from './app/auth-callback';
import { classifyPending } from './app/classify-pending';
import { dryRun } from './app/dry-run';
import { csvDialogInit, csvImportFile, csvPreview, importCsv, openCsvImport } from './app/import-csv';
import { importTransactions } from './app/import-transactions';
import { onOpen } from './app/on-open';
import { postApproved } from './app/post-approved';
import { reconcile } from './app/reconcile';
import { restoreLedgerFromMf } from './app/restore';
import { runScheduled } from './app/scheduled';
import { setup } from './app/setup';

declare const global: Record<string, unknown>;

global.onOpen = onOpen;
global.setup = setup;
global.importTransactions = importTransactions;
global.classifyPending = classifyPending;
global.dryRun = dryRun;
global.postApproved = postApproved;
global.reconcile = reconcile;
global.runScheduled = runScheduled;
global.restoreLedgerFromMf = restoreLedgerFromMf;
global.authCallback = authCallback;
global.importCsv = importCsv;
global.openCsvImport = openCsvImport;
global.csvDialogInit = csvDialogInit;
global.csvPreview = csvPreview;
global.csvImportFile = csvImportFile;
