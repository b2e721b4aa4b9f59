/**
 * Shared preparation for `npm run bench`: the fake MF's data (exactly N 未仕訳 lines), the existing
 * 台帳 rows (E rows in 完了, written host-side straight into the spreadsheet model) and the check that
 * every new line ended 完了 exactly once.
 */
import { createHash } from 'node:crypto';
import { fingerprint } from '../../src/core/fingerprint';
import { LEDGER_HEADERS } from '../../src/core/schema';
import type { ExecutionResult } from '../gas/execution';
import type { Emulator } from '../gas/index';
import type { SheetModel } from '../gas/services/sheets-model';
import { FakeMf, TEST_API_KEY } from '../mf/fake-mf';
import { IdFactory } from '../mf/ids';
import { Random } from '../mf/random';
import { buildDataset, TEST_OFFICE_CODE } from '../mf/seed';
import { type Source, TEMPLATES } from '../mf/seed-catalog';
import type { MfDataset } from '../mf/types';

export const OWNER = 'owner@example.com';
export const START = '2026-11-30T09:00:00+09:00';
export const SEED = 1;
/** The window of the seeded lines (seed.ts defaults), as typed into 設定. */
export const WINDOW = ['2026-01-01', '2026-06-30'] as const;
export const MF_HOSTS = ['api-accounting.moneyforward.com', 'api.biz.moneyforward.com'];
/** MF is assumed to allow ~3 requests per second per token (reference/mf-api.md §9). */
export const MF_REQUESTS_PER_SECOND = 3;

/**
 * A seeded office whose statement lines include exactly `n` in journalizing_status `none`: the line
 * count is raised until the seed yields enough, then the surplus `none` lines (spread over the
 * window) become `excluded`, as a person would exclude lines in MF's own screen.
 */
export function datasetWithNone(n: number): MfDataset {
  let lineCount = n;
  for (;;) {
    const ds = buildDataset(SEED, { lineCount });
    const none = ds.transactions.filter((t) => t.journalizing_status === 'none');
    if (none.length >= n) {
      const surplus = none.length - n;
      for (let i = 0; i < surplus; i++) {
        none[Math.floor(((i + 0.5) * none.length) / surplus)].journalizing_status = 'excluded';
      }
      return ds;
    }
    lineCount = Math.ceil((lineCount * n) / Math.max(1, none.length)) + 5;
  }
}

export function noneIds(ds: MfDataset): string[] {
  return ds.transactions.filter((t) => t.journalizing_status === 'none').map((t) => t.id);
}

/** The fake MF on the dataset, routed in-process for both MF hosts, API-key mode in script properties. */
export function attachMf(emu: Emulator, dataset: MfDataset): FakeMf {
  const mf = new FakeMf({
    seed: SEED,
    dataset,
    now: () => emu.world.clock.now(),
    rateLimit: { requestsPerSecond: MF_REQUESTS_PER_SECOND, retryAfterSeconds: 1 },
    // Measured as before issue 27: a 簡易課税 office sends no インボイス区分 (the 区分 adds no call either way).
    taxMethod: 'SIMPLE',
  });
  for (const host of MF_HOSTS) emu.world.fetch.route(host, (req) => mf.handle(req));
  emu.world.properties.script.set('MF_API_KEY', TEST_API_KEY);
  emu.world.properties.script.set('MF_OFFICE_CODE', TEST_OFFICE_CODE);
  return mf;
}

export function sheet(emu: Emulator, name: string): SheetModel {
  const s = emu.world.spreadsheet.sheets.find((x) => x.name === name);
  if (!s) throw new Error(`no sheet ${name}`);
  return s;
}

export function headerCols(s: SheetModel): Map<string, number> {
  const cols = new Map<string, number>();
  for (let c = 1; c <= s.lastColumn(); c++) cols.set(String(s.value(1, c)), c);
  return cols;
}

const ACCOUNT_OF: Record<Source, string> = {
  smbc: '三井住友銀行',
  shibuya: '三井住友銀行',
  yucho: 'ゆうちょ銀行',
  card: '三井住友カード',
};

