/**
 * Entry wiring only: Apps Script finds handlers by name on the global object (DESIGN §6).
 * Assignments are explicit so gas-webpack-plugin emits a top-level stub for each. Handlers that do
 * not go through runEntry are wrapped by `guarded`, which checks Google's permissions first.
 */
import { archiveLedger, bringBackFromArchive, showArchive } from './app/archive';
import { authCallback } from './app/auth-callback';
import { openAutoRun } from './app/auto-run';
import { backupLedger } from './app/backup';
import { checkBalances } from './app/balances';
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
import {
  auditDuplicates,
  auditDuplicatesFor,
  duplicateAuditInit,
  openDuplicateAudit,
} from './app/duplicate-audit';
import { deleteDuplicates, openDuplicateDeletion } from './app/duplicate-delete';
import { openHelp } from './app/help';
import { csvDialogInit, csvImportFile, csvPreview, importCsv, openCsvImport } from './app/import-csv';
import { importTransactions } from './app/import-transactions';
import { ntaKeyStatus, removeNtaKey, saveNtaKey } from './app/nta-key';
import { onOpen } from './app/on-open';
import { openReview } from './app/open-review';
import { postApproved, postPreviewed } from './app/post-approved';
import { checkReceivables } from './app/receivables';
import { reconcile } from './app/reconcile';
import { restoreLedgerFromMf } from './app/restore';
import { runScheduled } from './app/scheduled';
import { selfTest, selfTestConfirm } from './app/self-test';
import { openSettings, removeAiKey, saveAiKey, saveSettings, settingsForm } from './app/settings-dialog';
import { setup } from './app/setup';
import { addStarterRules, setupChecklist, setupWizard, showRulesSheet } from './app/setup-guide';
import { disableWebhook, doPost, rotateWebhookSecret, webhookInfo } from './app/web-events';
import { guarded } from './services/permission-gate';

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
global.selfTest = selfTest;
global.selfTestConfirm = selfTestConfirm;
// Menu targets and the connection sidebar's google.script.run targets.
global.openConnection = guarded('MFに接続', true, openConnection);
global.confirmDisconnect = guarded('接続の解除', true, confirmDisconnect);
global.connectionStatus = guarded('接続の確認', false, connectionStatus);
global.connectWithApiKey = guarded('MFへの接続', false, connectWithApiKey);
global.saveOAuthClient = guarded('MFへの接続', false, saveOAuthClient);
global.disconnectMf = guarded('接続の解除', false, disconnectMf);
global.moveLedgerOffice = guarded('台帳の事業者の変更', false, moveLedgerOffice);
global.openSettings = guarded('設定の編集', true, openSettings);
global.settingsForm = guarded('設定の表示', false, settingsForm);
global.saveSettings = guarded('設定の保存', false, saveSettings);
global.saveAiKey = guarded('AIキーの保存', false, saveAiKey);
global.removeAiKey = guarded('AIキーの削除', false, removeAiKey);
global.ntaKeyStatus = guarded('アプリケーションIDの表示', false, ntaKeyStatus);
global.saveNtaKey = guarded('アプリケーションIDの保存', false, saveNtaKey);
global.removeNtaKey = guarded('アプリケーションIDの削除', false, removeNtaKey);
global.postPreviewed = postPreviewed;
global.openReview = guarded('要確認を開く', true, openReview);
global.openAutoRun = guarded('自動実行の設定', true, openAutoRun);
global.openHelp = guarded('ヘルプ', true, openHelp);
global.setupWizard = setupWizard;
global.setupChecklist = guarded('初期設定の確認', false, setupChecklist);
global.addStarterRules = guarded('ルールの追加', false, addStarterRules);
global.showRulesSheet = guarded('ルールを開く', false, showRulesSheet);
global.importCsv = importCsv;
global.openCsvImport = guarded('CSVの取込', true, openCsvImport);
global.csvDialogInit = guarded('CSVの取込', false, csvDialogInit);
global.csvPreview = guarded('CSVの取込', false, csvPreview);
global.csvImportFile = csvImportFile;
// 重複点検 and 重複を削除 (issue 16); deleteDuplicates is only ever called by the confirmation dialog.
global.auditDuplicates = auditDuplicates;
global.openDuplicateAudit = guarded('重複点検', true, openDuplicateAudit);
global.duplicateAuditInit = guarded('重複点検', false, duplicateAuditInit);
global.auditDuplicatesFor = auditDuplicatesFor;
global.openDuplicateDeletion = guarded('重複を削除', true, openDuplicateDeletion);
global.deleteDuplicates = deleteDuplicates;
global.checkBalances = checkBalances;
// The web app (issue 17): events from other automations; doPost answers JSON on every path itself.
global.doPost = doPost;
global.webhookInfo = guarded('イベント受付の表示', false, webhookInfo);
global.rotateWebhookSecret = guarded('イベント受付の key', false, rotateWebhookSecret);
global.disableWebhook = guarded('イベント受付の停止', false, disableWebhook);
// The ledger archive (issue 18): old 完了・除外 rows to 台帳アーカイブ, and back.
global.archiveLedger = archiveLedger;
global.bringBackFromArchive = bringBackFromArchive;
global.showArchive = guarded('アーカイブを開く', false, showArchive);
