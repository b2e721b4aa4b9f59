import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { detectCharset, isValidUtf8 } from '../../src/core/csv/encoding';
import { planCsvIntake, readCsv, skippedSummary } from '../../src/core/csv/intake';
import { resolveLayout } from '../../src/core/csv/layouts';
import { parseCsv } from '../../src/core/csv/parse';
import { csvJournalRequest, doubleCountWarnings } from '../../src/core/csv/sources';
import { parseAmount, parseDate } from '../../src/core/csv/values';
import { csvDryRunWarnings } from '../../src/core/csv/warnings';
import { emptyRecord } from '../../src/core/intake';
import { csvKey, remoteTagOf } from '../../src/core/keys';
import { parseLedger } from '../../src/core/ledger';
import { EMPTY_MASTERS, type Masters, mastersFromRecords, mastersToRows } from '../../src/core/masters';
import { LEDGER_HEADERS, MASTER_HEADERS } from '../../src/core/schema';
import { sha256Hex } from '../../src/core/sha256';

const BANK = '日付,摘要,出金,入金,残高\r\n';

function quoteField(s: string): string {
  return /[",\r\n]/.test(s) || s.trim() !== s ? `"${s.replace(/"/g, '""')}"` : s;
}

describe('parseCsv (RFC 4180)', () => {
  test('quotes, doubled quotes, commas and line breaks inside quotes, CRLF/LF/CR, BOM; line numbers are file lines', () => {
    const text = '\ufeffa,b\r\n"x,1","say ""hi"""\n"multi\r\nline",z\rlast,1';
    const { records, unterminatedAt } = parseCsv(text);
    assert.equal(unterminatedAt, null);
    assert.deepEqual(
      records.map((r) => [r.line, r.fields]),
      [
        [1, ['a', 'b']],
        [2, ['x,1', 'say "hi"']],
        [3, ['multi\r\nline', 'z']],
        [5, ['last', '1']],
      ],
    );
  });

  test('any table written as CSV parses back to the same fields', () => {
    const cell = fc.string({
      unit: fc.constantFrom('a', 'ｱ', '"', ',', '\n', '\r\n', ' ', '1', '='),
      maxLength: 8,
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        (rows) => {
          const text = rows.map((r) => r.map(quoteField).join(',')).join('\r\n');
          assert.deepEqual(
            parseCsv(text).records.map((r) => r.fields),
            rows,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test('an unclosed quote is reported at the line it opens', () => {
    const { unterminatedAt } = parseCsv('a,b\n1,"oops\n2,3\n');
    assert.equal(unterminatedAt, 2);
  });
});

describe('dates', () => {
  test('the forms Japanese statements use all read as yyyy-MM-dd', () => {
    for (const t of [
      '2026/05/01',
      '2026-5-1',
      '2026.5.1',
      '2026年5月1日',
      '20260501',
      '２０２６/０５/０１',
      'R8.5.1',
      'r8.5.1',
      '令和8年5月1日',
      '2026/05/01 10:23',
    ])
      assert.deepEqual(parseDate(t), { ok: true, value: '2026-05-01' }, t);
    assert.deepEqual(parseDate('令和元年5月1日'), { ok: true, value: '2019-05-01' });
    assert.deepEqual(parseDate('H31.4.30'), { ok: true, value: '2019-04-30' });
  });

  test('impossible or unreadable dates say what is wrong', () => {
    for (const t of ['2026/02/30', 'R1.4.30', 'H31.5.1', '2026/13/01'])
      assert.match((parseDate(t) as { reason: string }).reason, /存在しない日/, t);
    for (const t of ['5/1', 'あした', '26/05/01', '2026/05'])
      assert.match((parseDate(t) as { reason: string }).reason, /読めません/, t);
    assert.match((parseDate(' ') as { reason: string }).reason, /空/);
  });
});

describe('amounts', () => {
  test('¥, commas, 円, 全角, △ ▲ ( ) - as minus', () => {
    const cases: [string, number | null][] = [
      ['1200', 1200],
      ['1,200', 1200],
      ['¥1,200', 1200],
      ['￥１，２００', 1200],
      ['1,200円', 1200],
      ['１２００', 1200],
      ['-500', -500],
      ['△500', -500],
      ['▲500', -500],
      ['(500)', -500],
      ['¥-500', -500],
      ['-¥500', -500],
      ['+500', 500],
      ['', null],
      ['  ', null],
    ];
    for (const [t, v] of cases) assert.deepEqual(parseAmount(t), { ok: true, value: v }, t);
  });

  test('garbage and decimals are refused with the text quoted', () => {
    for (const t of ['12a', '1.5', '1,20', 'abc', '¥'])
      assert.match((parseAmount(t) as { reason: string }).reason, /読めません/, t);
  });

  test('round trip: any integer written as banks write it reads back', () => {
    fc.assert(
      fc.property(fc.integer({ min: -999_999_999, max: 999_999_999 }), fc.nat(5), (n, style) => {
        const abs = Math.abs(n);
        const grouped = abs.toLocaleString('en-US');
        const zenkaku = String(abs).replace(/[0-9]/g, (d) => String.fromCharCode(d.charCodeAt(0) + 0xfee0));
        const body = [String(abs), grouped, `¥${grouped}`, `${grouped}円`, zenkaku, `￥${zenkaku}`][style];
        const text = n < 0 ? [`-${body}`, `△${body}`, `(${body})`][abs % 3] : body;
        assert.deepEqual(parseAmount(text), { ok: true, value: n === 0 ? 0 : n });
      }),
      { numRuns: 500 },
    );
  });
});

describe('layouts', () => {
  test('bank, signed and card headers are detected, also below account details', () => {
    const bank = resolveLayout(parseCsv(`口座番号,1234567\n\n${BANK}`).records);
    assert.ok(bank.ok && bank.layout.kind === 'split' && bank.layout.headerAt === 2);
    const signed = resolveLayout(parseCsv('日付,内容,金額,残高\n').records);
    assert.ok(signed.ok && signed.layout.kind === 'signed' && signed.layout.positive === '入金');
    const card = resolveLayout(parseCsv('ご利用日,ご利用店名,ご利用金額,支払区分\n').records);
    assert.ok(card.ok && card.layout.kind === 'signed' && card.layout.positive === '出金');
  });

  test('no header: a clear message saying to pick the columns; custom layouts need their columns', () => {
    const r = resolveLayout(parseCsv('a,b,c\n1,2,3\n').records);
    assert.ok(!r.ok && /列を指定/.test(r.reason));
    const custom = resolveLayout([], { preset: 'custom', date: 1 });
    assert.ok(!custom.ok && /摘要の列を選んでください/.test(custom.reason));
  });
});

describe('readCsv', () => {
  test('keys follow DESIGN §2 exactly', () => {
    const r = readCsv(`${BANK}2026/05/01,ｱﾏｿﾞﾝ ,1200,,\n`, '○○銀行');
    const expected = `csv:${sha256Hex('○○銀行|2026-05-01|1200|アマゾン|1').slice(0, 32)}`;
    assert.equal(r.lines[0].key, expected);
    assert.equal(csvKey('○○銀行', '2026-05-01', 1200, 'ｱﾏｿﾞﾝ ', 1), expected);
    assert.equal(r.lines[0].description, 'ｱﾏｿﾞﾝ', 'stored as received (trimmed cell)');
  });

  test('twins get occurrence 1 and 2; the same file read twice gives the same keys', () => {
    const line = fc.record({
      day: fc.integer({ min: 1, max: 3 }),
      amount: fc.integer({ min: 1, max: 3 }),
      desc: fc.constantFrom('ｱﾏｿﾞﾝ', 'アマゾン', 'ﾃｽｳﾘﾖｳ', '=HYPERLINK("x")'),
      out: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), (ls) => {
        const text =
          BANK +
          ls
            .map(
              (l) =>
                `2026/05/0${l.day},${quoteField(l.desc)},${l.out ? l.amount : ''},${l.out ? '' : l.amount},`,
            )
            .join('\r\n');
        const a = readCsv(text, '○○銀行');
        const b = readCsv(text, '○○銀行');
        assert.deepEqual(
          a.lines.map((x) => x.key),
          b.lines.map((x) => x.key),
        );
        assert.equal(a.lines.length, ls.length);
        assert.equal(new Set(a.lines.map((x) => x.key)).size, ls.length, 'every line its own key');
        // Occurrence n counts the same date|amount|NFKC description (ｱﾏｿﾞﾝ = アマゾン).
        const seen = new Map<string, number>();
        for (const x of a.lines) {
          const g = `${x.date}|${x.amount}|${x.description.normalize('NFKC')}`;
          const n = (seen.get(g) ?? 0) + 1;
          seen.set(g, n);
          assert.equal(x.key, csvKey('○○銀行', x.date, x.amount, x.description, n));
        }
      }),
      { numRuns: 200 },
    );
  });

  test('every bad line is reported with its line number, reason and text; good lines are kept; layout lines are skipped apart', () => {
    const text = [
      '口座番号,1234567',
      BANK.trim(),
      '2026/05/01,ﾃﾞﾝｷﾀﾞｲ,"¥1,200",,',
      '',
      '2026/05/02,ｶｲﾋ,,,',
      'あした,ﾔﾁﾝ,5000,,',
      '2026/05/03,ﾃｽｳﾘﾖｳ,12a,,',
      '2026/05/04,ﾀﾞﾌﾞﾙ,100,200,',
      '2026/05/05,ﾐｼﾞｶｲ',
      '2026/05/06,ﾓｼﾞ\ufffd\ufffd,100,,',
      '2026/05/07,ﾍﾝｷﾝ,△500,,',
      '2026/05/08,計量器,800,,',
      '合計,,1200,0,',
    ].join('\r\n');
    const r = readCsv(text, '○○銀行');
    assert.equal(r.fatal, null);
    assert.deepEqual(
      r.lines.map((l) => [l.line, l.date, l.side, l.amount]),
      [
        [3, '2026-05-01', '出金', 1200],
        // A description starting with 計 is not a total: a dated line is never dropped on a loose guess.
        [12, '2026-05-08', '出金', 800],
      ],
    );
    assert.deepEqual(
      r.problems.map((p) => [p.line, p.reason.slice(0, 8)]),
      [
        [5, '金額がありません'],
        [6, '日付「あした」を'],
        [7, '金額「12a」を'],
        [8, '出金と入金の両方'],
        [9, '列が足りません（'],
        [10, '文字化けしていま'],
        // A minus in the 出金 column is not turned into 入金: refused with its number.
        [11, '出金の列にマイナ'],
      ],
    );
    assert.deepEqual(
      r.skipped.map((p) => [p.line, p.reason.slice(0, 6)]),
      [
        [1, '見出し行より'],
        [4, '空行です。'],
        [13, '合計の行です'],
      ],
    );
    assert.match(String(skippedSummary(r.skipped)), /明細ではない行 3 行.*1・4・13 行目/);
    assert.equal(r.problems.find((p) => p.line === 6)?.text, 'あした,ﾔﾁﾝ,5000,,');
  });

  test('card statements: positive is a purchase (出金), a minus is a refund (入金)', () => {
    const r = readCsv('利用日,利用店名,利用金額\n2026/5/1,ｺﾝﾋﾞﾆ,980\n2026/5/2,ﾍﾝﾋﾟﾝ,-980\n', '○○カード');
    assert.deepEqual(
      r.lines.map((l) => [l.side, l.amount]),
      [
        ['出金', 980],
        ['入金', 980],
      ],
    );
  });

  test('a file that is not readable at all is one fatal message (mojibake is named)', () => {
    const r = readCsv('\ufffd\ufffd,\ufffd\n1,2\n', '○○銀行');
    assert.match(String(r.fatal), /文字化け/);
    assert.equal(r.lines.length, 0);
  });
});

function table(records: Record<string, unknown>[]) {
  const rows = records.map((r) => LEDGER_HEADERS.map((h) => (r as Record<string, unknown>)[h] ?? ''));
  return parseLedger([[...LEDGER_HEADERS], ...rows]);
}

describe('planCsvIntake', () => {
  test('keys already in the 台帳 are not added; new rows on days imported before are an overlap', () => {
    const first = readCsv(`${BANK}2026/05/01,A,100,,\n2026/05/02,B,200,,\n`, 'S');
    const now = '2026-05-10T00:00:00.000Z';
    const plan1 = planCsvIntake(table([]), first.lines, 'S', now);
    assert.equal(plan1.newRows.length, 2);
    assert.equal(plan1.newRows[0].状態, '未判定');
    assert.equal(plan1.newRows[0].口座, 'S');
    assert.equal(plan1.newRows[0].明細ID, '');
    const t = table(plan1.newRows);
    assert.deepEqual(planCsvIntake(t, first.lines, 'S', now), {
      newRows: [],
      keyRestores: [],
      already: 2,
      overlapDates: [],
      alreadyInMf: 0,
      sideChanged: [],
    });
    // A line MF already holds a journal for (by tag) is added as 完了 with that journal, never to be sent.
    const inMf = planCsvIntake(
      table([]),
      first.lines,
      'S',
      now,
      new Map([[remoteTagOf(first.lines[1].key), 'J-1']]),
    );
    assert.equal(inMf.alreadyInMf, 1);
    assert.deepEqual(
      inMf.newRows.map((r) => [r.状態, r.MF仕訳ID]),
      [
        ['未判定', ''],
        ['完了', 'J-1'],
      ],
    );
    const second = readCsv(`${BANK}2026/05/02,B,200,,\n2026/05/02,C,300,,\n2026/05/03,D,1,,\n`, 'S');
    const plan2 = planCsvIntake(t, second.lines, 'S', now);
    assert.equal(plan2.newRows.length, 2);
    assert.deepEqual(plan2.overlapDates, ['2026-05-02']);
    // Another source on the same day is no overlap.
    assert.deepEqual(
      planCsvIntake(t, readCsv(`${BANK}2026/05/02,C,300,,\n`, 'T').lines, 'T', now).overlapDates,
      [],
    );
  });
});

const MASTERS: Masters = {
  ...EMPTY_MASTERS,
  accounts: [
    { id: 'acc-bank', name: '普通預金', available: true, subAccounts: [{ id: 'sub-a', name: 'A銀行' }] },
    { id: 'acc-card', name: '未払金', available: true, subAccounts: [{ id: 'sub-c', name: 'Cカード' }] },
    { id: 'acc-exp', name: '消耗品費', available: true, subAccounts: [] },
  ],
  taxes: [{ id: 'tax-10', name: '課税仕入 10%', available: true }],
  connectedAccounts: [
    {
      id: 'svc-a',
      name: 'A銀行',
      accountId: null,
      subAccountId: null,
      subs: [{ id: 'cs-1', name: '本店 普通', accountId: 'acc-bank', subAccountId: 'sub-a' }],
    },
    { id: 'svc-c', name: 'Cカード', accountId: 'acc-card', subAccountId: 'sub-c', subs: [] },
  ],
};

describe('posting a CSV row', () => {
  const row = {
    ...emptyRecord(),
    キー: 'csv:x',
    取引日: '2026-05-01',
    入出金: '出金',
    金額: 1200,
    摘要: 'x'.repeat(250),
    口座: 'B銀行',
    勘定科目: '消耗品費',
    税区分: '課税仕入 10%',
  };
  const source = { name: 'B銀行', 勘定科目: '普通預金', 補助科目: '' };

  test('出金 debits the row account and credits the counter account; 入金 the reverse; memo ≤ 200', () => {
    const out = csvJournalRequest(row, source, MASTERS, 'kc-0123456789abcdef');
    assert.ok(out.ok);
    const j = out.request.journal;
    assert.deepEqual(j.tags, ['kc-0123456789abcdef']);
    assert.equal(j.memo?.length, 200);
    const [b] = j.branches;
    assert.equal(b.debitor.account_id, 'acc-exp');
    assert.equal(b.debitor.tax_id, 'tax-10');
    assert.equal(b.creditor.account_id, 'acc-bank');
    assert.equal(b.debitor.value, b.creditor.value);
    const emoji = csvJournalRequest({ ...row, 摘要: '😀'.repeat(201) }, source, MASTERS, 't');
    assert.ok(emoji.ok);
    assert.equal(emoji.request.journal.memo, '😀'.repeat(200));
    const inn = csvJournalRequest({ ...row, 入出金: '入金' }, source, MASTERS, 't');
    assert.ok(inn.ok);
    assert.equal(inn.request.journal.branches[0].debitor.account_id, 'acc-bank');
    assert.equal(inn.request.journal.branches[0].creditor.account_id, 'acc-exp');
  });

  test('a missing source or an unknown counter account stops the send with a message', () => {
    const missing = csvJournalRequest(row, undefined, MASTERS, 't');
    assert.ok(!missing.ok && /取込元「B銀行」がシート「取込元」にありません/.test(missing.problems[0]));
    const bad = csvJournalRequest(row, { ...source, 勘定科目: '存在しない' }, MASTERS, 't');
    assert.ok(!bad.ok && /相手科目/.test(bad.problems[0]));
  });
});

describe('double counting', () => {
  test('a source booked to the same account/sub-account as a connected account is warned about', () => {
    const warned = doubleCountWarnings(
      [
        { name: 'うちの銀行', 勘定科目: '普通預金', 補助科目: 'A銀行' },
        { name: 'カード', 勘定科目: '未払金', 補助科目: 'Cカード' },
      ],
      MASTERS,
    );
    assert.equal(warned.length, 2);
    assert.match(warned[0], /MFの連携口座「A銀行 本店 普通」と同じ/);
    assert.match(warned[1], /「Cカード」/);
  });

  test('the ledger accounts of connected sub-accounts survive the マスタ sheet', () => {
    const rows = mastersToRows(MASTERS).map((r) =>
      Object.fromEntries(MASTER_HEADERS.map((h, i) => [h, r[i]])),
    );
    const back = mastersFromRecords(rows);
    assert.deepEqual(back.connectedAccounts, MASTERS.connectedAccounts);
  });

  test('a different sub-account, or the bare account, is not double counting; a same name is a weaker hint', () => {
    assert.deepEqual(
      doubleCountWarnings([{ name: 'B銀行', 勘定科目: '普通預金', 補助科目: '' }], MASTERS),
      [],
    );
    const named = doubleCountWarnings([{ name: 'Ａ銀行', 勘定科目: '普通預金', 補助科目: '' }], MASTERS);
    assert.equal(named.length, 1);
    assert.match(named[0], /同じ名前/);
  });

  test('the dry run warns about double counting, missing sources and rows of one day from two imports', () => {
    const base = { ...emptyRecord(), 状態: '送信待ち', 取引日: '2026-05-01', 金額: 1 };
    const rows = table([
      { ...base, キー: 'csv:1', 口座: 'カード', 初回検知: 't1' },
      { ...base, キー: 'csv:2', 口座: 'カード', 初回検知: 't2' },
      { ...base, キー: 'csv:3', 口座: '謎', 初回検知: 't1' },
      { ...base, キー: 'mf:1', 口座: 'Cカード', 初回検知: 't1' },
    ]).rows;
    const w = csvDryRunWarnings(rows, [{ name: 'カード', 勘定科目: '未払金', 補助科目: 'Cカード' }], MASTERS);
    assert.equal(w.length, 3);
    assert.match(w[0], /取込元「謎」がシート「取込元」にありません/);
    assert.match(w[1], /二重に記帳/);
    assert.match(w[2], /カード 2026-05-01/);
    const done = rows.map((r) => ({ ...r, record: { ...r.record, 状態: '完了' as const } }));
    assert.deepEqual(csvDryRunWarnings(done, [], MASTERS), []);
  });
});

describe('charset detection', () => {
  test('UTF-8 (with or without BOM) vs Shift_JIS bytes, signed as Apps Script gives them', () => {
    const signed = (b: Uint8Array) => [...b].map((x) => (x > 127 ? x - 256 : x));
    const text = '日付,摘要,出金\n2026/05/01,ｱﾏｿﾞﾝ ㈱①,1200\n';
    assert.equal(detectCharset(signed(Buffer.from(text, 'utf8'))), 'UTF-8');
    assert.equal(detectCharset(signed(Buffer.from(`\ufeff${text}`, 'utf8'))), 'UTF-8');
    assert.equal(detectCharset(signed(iconv.encode(text, 'cp932'))), 'Windows-31J');
    assert.equal(detectCharset([0x61, 0x62]), 'UTF-8');
  });

  test('isValidUtf8 agrees with a strict decoder on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        let strict = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        } catch {
          strict = false;
        }
        assert.equal(isValidUtf8(bytes), strict);
      }),
      { numRuns: 2000 },
    );
  });
});