/**
 * `e` 台帳 rows of earlier years, all 完了, keyed `mf:` with ids drawn apart from the dataset's,
 * written under the sheet's header row (rows 2..e+1) directly into the model.
 */
export function setSetting(emu: Emulator, item: string, value: string): void {
  const s = sheet(emu, '設定');
  for (let r = 2; r <= s.lastRow(); r++) if (s.value(r, 1) === item) s.setValue(r, 2, value);
}

/**
 * The bench office after 初期設定: the import window, a send limit (and any other settings) and one rule
 * that classifies and auto-approves every line, so the runs measure the pipeline, not the people.
 */
export function setupBenchOffice(emu: Emulator, settings: Record<string, string>): void {
  const setup = emu.run('setup', { kind: 'menu', user: OWNER });
  if (setup.status !== 'ok') throw new Error(`setup failed: ${JSON.stringify(setup.error)}`);
  setSetting(emu, '取込開始日', WINDOW[0]);
  setSetting(emu, '取込終了日', WINDOW[1]);
  for (const [item, value] of Object.entries(settings)) setSetting(emu, item, value);
  const rules = sheet(emu, 'ルール');
  const ruleCols = headerCols(rules);
  const rule: Record<string, unknown> = {
    優先度: 1,
    一致方法: '正規表現',
    キーワード: '.*',
    勘定科目: '消耗品費',
    自動承認: 'はい',
    有効: true,
  };
  const at = rules.lastRow() + 1;
  for (const [h, v] of Object.entries(rule)) rules.setValue(at, ruleCols.get(h) as number, v as never);
}

export function fillExistingRows(ledger: SheetModel, e: number, dataset: MfDataset): void {
  const random = new Random(0x00be_0c4e);
  const ids = new IdFactory(
    random,
    dataset.transactions.map((t) => t.id),
  );
  const weighted = TEMPLATES.flatMap((t) => Array.from({ length: t.weight }, () => t));
  const cols = headerCols(ledger);
  const width = Math.max(...cols.values());
  const order = LEDGER_HEADERS.map((h) => {
    const c = cols.get(h);
    if (c === undefined) throw new Error(`台帳 has no header ${h}`);
    return c - 1;
  });
  const day0 = Date.UTC(2024, 0, 4);
  for (let i = 0; i < e; i++) {
    const t = random.pick(weighted);
    const txId = ids.next();
    const key = `mf:${txId}`;
    const date = new Date(day0 + Math.floor((i * 700) / e) * 86_400_000).toISOString().slice(0, 10);
    const done = new Date(Date.parse(`${date}T00:00:00Z`) + 3 * 86_400_000 + (i % 3600) * 1000).toISOString();
    const values: Record<(typeof LEDGER_HEADERS)[number], string | number> = {
      キー: key,
      状態: '完了',
      取引日: date,
      入出金: t.side === 'INCOME' ? '入金' : '出金',
      金額: random.pick(t.amounts),
      摘要: t.content,
      口座: ACCOUNT_OF[t.source],
      勘定科目: t.account,
      補助科目: t.subAccount ?? '',
      税区分: t.tax ?? '',
      取引先: t.partner ?? '',
      インボイス: '',
      操作: '',
      判定元: 'ルール#1',
      判定根拠: `ルール#1: 摘要が部分一致「${t.content.slice(0, 4)}」 → ${t.account}`,
      MF仕訳ID: ids.next(),
      試行回数: 1,
      初回検知: `${date}T00:10:00.000Z`,
      更新日時: done,
      完了日時: done,
      メモ: '',
      明細ID: txId,
      指紋: '',
    };
    // As posting writes it: a synthetic 完了 row is one nobody edited since (else 要確認 lists them all).
    values.指紋 = fingerprint(values as unknown as Parameters<typeof fingerprint>[0]);
    const row: (string | number)[] = new Array(width).fill('');
    LEDGER_HEADERS.forEach((h, j) => {
      row[order[j]] = values[h];
    });
    ledger.rows[i + 1] = { v: row };
  }
  ledger.maxRows = Math.max(ledger.maxRows, e + 1);
}

