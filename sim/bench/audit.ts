/**
 * The 重複点検 bench case (issue 16): an office with J journals in the current term — half made by kicho
 * (each with its 完了 row on the 台帳), the rest journalized in MF from lines, typed by hand or sent by
 * another app — with duplicates planted every 500 journals (the same line twice, one tag twice, a copy
 * typed by hand a day later, a CSV line next to the bank's) and a transfer seen from both banks every
 * 1,000. auditDuplicates runs once on the built bundle in the emulator; the result says what it cost
 * (MF calls, Sheets calls, modelled and real time, bytes read) and whether every planted duplicate was
 * proposed.
 */
import { performance } from 'node:perf_hooks';
import { findDuplicates } from '../../src/core/duplicates/detect';
import { type AuditJournal, auditable, journalFacts, LedgerLinks } from '../../src/core/duplicates/facts';
import { remoteTagOf } from '../../src/core/keys';
import { parseLedger } from '../../src/core/ledger';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { Emulator } from '../gas/index';
import { FakeMf, TEST_API_KEY } from '../mf/fake-mf';
import { IdFactory } from '../mf/ids';
import { Random } from '../mf/random';
import { buildDataset, TEST_OFFICE_CODE } from '../mf/seed';
import { TEMPLATES } from '../mf/seed-catalog';
import type { JournalRecord, MfDataset, StoredSide, Transaction } from '../mf/types';
import {
  type ExecutionFigures,
  figures,
  headerCols,
  MF_HOSTS,
  MF_REQUESTS_PER_SECOND,
  OWNER,
  SEED,
  START,
  sheet,
} from './world';

export interface AuditSpec {
  journals: number;
}

export interface AuditResult {
  spec: AuditSpec;
  ledgerRows: number;
  audit: ExecutionFigures;
  mfCalls: number;
  journalListings: number;
  /** Bytes of the journal listings' answers (what UrlFetch would carry). */
  listingBytes: number;
  /** Real ms the fake MF spent answering (MF's servers' work, not the script's). */
  fakeMs: number;
  /**
   * Real ms the script's own work takes in plain Node: JSON.parse of the pages, the 台帳 parse, facts and
   * grouping (the bundle's core, without the emulator's byte-by-byte decoding of each answer).
   */
  coreMs: number;
  largestPageBytes: number;
  groups: number;
  members: number;
  proposed: number;
  planted: number;
  plantedProposed: number;
  status: string;
  notes: string[];
  jobRealMs: number;
}

const FIRST_DAY = Date.UTC(2026, 3, 1);
const DAYS = 240;
const CSV_SOURCE = '○○信用金庫';

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

interface Built {
  dataset: MfDataset;
  rows: Record<string, string | number>[];
  /** Ids of the copies that must be proposed for deletion. */
  planted: string[];
}

