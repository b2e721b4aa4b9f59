/**
 * auditDuplicates(): 重複点検. Reads every journal of a period in MF (one listing per accounting period,
 * paged at the largest page size) and the 台帳 once, finds journals that look like the same money recorded
 * twice (core/duplicates), and rewrites the 重複点検 sheet under the script lock, keeping people's 操作 and
 * メモ and every delete in progress. MF calls grow with journals ÷ page size, never with groups or rows.
 */

import { archivedJournal } from '../core/archive';
import { type DuplicateGroup, findDuplicates, PROPOSAL } from '../core/duplicates/detect';
import {
  type AuditJournal,
  auditable,
  type JournalFacts,
  journalFacts,
  LedgerLinks,
} from '../core/duplicates/facts';
import { RecordView, recordOf } from '../core/duplicates/record';
import { auditRecords } from '../core/duplicates/sheet';
import { ownAccounts } from '../core/own-accounts';
import { SHEET } from '../core/schema';
import { importWindow, SETTING_NEEDS } from '../core/settings';
import { readArchiveIndex } from '../gas/archive-sheet';
import { today } from '../gas/clock';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import { readAuditRecord, writeAuditRecord } from '../gas/duplicate-record';
import {
  duplicateSheet,
  formatDuplicateSheet,
  readDuplicateTable,
  replaceDuplicateRows,
} from '../gas/duplicate-sheet';
import { readLedger } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { mfClient, officeRefusal } from '../gas/mf-connection';
import { readMasters, readSettings } from '../gas/settings-sheet';
import { readSources } from '../gas/sources-sheet';
import type { MfClient } from '../mf/client';
import { isIsoDate } from '../mf/windows';
import { archiveIndexRefusal } from '../services/archive-index';
import { recoverStaleDeletions } from '../services/deletion-port';
import { preflight, settingsFor } from '../services/preflight';
import { type RunContext, type RunResult, runEntry } from '../services/run';

const ACTION = '重複点検';

export const AUDIT_MSG = {
  badPeriod: (start: string, end: string) =>
    `点検する期間「${start}〜${end}」が正しくありません。開始日と終了日を 2026-04-01 のように入れ、開始日を終了日より前にしてください。`,
  summary: (start: string, end: string, journals: number, rows: number, groups: number, members: number) =>
    `${start}〜${end} の MF の仕訳 ${journals} 件と台帳 ${rows} 行を確かめ、同じお金を二重に記帳した疑いのあるグループが ${groups} 件（仕訳 ${members} 件）ありました。シート「重複点検」に書き出しました。`,
  none: (start: string, end: string, journals: number) =>
    `${start}〜${end} の MF の仕訳 ${journals} 件に、二重に記帳した疑いのあるものはありませんでした。`,
  kinds: (parts: string) => `内訳: ${parts}。`,
  proposals: (toDelete: number, genuine: number) =>
    `削除候補 ${toDelete} 件${genuine > 0 ? `、本当の取引の可能性があるグループ ${genuine} 件（削除を提案していません）` : ''}。`,
  next: '削除するときは、シート「重複点検」で仕訳の操作を「削除」にしてから、メニュー「記帳 > 点検 > 重複を削除」で確かめて削除します。何も消さずに残すこともできます。',
} as const;

const KIND_LABEL: Readonly<Record<DuplicateGroup['kind'], string>> = {
  'same-line': '同じ明細',
  'same-tag': '同じ台帳の行',
  'csv-and-line': 'CSVと連携口座',
  transfer: '振替の両側',
  'same-content': '同じ内容',
};

export interface AuditPeriod {
  start: string;
  end: string;
}

