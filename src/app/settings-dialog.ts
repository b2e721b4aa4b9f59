/**
 * Menu 「設定を編集」: a dialog over the 設定 sheet. Values are checked with the same parser the runs
 * use; nothing is written while any value is invalid, and a valid save is one write of the 値 column.
 */

import {
  AI_CONSENT_LABEL,
  AI_CONSENT_MISSING,
  type AiDisclosure,
  allAiDisclosures,
  needsAiConsent,
} from '../core/ai/disclosure';
import type { AiProvider } from '../core/ai/providers';
import { allPlans, type DailyPlan, measuredCost, PLANNING_KIND, WORKSPACE_NOTE } from '../core/quota';
import { SHEET } from '../core/schema';
import { canonicalItem } from '../core/settings';
import { problemsOf, type SettingField, settingFields } from '../core/settings-form';
import { type CellInput, setCells, toCell } from '../gas/cells';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import { underScriptLock } from '../gas/lock';
import { PROPERTY, property, scriptProperties, userProperties } from '../gas/properties';
import { readSettingRows, readSettings } from '../gas/settings-sheet';
import { readUsage } from '../gas/usage';
import { appendRecords, ensureSheet } from '../gas/workbook';
import { appendRunLog } from '../services/run-log';
import { receivablesTriggerMessage, scheduleMessage } from '../services/trigger-messages';

export interface SaveResult {
  ok: boolean;
  /** Problems by item (empty when saved). */
  problems: Record<string, string>;
  message: string;
}

export function openSettings(): void {
  const html = htmlTemplate('settings').evaluate().setWidth(560).setHeight(640);
  spreadsheetUi().showModalDialog(html, '設定');
}

/** What each 照合間隔 × 自動実行 costs a day against the account's quotas (this account's runs when known). */
export function schedulePlans(): { plans: DailyPlan[]; note: string } {
  const { settings } = readSettings();
  const measured = measuredCost(readUsage());
  const plans = allPlans(PLANNING_KIND, {
    on: settings.autoRun ? measured : null,
    off: settings.autoRun ? null : measured,
  });
  return { plans, note: WORKSPACE_NOTE };
}

/** google.script.run: the fields as they are on the sheet now. */
export function settingsForm(): {
  fields: SettingField[];
  problems: Record<string, string>;
  quota: ReturnType<typeof schedulePlans>;
  aiKeySaved: boolean;
  ai: { saved: string; disclosures: Record<AiProvider, AiDisclosure & { consentLabel: string }> };
} {
  const { rows } = readSettingRows();
  const { settings } = readSettings();
  const disclosures = allAiDisclosures(settings.aiPerDay);
  for (const d of Object.values(disclosures)) Object.assign(d, { consentLabel: AI_CONSENT_LABEL(d.company) });
  return {
    fields: settingFields(rows),
    problems: problemsOf(rows, {}),
    quota: schedulePlans(),
    aiKeySaved: aiKeySaved(),
    ai: {
      saved: settings.aiProvider,
      disclosures: disclosures as Record<AiProvider, AiDisclosure & { consentLabel: string }>,
    },
  };
}

/**
 * google.script.run: checks every value, then writes them all at once, or nothing. Switching AI 判定 on (or
 * to another provider) needs `aiConsent` naming that provider: the person saw what is sent, to whom and
 * what it costs, and said yes (issue 29).
 */