/** The office: the seeded masters, J generated journals (amounts drawn wide, as real books have them). */
export function auditWorld(j: number): Built {
  const base = buildDataset(SEED, { lineCount: 50 });
  const random = new Random(0x0a0d_17ed);
  const ids = new IdFactory(random, [
    ...base.transactions.map((t) => t.id),
    ...base.journals.map((x) => x.id),
    ...base.accounts.map((a) => a.id),
  ]);
  const account = (name: string) => {
    const a = base.accounts.find((x) => x.name === name);
    if (!a) throw new Error(`no account ${name}`);
    return a;
  };
  const ledgerOf = (source: string): Pick<StoredSide, 'account_id' | 'sub_account_id'> => {
    const deposits = account('普通預金');
    const sub = (n: string) => deposits.sub_accounts.find((s) => s.name === n)?.id ?? null;
    if (source === 'card') {
      const card = account('未払金');
      return { account_id: card.id, sub_account_id: card.sub_accounts[0]?.id ?? null };
    }
    if (source === 'yucho') return { account_id: deposits.id, sub_account_id: sub('ゆうちょ銀行') };
    if (source === 'shibuya')
      return { account_id: deposits.id, sub_account_id: sub('三井住友銀行 渋谷支店') };
    if (source === 'csv') return { account_id: deposits.id, sub_account_id: null };
    return { account_id: deposits.id, sub_account_id: sub('三井住友銀行') };
  };
  const service = (source: string) => {
    const byName = (n: string) => base.connectedAccounts.find((c) => c.name === n);
    if (source === 'card')
      return { id: byName('三井住友カード')?.id ?? '', sub: null, label: '三井住友カード' };
    if (source === 'yucho') return { id: byName('ゆうちょ銀行')?.id ?? '', sub: null, label: 'ゆうちょ銀行' };
    const bank = byName('三井住友銀行');
    const s = bank?.connected_sub_accounts[source === 'shibuya' ? 1 : 0];
    return { id: bank?.id ?? '', sub: s?.id ?? null, label: `三井住友銀行 ${s?.name ?? ''}` };
  };
  const tax = base.taxes.find((t) => t.name === '課税仕入 10%');
  const side = (
    ref: Pick<StoredSide, 'account_id' | 'sub_account_id'>,
    value: number,
    taxed: boolean,
  ): StoredSide => ({
    ...ref,
    tax_id: taxed ? (tax?.id ?? null) : null,
    department_id: null,
    trade_partner_code: null,
    invoice_kind: 'INVOICE_KIND_NONE',
    value,
  });
  const journals: JournalRecord[] = [...base.journals];
  const transactions: Transaction[] = [...base.transactions];
  const rows: Record<string, string | number>[] = [];
  const planted: string[] = [];
  let number = 1_000;
  const weighted = TEMPLATES.flatMap((t) => Array.from({ length: t.weight }, () => t));
  const journal = (
    over: Partial<JournalRecord> & Pick<JournalRecord, 'transaction_date' | 'branches'>,
  ): JournalRecord => {
    const stamp = `${iso(Date.parse(`${over.transaction_date}T00:00:00Z`) + 86_400_000)}T01:00:00Z`;
    const record: JournalRecord = {
      id: ids.next(),
      number: number++,
      term_period: 2026,
      is_realized: true,
      journal_type: 'journal_entry',
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
      create_time: stamp,
      update_time: stamp,
      tags: [],
      memo: null,
      voucher_file_ids: [],
      transaction_id: null,
      ...over,
    };
    journals.push(record);
    return record;
  };
  const line = (
    date: string,
    value: number,
    expense: boolean,
    source: string,
    content: string,
  ): Transaction => {
    const s = service(source);
    const tx: Transaction = {
      id: ids.next(),
      date,
      value,
      side: expense ? 'EXPENSE' : 'INCOME',
      content,
      memo: null,
      journalizing_status: 'registered',
      connected_account_id: s.id,
      connected_sub_account_id: s.sub,
      voucher_file_ids: [],
    };
    transactions.push(tx);
    return tx;
  };
  const row = (
    key: string,
    j: JournalRecord,
    account: string,
    tx: Transaction | null,
    content: string,
    expense: boolean,
  ) => {
    const b = j.branches[0];
    rows.push({
      キー: key,
      状態: '完了',
      取引日: j.transaction_date,
      入出金: expense ? '出金' : '入金',
      金額: b.debitor.value,
      摘要: content,
      口座: account,
      勘定科目: base.accounts.find((a) => a.id === b.debitor.account_id)?.name ?? '',
      MF仕訳ID: j.id,
      試行回数: 1,
      明細ID: tx?.id ?? '',
      初回検知: `${j.transaction_date}T00:10:00.000Z`,
      更新日時: j.create_time,
      完了日時: j.create_time,
    });
  };

  for (let i = 0; i < j; i++) {
    const t = random.pick(weighted);
    const date = iso(FIRST_DAY + Math.floor((i * DAYS) / j) * 86_400_000);
    const value = 100 + random.between(0, 499_900);
    const counter = account(t.account);
    const kind = i % 10;
    const source = kind === 9 ? 'csv' : t.source;
    const bank = ledgerOf(source);
    const expense = t.side === 'EXPENSE';
    const branch = {
      remark: t.content,
      debitor: expense
        ? side({ account_id: counter.id, sub_account_id: null }, value, true)
        : side(bank, value, false),
      creditor: expense
        ? side(bank, value, false)
        : side({ account_id: counter.id, sub_account_id: null }, value, true),
    };
    if (kind <= 3) {
      const tx = line(date, value, expense, source, t.content);
      const key = `mf:${tx.id}`;
      const j0 = journal({
        transaction_date: date,
        branches: [branch],
        transaction_id: tx.id,
        tags: [remoteTagOf(key)],
      });
      row(key, j0, service(source).label, tx, t.content, expense);
      if (i % 500 === 0) {
        // Another automation journalized the same line.
        planted.push(
          journal({
            transaction_date: date,
            branches: [branch],
            transaction_id: tx.id,
            entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
          }).id,
        );
      } else if (i % 500 === 100) {
        // The same 台帳 row posted again as a plain journal (same tag).
        planted.push(journal({ transaction_date: date, branches: [branch], tags: [remoteTagOf(key)] }).id);
      }
    } else if (kind <= 6) {
      const tx = line(date, value, expense, source, t.content);
      journal({
        transaction_date: date,
        branches: [branch],
        transaction_id: tx.id,
        entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      });
      if (i % 500 === 4) {
        // Typed by hand the next day as well.
        const next = iso(Date.parse(`${date}T00:00:00Z`) + 86_400_000);
        planted.push(
          journal({
            transaction_date: next,
            branches: [{ ...branch, remark: t.content.normalize('NFKC') }],
            entered_by: 'JOURNAL_TYPE_NORMAL',
          }).id,
        );
      }
    } else if (kind === 7) {
      journal({ transaction_date: date, branches: [branch], entered_by: 'JOURNAL_TYPE_NORMAL' });
    } else if (kind === 8) {
      journal({ transaction_date: date, branches: [branch] });
    } else {
      const key = `csv:${ids
        .next()
        .replace(/[^A-Za-z0-9]/g, '')
        .slice(0, 32)}`;
      const j0 = journal({ transaction_date: date, branches: [branch], tags: [remoteTagOf(key)] });
      row(key, j0, CSV_SOURCE, null, t.content, expense);
      if (i % 500 === 9) {
        // The same money came in through a connected bank too, journalized there: the CSV's is proposed.
        const tx = line(date, value, expense, 'smbc', t.content);
        const smbc = ledgerOf('smbc');
        journal({
          transaction_date: date,
          branches: [
            {
              ...branch,
              debitor: expense ? branch.debitor : side(smbc, value, false),
              creditor: expense ? side(smbc, value, false) : branch.creditor,
            },
          ],
          transaction_id: tx.id,
          entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
        });
        planted.push(j0.id);
      }
    }
    if (i % 1000 === 500) {
      // A transfer 三井住友銀行 → ゆうちょ銀行 journalized from both feeds.
      const amount = 100_000 + i;
      const move = {
        remark: 'ﾌﾘｶｴ ﾕｳﾁﾖ',
        debitor: side(ledgerOf('yucho'), amount, false),
        creditor: side(ledgerOf('smbc'), amount, false),
      };
      const out = line(date, amount, true, 'smbc', 'ﾌﾘｶｴ ﾕｳﾁﾖ');
      const inn = line(date, amount, false, 'yucho', 'ﾌﾘｺﾐ ﾐﾂｲｽﾐﾄﾓ');
      journal({
        transaction_date: date,
        branches: [move],
        transaction_id: out.id,
        entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      });
      planted.push(
        journal({
          transaction_date: date,
          branches: [{ ...move, remark: 'ﾌﾘｺﾐ ﾐﾂｲｽﾐﾄﾓ' }],
          transaction_id: inn.id,
          entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
          create_time: '2026-12-01T00:00:00Z',
        }).id,
      );
    }
  }
  return { dataset: { ...base, journals, transactions }, rows, planted };
}

