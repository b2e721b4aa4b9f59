/**
 * 重複を削除: the journals a person set to 削除 on the 重複点検 sheet, listed in a confirmation dialog, then
 * deleted in MF as an instance of the exactly-once skeleton (core/duplicates/deletion): looked up, claimed
 * and flushed under the script lock, DELETE sent once, an unknown outcome looked up, the 台帳 settled. Only a
 * person's confirmation sends a DELETE: the dialog's token must still match the sheet, and a trigger never
 * deletes anything. Its ports over the real adapters are built in services/deletion-port.ts.
 */

import { type DeletionSummary, deleteDuplicates as runDeletion } from '../core/duplicates/deletion';
import { planDeletion } from '../core/duplicates/sheet';
import { SHEET } from '../core/schema';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import { readAuditRecord } from '../gas/duplicate-record';
import { readDuplicateTable } from '../gas/duplicate-sheet';
import { BUSY_MESSAGE } from '../gas/lock';
import { mfClient, officeRefusal } from '../gas/mf-connection';
import { isTriggerEvent } from '../gas/session';
import type { MfClient } from '../mf/client';
import { archiveIndexRefusal } from '../services/archive-index';
import { deletionInput, digest } from '../services/deletion-port';
import { preflight } from '../services/preflight';
import { type RunContext, type RunResult, runEntry } from '../services/run';

const ACTION = '重複の削除';

export const DELETE_RUN_MSG = {
  trigger: '重複の削除は、人がダイアログで確かめたときだけ行います（定期実行からは削除しません）。',
  done: (deleted: number, absent: number) =>
    `MF から仕訳を ${deleted} 件削除しました${absent > 0 ? `（ほかに ${absent} 件は MF に既にありませんでした）` : ''}。`,
  ledger: (excluded: number, relinked: number) =>
    `台帳の ${excluded} 行を除外にしました（二度と登録しません）${relinked > 0 ? `。${relinked} 行は残した仕訳につなぎ直しました` : ''}。`,
  failed: (n: number) => `${n} 件は MF が削除を断りました（シート「重複点検」の結果を見てください）。`,
  unknown: (n: number) =>
    `${n} 件は削除できたかわかりません。次の「重複点検」か「重複を削除」で MF に確かめます（送り直しはしません）。`,
  stillThere: (n: number) =>
    `${n} 件は応答がなかったため確かめたところ、MF に残っていました（削除されていません）。`,
  returned: (n: number) => `${n} 件は送りませんでした（操作は「削除」のままです）。`,
  changed: (n: number) => `${n} 件は点検のあとで MF の仕訳が変わっていたため削除していません。`,
  archived: (n: number) =>
    `${n} 件は台帳アーカイブの行が登録した仕訳のため削除していません（シート「重複点検」の結果を見てください）。`,
  lineLeftBare: (n: number) =>
    `${n} 件は、削除するとその明細の仕訳がなくなるため削除していません（本当の取引の可能性があるグループです。シート「重複点検」の結果を見てください）。`,
  rowless: (n: number) =>
    `${n} 件は kicho が登録した仕訳ですが台帳に行がないため削除していません（シート「重複点検」の結果を見てください）。`,
  nothing: '削除する仕訳はありませんでした。',
} as const;

function describe(s: DeletionSummary): string[] {
  const out: string[] = [];
  if (s.deleted.length > 0 || s.absent.length > 0)
    out.push(DELETE_RUN_MSG.done(s.deleted.length, s.absent.length));
  if (s.ledgerExcluded > 0 || s.ledgerRelinked > 0)
    out.push(DELETE_RUN_MSG.ledger(s.ledgerExcluded, s.ledgerRelinked));
  if (s.failed > 0) out.push(DELETE_RUN_MSG.failed(s.failed));
  if (s.unknown > 0) out.push(DELETE_RUN_MSG.unknown(s.unknown));
  if (s.stillThere > 0) out.push(DELETE_RUN_MSG.stillThere(s.stillThere));
  if (s.returned > 0) out.push(DELETE_RUN_MSG.returned(s.returned));
  if (s.changed > 0) out.push(DELETE_RUN_MSG.changed(s.changed));
  if (s.archived > 0) out.push(DELETE_RUN_MSG.archived(s.archived));
  if (s.rowless > 0) out.push(DELETE_RUN_MSG.rowless(s.rowless));
  if (s.lineLeftBare > 0) out.push(DELETE_RUN_MSG.lineLeftBare(s.lineLeftBare));
  return out;
}

