/**
 * Entry wiring only: Apps Script finds handlers by name on the global object (DESIGN §6).
 * Assignments are explicit so gas-webpack-plugin emits a top-level stub for each.
 */
import { authCallback } from './app/auth-callback';
import { openAutoRun } from './app/auto-run';
import { backupLedger } from './app/backup';
import { classifyPending } from './app/classify-pending';
import {
  confirmDisconnect,
  connectionStatus,
  connectWithApiKey,
  disconnectMf,
  moveLedgerOffice,
  openConnection,
  saveOAuthClient,
} from './app/connection';
import { dryRun } from './app/dry-run';
import { openHelp } from './app/help';
import { csvDialogInit, csvImportFile, csvPreview, importCsv, openCsvImport } from './app/import-csv';
import { importTransactions } from './app/import-transactions';
import { onOpen } from './app/on-open';
import { postApproved, postPreviewed } from './app/post-approved';
import { checkReceivables } from './app/receivables';
import { reconcile } from './app/reconcile';
import { restoreLedgerFromMf } from './app/restore';
import { openReview } from './app/review-sheet';
import { runScheduled } from './app/scheduled';
import { openSettings, saveSettings, settingsForm } from './app/settings-dialog';
import { setup } from './app/setup';
import { addStarterRules, setupChecklist, setupWizard, showRulesSheet } from './app/setup-guide';

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
global.checkReceivables = checkReceivables;
global.authCallback = authCallback;
global.backupLedger = backupLedger;
// Menu targets and the connection sidebar's google.script.run targets.
global.openConnection = openConnection;
global.confirmDisconnect = confirmDisconnect;
global.connectionStatus = connectionStatus;
global.connectWithApiKey = connectWithApiKey;
global.saveOAuthClient = saveOAuthClient;
global.disconnectMf = disconnectMf;
global.moveLedgerOffice = moveLedgerOffice;
global.openSettings = openSettings;
global.settingsForm = settingsForm;
global.saveSettings = saveSettings;
global.postPreviewed = postPreviewed;
global.openReview = openReview;
global.openAutoRun = openAutoRun;
global.openHelp = openHelp;
global.setupWizard = setupWizard;
global.setupChecklist = setupChecklist;
global.addStarterRules = addStarterRules;
global.showRulesSheet = showRulesSheet;
global.importCsv = importCsv;
global.openCsvImport = openCsvImport;
global.csvDialogInit = csvDialogInit;
global.csvPreview = csvPreview;
global.csvImportFile = csvImportFile;
