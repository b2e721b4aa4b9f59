/**
 * 本番前チェック's items for Google's side: Sheets (how text round-trips in this account, what '@' cells
 * do, the 台帳's formats) and Apps Script (the script lock, flush, the trigger and its owner, properties,
 * time zones). The MF items (connected office, accounting periods, permissions, the one-line posting
 * check with its confirmation) are items of the same kind in their own module, listed after these.
 */

import { asText } from '../core/cell-text';
import { SHEET } from '../core/schema';
import type { CheckItem, CheckOutcome } from '../core/self-test';
import {
  CELL_CHARS,
  ledgerTextChecked,
  plainTextCellsAreSafe,
  recordTextObservation,
  setCells,
  type TextObservation,
  textObservation,
  toCells,
} from '../gas/cells';
import { scriptTimeZone } from '../gas/clock';
import { rawScriptLock } from '../gas/lock';
import type { SentRequest } from '../gas/mf-connection';
import { utf8Bytes, uuid } from '../gas/platform';
import { scriptProperties, userProperties } from '../gas/properties';
import { probePlainText } from '../gas/scratch-sheet';
import { readSettings } from '../gas/settings-sheet';
import { scheduleTriggerState } from '../gas/triggers';
import { activeBook, flush } from '../gas/workbook';
import type { MfClient } from '../mf/client';
import { ownerMismatch } from './oauth-owner';
import type { RunContext, RunResult } from './run';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export interface SelfTestContext {
  who: string;
  /** The hidden scratch sheet, created on first use and deleted when the check ends. */
  scratch: () => Sheet;
  /** What the '@' probe saw (set by the first Sheets item). */
  observation: TextObservation | null;
  /** The run (the posting check posts through runPost with it). */
  run: RunContext;
  /**
   * 登録を実行 as the posting check runs it (app/self-test.ts wires app/post-approved.ts runPost with
   * { selfTest: true }): a service never imports an entry point.
   */
  post: (client: MfClient, plan: { token: string; keys: readonly string[] }) => RunResult;
  /** One MF client for every MF item, built on first use; every request it sends goes to mfLog. */
  mfClient: () => MfClient;
  mfLog: SentRequest[];
  /** Set by the first MF item: whether MF can be asked at all. */
  mfState?: { ready: boolean };
  /** The line the posting check's question named (set when it asks). */
  candidateKey?: string;
  /** What the posting check's runPost said. */
  postMessages?: string[];
}

/** Where on the scratch sheet each item writes (they share one sheet). */
const ROW_PROBE = 1;
const COL_TEXT = 3;
const COL_PLAIN = 4;
const COL_LONG = 5;
const COL_FLUSH = 6;