export function runDeleteDuplicates(ctx: RunContext, token: string, client?: MfClient): RunResult {
  if (ctx.fromTrigger) return { ok: false, count: 0, messages: [DELETE_RUN_MSG.trigger] };
  const refused = preflight(SHEET.ledger, SHEET.duplicates);
  if (refused) return refused;
  // A journal an archived row holds is known only through the key index (issue 25).
  const noIndex = archiveIndexRefusal();
  if (noIndex) return noIndex;
  const mf = client ?? mfClient();
  const otherOffice = officeRefusal(mf);
  if (otherOffice) return { ok: false, count: 0, messages: [otherOffice] };
  const summary = runDeletion(deletionInput(ctx, mf), token);
  if (summary.busy)
    return { ok: false, count: summary.deleted.length, messages: [BUSY_MESSAGE, ...summary.messages] };
  const lines = describe(summary);
  const messages = [...lines, ...summary.messages];
  if (messages.length === 0) messages.push(DELETE_RUN_MSG.nothing);
  return {
    // A group refused is work asked for and not done: never reported as a plain success.
    ok:
      !summary.refusedPlan &&
      summary.failed === 0 &&
      summary.unknown === 0 &&
      summary.rowless === 0 &&
      summary.lineLeftBare === 0 &&
      summary.refusedGroups.length === 0,
    count: summary.deleted.length,
    messages,
    // ログ names what was deleted: who and when are on the line itself.
    deletedIds: summary.deleted,
    absentIds: summary.absent,
    failed: summary.failed,
    unknown: summary.unknown,
    stillThere: summary.stillThere,
    returned: summary.returned,
    changed: summary.changed,
    archived: summary.archived,
    rowless: summary.rowless,
    lineLeftBare: summary.lineLeftBare,
    ledgerExcluded: summary.ledgerExcluded,
    ledgerRelinked: summary.ledgerRelinked,
    refusedPlan: summary.refusedPlan,
    refusedGroups: summary.refusedGroups,
  };
}

/** The dialog's 削除する: deletes exactly the plan it showed (its token), or nothing. */
export function deleteDuplicates(token: unknown) {
  const fromTrigger = isTriggerEvent(token);
  return runEntry(
    ACTION,
    fromTrigger ? token : undefined,
    (ctx) => {
      const result = runDeleteDuplicates(ctx, typeof token === 'string' ? token : '');
      // The ids deleted go into ログ's message (who and when are its own columns).
      const ids = [...((result.deletedIds as string[]) ?? [])];
      if (ids.length > 0) result.messages.push(`削除した仕訳: ${ids.join('、')}`);
      return result;
    },
    { show: false },
  );
}

// Dialog

export interface DeletionDialogData {
  token: string;
  rows: {
    group: string;
    id: string;
    date: string;
    amount: number;
    debit: string;
    credit: string;
    remark: string;
    origin: string;
    proposal: string;
  }[];
  refused: string[];
  warnings: string[];
  inFlight: number;
}

/** What the confirmation lists: the sheet's choices against the audit's record, no MF call. */
export function deletionDialogData(): DeletionDialogData {
  const table = readDuplicateTable();
  const plan = planDeletion(table, readAuditRecord(), digest);
  // What the audit recorded, not what the sheet's cells say now.
  return {
    token: plan.token,
    rows: plan.planned.map((p) => ({
      group: p.group,
      id: p.journalId,
      date: p.member.date,
      amount: p.member.amount,
      debit: p.member.debit,
      credit: p.member.credit,
      remark: p.member.remark,
      origin: p.member.origin,
      proposal: p.member.proposal,
    })),
    refused: plan.refused.map((r) => r.message),
    warnings: plan.warnings,
    inFlight: table.rows.filter((r) => r.record.状態 === '削除中' || r.record.状態 === '不明').length,
  };
}

/** JSON for a <script> block: nothing in a 摘要 can close the tag or break the line. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Menu 「重複を削除」: the confirmation dialog. */
export function openDuplicateDeletion(): void {
  const template = htmlTemplate('duplicate-delete');
  template.plan = scriptJson(deletionDialogData());
  spreadsheetUi().showModalDialog(template.evaluate().setWidth(720).setHeight(560), '重複を削除');
}