function fillLedger(emu: Emulator, rows: readonly Record<string, string | number>[]): void {
  const ledger = sheet(emu, '台帳');
  const cols = headerCols(ledger);
  const width = Math.max(...cols.values());
  rows.forEach((r, i) => {
    const cells: (string | number)[] = new Array(width).fill('');
    for (const h of LEDGER_HEADERS) {
      const c = cols.get(h);
      if (c !== undefined) cells[c - 1] = r[h] ?? (h === '試行回数' ? 0 : '');
    }
    ledger.rows[i + 1] = { v: cells };
  });
  ledger.maxRows = Math.max(ledger.maxRows, rows.length + 1);
}

export function runAudit(spec: AuditSpec, bundleDir: string): AuditResult {
  const t0 = performance.now();
  const built = auditWorld(spec.journals);
  const emu = new Emulator({ bundleDir, owner: OWNER, start: START });
  const mf = new FakeMf({
    seed: SEED,
    dataset: built.dataset,
    now: () => emu.world.clock.now(),
    rateLimit: { requestsPerSecond: MF_REQUESTS_PER_SECOND, retryAfterSeconds: 1 },
  });
  let listingBytes = 0;
  let largestPageBytes = 0;
  let fakeMs = 0;
  for (const host of MF_HOSTS)
    emu.world.fetch.route(host, (req) => {
      const f0 = performance.now();
      const res = mf.handle(req);
      fakeMs += performance.now() - f0;
      if (/\/api\/v3\/journals\?/.test(req.url)) {
        listingBytes += res.body.length;
        largestPageBytes = Math.max(largestPageBytes, Buffer.byteLength(res.body));
      }
      return res;
    });
  emu.world.properties.script.set('MF_API_KEY', TEST_API_KEY);
  emu.world.properties.script.set('MF_OFFICE_CODE', TEST_OFFICE_CODE);
  const setup = emu.run('setup', { kind: 'menu', user: OWNER });
  if (setup.status !== 'ok') throw new Error(`setup failed: ${JSON.stringify(setup.error)}`);
  const settings = sheet(emu, '設定');
  for (let r = 2; r <= settings.lastRow(); r++) {
    if (settings.value(r, 1) === '取込開始日') settings.setValue(r, 2, '2026-04-01');
    if (settings.value(r, 1) === '取込終了日') settings.setValue(r, 2, '2026-11-30');
  }
  const sources = sheet(emu, '取込元');
  sources.setValue(2, 1, CSV_SOURCE);
  sources.setValue(2, 2, '普通預金');
  fillLedger(emu, built.rows);
  mf.clearRequestLog();
  fakeMs = 0;

  const a0 = performance.now();
  const r = emu.run('auditDuplicates', { kind: 'menu', user: OWNER });
  const audit = figures('auditDuplicates', r, performance.now() - a0);
  const v = (r.value ?? {}) as { groups?: number; members?: number; toDelete?: number };
  const dup = sheet(emu, '重複点検');
  const cols = headerCols(dup);
  const proposedIds = new Set<string>();
  for (let row = 2; row <= dup.lastRow(); row++)
    if (dup.value(row, cols.get('提案') as number) === '削除候補')
      proposedIds.add(String(dup.value(row, cols.get('仕訳ID') as number)));
  const c0 = performance.now();
  const text = JSON.stringify(mf.journals());
  const parsed = (JSON.parse(text) as AuditJournal[]).filter(auditable);
  const ledger = parseLedger([
    LEDGER_HEADERS.slice(),
    ...built.rows.map((x) => LEDGER_HEADERS.map((h) => x[h] ?? '')),
  ]);
  findDuplicates(journalFacts(parsed, new LedgerLinks(ledger.rows)), {
    days: 3,
    ownAccounts: [],
    csvSources: new Map(),
    accountOfKey: () => undefined,
  });
  const coreMs = performance.now() - c0;
  const notes: string[] = [];
  if (r.status !== 'ok') notes.push(`auditDuplicates: ${r.status} ${audit.error ?? ''}`);
  if (r.internalErrors.length > 0) notes.push(`emulator: ${r.internalErrors.join(' | ')}`);
  return {
    spec,
    ledgerRows: built.rows.length,
    audit,
    mfCalls: mf.requestLog.filter((e) => e.path.startsWith('/api/v3/')).length,
    journalListings: mf.requestLog.filter((e) => e.path === '/api/v3/journals').length,
    listingBytes,
    largestPageBytes,
    fakeMs,
    coreMs,
    groups: v.groups ?? 0,
    members: v.members ?? 0,
    proposed: v.toDelete ?? 0,
    planted: built.planted.length,
    plantedProposed: built.planted.filter((id) => proposedIds.has(id)).length,
    status: r.status,
    notes,
    jobRealMs: performance.now() - t0,
  };
}