/** `kc-` + the first 16 hex chars of sha256(key), as src/core/keys.ts remoteTag. */
export function tagOf(key: string): string {
  return `kc-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

export interface Outcome {
  /** New lines checked. */
  lines: number;
  /** New lines whose 台帳 row is 完了 and whose tag is on exactly one MF journal. */
  exactlyOnce: number;
  /** Tags on no journal (never posted). */
  missing: number;
  /** Tags on more than one journal. */
  duplicated: number;
  /** New-line 台帳 rows by 状態 (a line with no row counts as '(no row)'). */
  states: Record<string, number>;
  /** 429s the fake's limiter answered. */
  rateLimited: number;
}

/** Counts journals per tag in the fake and the 台帳 state of every new line. */
export function outcome(emu: Emulator, mf: FakeMf, newIds: readonly string[]): Outcome {
  const perTag = new Map<string, number>();
  for (const j of mf.journals()) for (const tag of j.tags) perTag.set(tag, (perTag.get(tag) ?? 0) + 1);
  const ledger = sheet(emu, '台帳');
  const cols = headerCols(ledger);
  const keyCol = cols.get('キー') as number;
  const stateCol = cols.get('状態') as number;
  const rowStates = new Map<string, string[]>();
  for (let r = 2; r <= ledger.rows.length; r++) {
    const key = String(ledger.value(r, keyCol));
    if (key === '') continue;
    const list = rowStates.get(key);
    const state = String(ledger.value(r, stateCol));
    if (list) list.push(state);
    else rowStates.set(key, [state]);
  }
  const result: Outcome = {
    lines: newIds.length,
    exactlyOnce: 0,
    missing: 0,
    duplicated: 0,
    states: {},
    rateLimited: 0,
  };
  for (const id of newIds) {
    const key = `mf:${id}`;
    const journals = perTag.get(tagOf(key)) ?? 0;
    const states = rowStates.get(key) ?? ['(no row)'];
    for (const s of states) result.states[s] = (result.states[s] ?? 0) + 1;
    if (journals === 0) result.missing++;
    if (journals > 1) result.duplicated++;
    if (journals === 1 && states.length === 1 && states[0] === '完了') result.exactlyOnce++;
  }
  result.rateLimited = mf.requestLog.filter((r) => r.fault === 'rate-limit').length;
  return result;
}

/** Every key in the 台帳, or those of rows in `state` (host-side). */
export function ledgerKeys(emu: Emulator, state?: string): Set<string> {
  const ledger = sheet(emu, '台帳');
  const cols = headerCols(ledger);
  const keyCol = cols.get('キー') as number;
  const stateCol = cols.get('状態') as number;
  const keys = new Set<string>();
  for (let r = 2; r <= ledger.rows.length; r++) {
    if (state === undefined || ledger.value(r, stateCol) === state) keys.add(String(ledger.value(r, keyCol)));
  }
  return keys;
}

/** Rows of the 台帳 in `state` (host-side, no service call). */
export function countState(emu: Emulator, state: string): number {
  const ledger = sheet(emu, '台帳');
  const stateCol = headerCols(ledger).get('状態') as number;
  let n = 0;
  for (let r = 2; r <= ledger.rows.length; r++) if (ledger.value(r, stateCol) === state) n++;
  return n;
}

/** What the bench keeps of one execution. */
export interface ExecutionFigures {
  name: string;
  status: ExecutionResult['status'];
  sheetsCalls: number;
  urlFetches: number;
  /** Properties reads and writes (a daily quota of their own). */
  propertyOps: number;
  virtualMs: number;
  realMs: number;
  error?: string;
}

export function figures(name: string, r: ExecutionResult, realMs: number): ExecutionFigures {
  const c = r.counters;
  return {
    name,
    status: r.status,
    sheetsCalls: c.sheetsReads + c.sheetsWrites + c.flushes,
    urlFetches: c.urlFetches,
    propertyOps: c.propertyOps,
    virtualMs: r.endedAt - r.startedAt,
    realMs,
    error: r.error ? `${r.error.name}: ${r.error.message}`.slice(0, 200) : undefined,
  };
}