export function runAudit(ctx: RunContext, period?: AuditPeriod, client?: MfClient): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.masters, SHEET.sources);
  if (refused) return refused;
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.audit);
  if (refusal) return refusal;
  const messages = [...notes];
  const imported = importWindow(settings, today());
  if (!period && imported.problem) return { ok: false, count: 0, messages: [imported.problem, ...messages] };
  const window = period ?? imported;
  if (!isIsoDate(window.start) || !isIsoDate(window.end) || window.start > window.end)
    return { ok: false, count: 0, messages: [AUDIT_MSG.badPeriod(window.start, window.end), ...messages] };
  // Journals of archived rows are the 台帳's own only through the key index (issue 25).
  const noIndex = archiveIndexRefusal();
  if (noIndex) return { ...noIndex, messages: [...noIndex.messages, ...messages] };
  const mf = client ?? mfClient();
  const otherOffice = officeRefusal(mf);
  if (otherOffice) return { ok: false, count: 0, messages: [otherOffice, ...messages] };
  duplicateSheet();
  // A delete whose execution died is settled first: its row must not be rebuilt as if nothing happened.
  const recovered = recoverStaleDeletions(ctx, mf);
  messages.push(...recovered.messages);

  const ledger = readLedger();
  const masters = readMasters();
  const sources = readSources();
  const own = ownAccounts(masters, sources);
  const accountOfKey = new Map(ledger.rows.map((r) => [r.record.キー, r.record.口座]));
  // Page by page: each page of up to 10,000 journals becomes facts and is let go.
  // Journals of rows moved to 台帳アーカイブ are the 台帳's own too (the key index, one read).
  const { index } = readArchiveIndex();
  const links = new LedgerLinks(ledger.rows, archivedJournal(index));
  const facts: JournalFacts[] = [];
  mf.eachJournalPage(window.start, window.end, (page) => {
    for (const f of journalFacts((page as AuditJournal[]).filter(auditable), links, facts.length))
      facts.push(f);
  });
  const journals = facts;
  const groups = findDuplicates(facts, {
    days: settings.duplicateDays,
    ownAccounts: own.map((a) => ({ accountId: a.accountId, subId: a.subId })),
    csvSources: new Map(
      own.filter((a) => a.kind === 'csv').map((a) => [a.label, { accountId: a.accountId, subId: a.subId }]),
    ),
    accountOfKey: (key) => accountOfKey.get(key),
  });

  const written = underScriptLock(() => {
    // Read under the lock: what people typed since, and claims another run wrote, are carried over.
    const records = auditRecords(groups, readDuplicateTable().rows);
    // What the audit found, where people cannot change it unnoticed (重複を削除 reads it, not the sheet);
    // rows carried over keep their entry from the record they were claimed under.
    const previous = readAuditRecord();
    writeAuditRecord(
      recordOf(
        groups,
        records.map((r) => String(r.仕訳ID)),
        previous instanceof RecordView ? previous : null,
        { at: new Date().toISOString(), start: window.start, end: window.end },
      ),
    );
    replaceDuplicateRows(records);
    formatDuplicateSheet(duplicateSheet());
    return records.length;
  });
  if (!written) return { ok: false, count: 0, messages: [BUSY_MESSAGE, ...messages] };

  const members = groups.reduce((n, g) => n + g.members.length, 0);
  const toDelete = groups.reduce(
    (n, g) => n + g.members.filter((m) => m.proposal === PROPOSAL.delete).length,
    0,
  );
  const genuine = groups.filter((g) => g.possiblyGenuine).length;
  const kinds = new Map<string, number>();
  for (const g of groups) kinds.set(KIND_LABEL[g.kind], (kinds.get(KIND_LABEL[g.kind]) ?? 0) + 1);
  const lead =
    groups.length === 0
      ? [AUDIT_MSG.none(window.start, window.end, journals.length)]
      : [
          AUDIT_MSG.summary(
            window.start,
            window.end,
            journals.length,
            ledger.rows.length,
            groups.length,
            members,
          ),
          AUDIT_MSG.kinds([...kinds].map(([k, v]) => `${k} ${v} 件`).join('、')),
          AUDIT_MSG.proposals(toDelete, genuine),
          AUDIT_MSG.next,
        ];
  return {
    count: groups.length,
    messages: [...lead, ...messages],
    start: window.start,
    end: window.end,
    journals: journals.length,
    groups: groups.length,
    members,
    toDelete,
    genuine,
    kinds: Object.fromEntries(groups.map((g) => [g.kind, groups.filter((x) => x.kind === g.kind).length])),
    recovered: recovered.recovered,
  };
}

/** DESIGN §6 auditDuplicates(): the import window's journals (a trigger or the script editor). */
export function auditDuplicates(e?: unknown) {
  return runEntry(ACTION, e, (ctx) => runAudit(ctx));
}

// Dialog targets (google.script.run)

/** Menu 「重複点検」: a dialog to choose the period (the import window by default). */
export function openDuplicateAudit(): void {
  const html = htmlTemplate('duplicate-audit').evaluate().setWidth(560).setHeight(460);
  spreadsheetUi().showModalDialog(html, '重複点検');
}

export function duplicateAuditInit(): AuditPeriod & { days: number } {
  const { settings } = readSettings();
  const w = importWindow(settings, today());
  return { start: w.start, end: w.end, days: settings.duplicateDays };
}

/** The dialog's 点検する: the period the person chose. */
export function auditDuplicatesFor(start: unknown, end: unknown) {
  return runEntry(
    ACTION,
    undefined,
    (ctx) => runAudit(ctx, { start: String(start ?? ''), end: String(end ?? '') }),
    {
      show: false,
    },
  );
}
