/**
 * Menu 「初期設定」: runs setup(), then a guide through the first steps — connect MF, choose the
 * import window and accounts, write (or take example) rules, 本番前チェック, run a dry run — each with
 * its state.
 */
import { MSG } from '../core/messages';
import { starterRulesFor } from '../core/rules/starter';
import { RULE_HEADERS, SHEET } from '../core/schema';
import { selfTestStep } from '../core/self-test';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import { connectionMode } from '../gas/mf-connection';
import { lastDryRun, readSelfTest } from '../gas/run-state';
import { readMasters, readRuleValues, readSettings } from '../gas/settings-sheet';
import { appendRecords, ensureSheet } from '../gas/workbook';
import { runEntry } from '../services/run';
import { appendRunLog } from '../services/run-log';
import { runSetup } from './setup';

export interface GuideStep {
  id: 'connect' | 'window' | 'rules' | 'selftest' | 'dryrun';
  title: string;
  done: boolean;
  detail: string;
}

function ruleCount(): number {
  return readRuleValues()
    .slice(1)
    .filter((r) => r.some((v) => String(v ?? '').trim() !== '')).length;
}

/** google.script.run: where the person stands. */
export function setupChecklist(): GuideStep[] {
  const { settings } = readSettings();
  const rules = ruleCount();
  const dryRun = lastDryRun();
  const mode = connectionMode();
  return [
    {
      id: 'connect',
      title: 'MFに接続する',
      done: mode !== 'none',
      detail:
        mode === 'none'
          ? 'まだ接続していません。'
          : `${mode === 'apikey' ? 'APIキー方式' : 'OAuth方式'}で接続の設定があります。`,
    },
    {
      id: 'window',
      title: '取込開始日と対象口座を決める',
      done: settings.importStart !== null,
      detail: settings.importStart
        ? `取込開始日 ${settings.importStart}、対象口座 ${settings.targetAccounts.length ? settings.targetAccounts.join('、') : 'すべて'}。`
        : '取込開始日がまだ空です。',
    },
    {
      id: 'rules',
      title: 'ルールを書く',
      done: rules > 0,
      detail:
        rules > 0
          ? `ルールが ${rules} 件あります。`
          : 'ルールがまだありません。例を入れて、あとで直すこともできます。',
    },
    { id: 'selftest', title: '本番前チェックを行う', ...selfTestStep(readSelfTest()) },
    {
      id: 'dryrun',
      title: 'ドライランで確かめる',
      done: dryRun !== null,
      detail: dryRun
        ? '一度実行しました。'
        : '登録の前に、何が起きるかを確かめます（MFには何も送りません）。',
    },
  ];
}

/** google.script.run: appends the starter rules that fit マスタ, when ルール is still empty. */
export function addStarterRules(): { added: number; message: string } {
  if (ruleCount() > 0) return { added: 0, message: 'ルールはもうあります。ルールシートで直してください。' };
  const rules = starterRulesFor(readMasters(), 100);
  if (rules.length === 0) {
    return {
      added: 0,
      message: 'マスタに合う例がありませんでした。先にMFに接続して初期設定をもう一度実行してください。',
    };
  }
  const { sheet } = ensureSheet(SHEET.rules);
  appendRecords(
    sheet,
    rules.map((r) => Object.fromEntries(RULE_HEADERS.filter((h) => h in r).map((h) => [h, r[h]]))),
  );
  const message = `例のルールを ${rules.length} 件入れました（自動承認はいいえ）。ルールシートで直せます。`;
  appendRunLog({ action: '例のルール', fromTrigger: false, ok: true, count: rules.length, message });
  return { added: rules.length, message };
}

/** google.script.run: shows the ルール sheet. */
export function showRulesSheet(): void {
  ensureSheet(SHEET.rules).sheet.activate();
}

export function setupWizard(e?: unknown) {
  const summary = runEntry(MSG.menuSetup, e, (ctx) => runSetup(ctx), { show: false });
  try {
    const template = htmlTemplate('setup-guide');
    template.messages = summary.messages;
    template.ok = summary.ok;
    spreadsheetUi().showModalDialog(template.evaluate().setWidth(520).setHeight(560), '初期設定');
  } catch (_e) {
    // Run from the editor: no UI; ログ has the result.
  }
  return summary;
}