export function saveSettings(values: unknown, aiConsent?: unknown): SaveResult {
  const typed: Record<string, string> = {};
  for (const [k, v] of Object.entries((values ?? {}) as Record<string, unknown>))
    typed[k] = String(v ?? '').trim();
  const previous = readSettings().settings;
  const aiItem = 'AI判定';
  const consentNeeded = needsAiConsent(previous.aiProvider, typed[aiItem]);
  if (consentNeeded && String(aiConsent ?? '').toLowerCase() !== typed[aiItem].toLowerCase()) {
    return { ok: false, problems: { [aiItem]: AI_CONSENT_MISSING }, message: AI_CONSENT_MISSING };
  }
  const done = underScriptLock(() => {
    const { rows, valueColumn } = readSettingRows();
    const problems = problemsOf(rows, typed);
    if (Object.keys(problems).length > 0) return { ok: false, problems };
    const { sheet } = ensureSheet(SHEET.settings);
    // Items as the runs read them (NFKC: 「照合間隔(分)」 is 照合間隔（分）), so no item gets a second row.
    const itemOf = (r: { item: string }) => canonicalItem(r.item) ?? r.item.trim();
    const known = new Map(rows.map((r) => [itemOf(r), r.rowNumber]));
    if (rows.length > 0) {
      // Untouched rows are written back exactly as read (a Date stays a Date, text stays text).
      const has = (item: string) => typed[item] !== undefined;
      const column: CellInput[][] = rows.map((r) => [toCell(has(itemOf(r)) ? typed[itemOf(r)] : r.value)]);
      setCells(sheet.getRange(2, valueColumn + 1, column.length, 1), column);
    }
    const missing = Object.keys(typed).filter((item) => !known.has(item));
    if (missing.length > 0)
      appendRecords(
        sheet,
        missing.map((item) => ({ 項目: item, 値: typed[item] })),
      );
    return { ok: true, problems: {} };
  });
  if (!done)
    return {
      ok: false,
      problems: {},
      message: '別の処理が実行中です。少し待ってからもう一度保存してください。',
    };
  if (!done.value.ok) {
    return { ...done.value, message: '直してほしい項目があります。保存していません。' };
  }
  const messages = ['設定を保存しました。'];
  const now = readSettings().settings;
  if (now.reconcileIntervalMinutes !== previous.reconcileIntervalMinutes) messages.push(scheduleMessage());
  if (now.receivablesWeekly !== previous.receivablesWeekly) messages.push(receivablesTriggerMessage());
  if (consentNeeded)
    messages.push(
      `AI判定を ${now.aiProvider} にしました（AI に送る内容・送り先・費用の説明を確かめ、同意のうえ。誰が同意したかはログの実行者の列にあります）。`,
    );
  appendRunLog({
    action: '設定の編集',
    fromTrigger: false,
    ok: true,
    count: Object.keys(typed).length,
    message: messages.join(' '),
  });
  return { ok: true, problems: {}, message: messages.join(' ') };
}

/** Whether an AI_API_KEY is saved (the key itself never leaves the properties). */
export function aiKeySaved(): boolean {
  return !!property(PROPERTY.aiApiKey);
}

/** google.script.run: saves the AI provider's key to script properties; the page clears its field. */
export function saveAiKey(key: unknown): { ok: boolean; message: string; saved: boolean } {
  const text = String(key ?? '').trim();
  if (text === '') return { ok: false, message: 'AIのAPIキーを入力してください。', saved: aiKeySaved() };
  if (/\s/.test(text) || text.length > 500)
    return {
      ok: false,
      message: 'AIのAPIキーの形が正しくありません（空白を含まない1行の文字列です）。保存していません。',
      saved: aiKeySaved(),
    };
  scriptProperties().setProperty(PROPERTY.aiApiKey, text);
  appendRunLog({
    action: 'AIキーの保存',
    fromTrigger: false,
    ok: true,
    count: 0,
    message: 'AIのAPIキーを保存',
  });
  return { ok: true, message: 'AIのAPIキーを保存しました（画面には表示しません）。', saved: true };
}

/** google.script.run: removes the AI key from script and user properties. */
export function removeAiKey(): { ok: boolean; message: string; saved: boolean } {
  scriptProperties().deleteProperty(PROPERTY.aiApiKey);
  userProperties().deleteProperty(PROPERTY.aiApiKey);
  appendRunLog({
    action: 'AIキーの削除',
    fromTrigger: false,
    ok: true,
    count: 0,
    message: 'AIのAPIキーを削除',
  });
  return {
    ok: true,
    message: 'AIのAPIキーを削除しました。AI判定は、キーをもう一度保存するまで動きません。',
    saved: false,
  };
}