/** Text kicho must read back exactly: its keys and ids, and what banks, CSV files and MF send. */
export const ROUND_TRIP: ReadonlyArray<readonly [label: string, text: string]> = [
  ['MFの明細のキー', 'mf:7o7mb67jKzDcTCwMYR%2FQqA%3D%3D'],
  ['CSVの明細のキー', 'csv:0123456789abcdef0123456789abcdef'],
  ['MFのタグ', 'kc-0123456789abcdef'],
  ['先頭が = の文字', '=HYPERLINK("https://example.com","明細")'],
  ['先頭が + の文字', '+81-3-1234-5678'],
  ['先頭が - の文字', '-500'],
  ['先頭が @ の文字', '@kicho'],
  ["先頭が ' の文字", "'24年度 会費"],
  ['先頭が 0 の数字', '007'],
  ['日付のような文字', '2026-10-01'],
  ['日付のような文字（/）', '2026/10/01'],
  ['時刻のような文字', '12:30'],
  ['数のような文字', '1,234'],
  ['指数のような文字', '1e3'],
  ['百分率のような文字', '50%'],
  ['金額のような文字', '¥1,200'],
  ['TRUE という文字', 'TRUE'],
  ['日時（ISO 8601）', '2026-11-30T09:00:00.000Z'],
  ['半角カナ', 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ'],
];

function describeObservation(o: TextObservation): string {
  const apostrophe =
    o.apostrophe === 'kept'
      ? "先頭の「'」が文字として残ります"
      : o.apostrophe === 'stripped'
        ? "先頭の「'」は残りません"
        : "先頭の「'」の扱いが想定と違います";
  const formulas =
    o.formulas === 'formula'
      ? '「=」で始まる文字は数式になります'
      : o.formulas === 'text'
        ? '「=」で始まる文字も文字のままです'
        : '「=」で始まる文字の扱いが想定と違います';
  return `書式「書式なしテキスト」のセルでは、${apostrophe}。${formulas}。`;
}

const sheetsPlainText: CheckItem<SelfTestContext> = {
  id: 'sheets-plain-text',
  group: 'Sheets',
  title: '書式なしテキストのセル',
  critical: false,
  run(ctx) {
    const seen = probePlainText(ctx.scratch(), ROW_PROBE);
    recordTextObservation(seen);
    ctx.observation = seen;
    const odd = seen.apostrophe === 'other' || seen.formulas === 'other';
    const how = plainTextCellsAreSafe()
      ? 'kicho はこの書式のセルにもそのまま書けます。'
      : 'kicho はこの書式のセルに文字を書く前に、書式を「自動」に戻します（「自動」のセルでの書き方だけが Google の説明どおりだからです）。';
    return {
      result: odd ? '注意' : 'OK',
      detail: `${describeObservation(seen)}${how}${odd ? '想定と違う結果でした。次の項目「文字の読み書き」の結果を確かめてください。' : ''}`,
    };
  },
};

function roundTripProblems(sheet: Sheet, column: number, formatFirst: boolean): string[] {
  const range = sheet.getRange(1, column, ROUND_TRIP.length, 1);
  if (formatFirst) range.setNumberFormat('@');
  // The product's own writer, exactly as it writes the 台帳.
  setCells(range, toCells(ROUND_TRIP.map(([, text]) => [text])));
  flush();
  const values = range.getValues();
  const formulas = range.getFormulas();
  const problems: string[] = [];
  ROUND_TRIP.forEach(([label, text], i) => {
    const got = values[i][0];
    if (formulas[i][0] !== '') problems.push(`${label} が数式になりました（${formulas[i][0]}）`);
    else if (got !== text) problems.push(`${label}「${text}」が「${String(got)}」と読めました`);
  });
  return problems;
}

/** The first few, and how many more (the list can be long when nothing reads back). */
function listed(problems: readonly string[], shown = 3): string {
  const head = problems.slice(0, shown).join('、');
  return problems.length > shown ? `${head}、ほか ${problems.length - shown} 件` : head;
}

const sheetsRoundTrip: CheckItem<SelfTestContext> = {
  id: 'sheets-round-trip',
  group: 'Sheets',
  title: '文字の読み書き（キー・摘要・日付や数字のような文字）',
  critical: true,
  run(ctx) {
    const sheet = ctx.scratch();
    const problems = [
      ...roundTripProblems(sheet, COL_TEXT, false),
      ...roundTripProblems(sheet, COL_PLAIN, true).map((p) => `書式なしテキストのセルで ${p}`),
    ];
    if (problems.length === 0) {
      return {
        result: 'OK',
        detail: `キー、ID、「=」「+」「-」「@」「'」で始まる文字、先頭が 0 の数字、日付や数字のような文字など ${ROUND_TRIP.length} 種類を、kicho の書き方で書いて、そのまま読み戻せました（書式「自動」と「書式なしテキスト」のセルの両方）。`,
      };
    }
    return {
      result: 'NG',
      blocksPosting: true,
      detail: `kicho が書いた文字がそのまま読み戻せませんでした: ${listed(problems)}。キーが読み戻せないと、同じ明細を二重に取り込んだり登録したりするおそれがあるため、登録を止めます。`,
    };
  },
};

/** Writes `text` the documented way (apostrophe first, automatic cell) and reads it back. */
function writesWhole(sheet: Sheet, row: number, text: string): boolean {
  const range = sheet.getRange(row, COL_LONG);
  try {
    setCells(range, [[asText(text)]]);
    flush();
  } catch (_e) {
    return false;
  }
  return range.getValue() === text;
}

const sheetsLongCell: CheckItem<SelfTestContext> = {
  id: 'sheets-long-cell',
  group: 'Sheets',
  title: `${CELL_CHARS.toLocaleString('en-US')} 文字のセル`,
  critical: false,
  run(ctx) {
    const sheet = ctx.scratch();
    const text = (n: number) => 'ﾃｽｳﾘﾖｳ 振込手数料 '.repeat(Math.ceil(n / 12)).slice(0, n);
    if (!writesWhole(sheet, 1, text(CELL_CHARS - 1))) {
      return {
        result: '注意',
        detail: `${(CELL_CHARS - 1).toLocaleString('en-US')} 文字の文字が書けないか、そのまま読み戻せませんでした。とても長いメモや摘要は、書き込みに失敗することがあります。`,
      };
    }
    // Whether the leading apostrophe counts toward the limit is not documented: asked, then used.
    const longest = writesWhole(sheet, 2, text(CELL_CHARS)) ? CELL_CHARS : CELL_CHARS - 1;
    const base = ctx.observation ?? textObservation();
    if (base) recordTextObservation({ ...base, longestText: longest });
    return {
      result: 'OK',
      detail:
        longest === CELL_CHARS
          ? `${CELL_CHARS.toLocaleString('en-US')} 文字のセルを書いて、そのまま読み戻せました。`
          : `${(CELL_CHARS - 1).toLocaleString('en-US')} 文字までは書いて読み戻せました（${CELL_CHARS.toLocaleString('en-US')} 文字は、先頭の「'」も数えられるため書けません）。kicho はこれより長い文字を「…」で切って書きます。`,
    };
  },
};

const sheetsLedgerFormat: CheckItem<SelfTestContext> = {
  id: 'sheets-ledger-format',
  group: 'Sheets',
  title: '台帳の書式',
  critical: true,
  run() {
    const sheet = activeBook().getSheetByName(SHEET.ledger);
    if (!sheet)
      return { result: '注意', detail: 'シート「台帳」がありません。「初期設定」を実行してください。' };
    const rows = Math.max(0, sheet.getLastRow() - 1);
    if (rows > 0 && ledgerTextChecked() === null && !plainTextCellsAreSafe()) {
      return {
        result: 'NG',
        blocksPosting: true,
        detail:
          'この台帳は以前の版の kicho で作られ、文字の書き方をまだ確かめていません。メニュー「記帳 > 接続と設定 > 初期設定」を一度実行してください（台帳の書式を確かめて直します）。',
      };
    }
    const width = sheet.getLastColumn();
    const maxRows = sheet.getMaxRows();
    if (width === 0 || maxRows < 2) return { result: 'OK', detail: '台帳はまだ空です。' };
    const plain = sheet
      .getRange(2, 1, maxRows - 1, width)
      .getNumberFormats()
      .reduce((n, r) => n + r.filter((f) => f === '@').length, 0);
    if (plain === 0)
      return { result: 'OK', detail: `台帳（${rows} 行）に書式「書式なしテキスト」のセルはありません。` };
    return {
      result: '注意',
      detail: `台帳に書式「書式なしテキスト」のセルが ${plain} あります。kicho は文字を書く前にそのセルを「自動」に戻すので登録には差し支えませんが、「初期設定」を実行すると台帳の列をまとめて「自動」に戻します。`,
    };
  },
};

const scriptLock: CheckItem<SelfTestContext> = {
  id: 'script-lock',
  group: 'Apps Script',
  title: 'スクリプトのロック',
  critical: true,
  run() {
    const lock = rawScriptLock();
    const started = Date.now();
    if (!lock.tryLock(10_000)) {
      return {
        result: '注意',
        detail:
          'ほかの実行がロックを使っていたため、確かめられませんでした。しばらくしてから、もう一度実行してください。',
      };
    }
    const held = lock.hasLock();
    lock.releaseLock();
    const released = !lock.hasLock();
    if (!held || !released) {
      return {
        result: 'NG',
        blocksPosting: true,
        detail: `ロックの取得や解放が想定どおりではありませんでした（取得後 ${held ? '保持' : '未保持'}、解放後 ${released ? '未保持' : '保持'}）。ロックが働かないと、重なった実行が同じ明細を二重に登録するおそれがあるため、登録を止めます。`,
      };
    }
    return { result: 'OK', detail: `取得して解放できました（${Date.now() - started} ms）。` };
  },
};

const flushVisibility: CheckItem<SelfTestContext> = {
  id: 'flush',
  group: 'Apps Script',
  title: '書き込みの確定（flush）',
  critical: true,
  run(ctx) {
    // A number: this item is about flush, not about text (the round trip checks that).
    const token = Date.now() + Math.floor(Math.random() * 1_000_000) / 1_000_000;
    const sheet = ctx.scratch();
    const started = Date.now();
    setCells(sheet.getRange(1, COL_FLUSH), [[token]]);
    flush();
    const took = Date.now() - started;
    const read = sheet.getRange(1, COL_FLUSH, 1, 1).getValues()[0][0];
    if (read !== token) {
      return {
        result: 'NG',
        blocksPosting: true,
        detail: `書いて確定（flush）した値が読み戻せませんでした。送信前の「送信中」の記録が残らないおそれがあるため、登録を止めます。`,
      };
    }
    return {
      result: 'OK',
      detail: `書いて確定（flush）した値を読み戻せました（${took} ms）。kicho は送信の前と、ロックを放す前に必ず確定します。`,
    };
  },
};

const scheduleTrigger: CheckItem<SelfTestContext> = {
  id: 'trigger',
  group: 'Apps Script',
  title: '定期実行のトリガーと持ち主',
  critical: false,
  run() {
    const t = scheduleTriggerState();
    const wanted = readSettings().settings.reconcileIntervalMinutes;
    const mismatch = ownerMismatch();
    const out = (o: CheckOutcome): CheckOutcome =>
      mismatch ? { result: '注意', detail: `${o.detail}${mismatch}` } : o;
    if (t.mine > 1) {
      return out({
        result: '注意',
        detail: `このアカウントの定期実行のトリガーが ${t.mine} 個あります。「初期設定」を実行すると 1 個にまとめます。`,
      });
    }
    if (t.mine === 1) {
      const interval = t.interval ?? wanted;
      const note =
        interval !== wanted
          ? `設定の照合間隔（${wanted} 分）と違うため、「初期設定」で付け替えてください。`
          : '';
      return out({
        result: note ? '注意' : 'OK',
        detail: `定期実行のトリガーは ${t.me || 'このアカウント'} が設定しています（${interval} 分ごと。トリガーは設定した人のアカウントで動きます）。${note}`,
      });
    }
    if (t.owner && t.owner !== t.me) {
      return out({
        result: '注意',
        detail: `定期実行のトリガーは ${t.owner} が設定しています（トリガーはほかの人には見えないため、このアカウントからは確かめられません）。${t.owner} のアカウントでも本番前チェックを実行してください。`,
      });
    }
    return out({
      result: '注意',
      detail:
        '定期実行のトリガーがありません。このままでは照合（結果が不明の行の確かめ）が自動で行われません。「初期設定」を実行してください。',
    });
  },
};

/** Bytes of a store as Apps Script counts them (keys count too; UTF-8). */
function storeBytes(props: GoogleAppsScript.Properties.Properties): number {
  let n = 0;
  for (const [k, v] of Object.entries(props.getProperties())) n += utf8Bytes(k + v);
  return n;
}

const STORE_LIMIT = 500 * 1024;

/**
 * Each check writes its own probe key (two 本番前チェック at once must not read each other's value and
 * report a false NG): the prefix, the time it was written and a random part.
 */
const PROBE_PREFIX = 'KICHO_SELF_TEST_PROBE_';
/** A probe older than this belongs to no live execution (6-minute limit): a killed check left it. */
const PROBE_LEFTOVER_MS = 10 * 60_000;

function probeKey(nowMs: number): string {
  return `${PROBE_PREFIX}${nowMs}_${uuid().slice(0, 8)}`;
}

/** Probe keys a killed check left behind (never another live check's). */
function leftoverProbes(props: GoogleAppsScript.Properties.Properties, nowMs: number): string[] {
  return Object.keys(props.getProperties()).filter((k) => {
    if (!k.startsWith(PROBE_PREFIX)) return false;
    const at = Number(k.slice(PROBE_PREFIX.length).split('_')[0]);
    return !Number.isFinite(at) || nowMs - at > PROBE_LEFTOVER_MS;
  });
}

const properties: CheckItem<SelfTestContext> = {
  id: 'properties',
  group: 'Apps Script',
  title: 'プロパティ（設定と記録の保存先）',
  critical: true,
  run() {
    const failed: string[] = [];
    const stores: [string, GoogleAppsScript.Properties.Properties][] = [
      ['スクリプトプロパティ', scriptProperties()],
      ['ユーザープロパティ', userProperties()],
    ];
    for (const [name, store] of stores) {
      const now = Date.now();
      for (const old of leftoverProbes(store, now)) store.deleteProperty(old);
      const key = probeKey(now);
      const token = uuid();
      store.setProperty(key, token);
      const read = store.getProperty(key);
      store.deleteProperty(key);
      if (read !== token || store.getProperty(key) !== null) failed.push(name);
    }
    if (failed.length > 0) {
      return {
        result: 'NG',
        blocksPosting: true,
        detail: `${failed.join('・')}に書いた値が読み戻せませんでした。台帳の行数などの記録が残らないと二重登録を防ぐ確認が働かないため、登録を止めます。`,
      };
    }
    const used = storeBytes(scriptProperties());
    const share = Math.round((used / STORE_LIMIT) * 100);
    return share >= 80
      ? {
          result: '注意',
          detail: `書いて読み戻し、消せました。スクリプトプロパティを上限 500 KB の ${share}% 使っています。`,
        }
      : {
          result: 'OK',
          detail: `書いて読み戻し、消せました（スクリプトプロパティは上限 500 KB の ${share}% を使用）。`,
        };
  },
};

const TOKYO = 'Asia/Tokyo';

const timeZones: CheckItem<SelfTestContext> = {
  id: 'time-zone',
  group: 'Apps Script',
  title: 'タイムゾーン',
  critical: false,
  run() {
    const script = scriptTimeZone();
    const sheet = activeBook().getSpreadsheetTimeZone();
    if (script === TOKYO && sheet === TOKYO) {
      return { result: 'OK', detail: 'スクリプトもスプレッドシートも日本時間（Asia/Tokyo）です。' };
    }
    const fixes: string[] = [];
    if (sheet !== TOKYO) {
      fixes.push(
        `スプレッドシートのタイムゾーンが ${sheet} です。メニュー「ファイル > 設定」で「(GMT+09:00) 東京」にしてください（人が入力した日付が 1 日ずれることがあります）`,
      );
    }
    if (script !== TOKYO) {
      fixes.push(
        `スクリプトのタイムゾーンが ${script} です（appsscript.json の timeZone）。kicho を配布し直してください（定期実行の時刻や 1 日の区切りがずれます）`,
      );
    }
    return { result: '注意', detail: `${fixes.join('。')}。` };
  },
};

export const SHEETS_AND_SCRIPT_ITEMS: readonly CheckItem<SelfTestContext>[] = [
  sheetsPlainText,
  sheetsRoundTrip,
  sheetsLongCell,
  sheetsLedgerFormat,
  scriptLock,
  flushVisibility,
  scheduleTrigger,
  properties,
  timeZones,
];
