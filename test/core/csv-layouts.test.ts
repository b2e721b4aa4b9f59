/**
 * Named bank and card layouts (issue 26): one test per layout on its sample file in the real shape
 * (sim/csv-layout-samples.ts), checking every date, description, amount, direction and balance; detection
 * by the file's own shape; layout lines skipped apart; signs; keys that stay stable; saved formats.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import iconv from 'iconv-lite';
import {
  LAYOUT_SAMPLES,
  type LayoutSample,
  sampleBytes,
  sampleText,
  UNICODE_TEXT_SAMPLE,
} from '../../sim/csv-layout-samples';
import { detectCharset } from '../../src/core/csv/encoding';
import { csvRecord, planCsvIntake, readCsv, sideChangedMessages } from '../../src/core/csv/intake';
import { resolveLayout } from '../../src/core/csv/layouts';
import { NAMED_LAYOUTS } from '../../src/core/csv/named-layouts';
import { parseCsv } from '../../src/core/csv/parse';
import { parseSavedLayout, savedLayoutText } from '../../src/core/csv/saved-layout';
import { newCardSource } from '../../src/core/csv/sources';
import { csvDryRunWarnings } from '../../src/core/csv/warnings';
import { csvKey, remoteTagOf } from '../../src/core/keys';
import { parseLedger } from '../../src/core/ledger';
import { EMPTY_MASTERS } from '../../src/core/masters';
import { LEDGER_HEADERS } from '../../src/core/schema';

/** Bytes to text as the bundle does (core/csv/encoding.ts picks the charset; Java decodes). */
function decode(bytes: Buffer): string {
  const charset = detectCharset(bytes);
  if (charset === 'UTF-16') return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (charset === 'UTF-8') return bytes.toString('utf8').replace(/^\ufeff/, '');
  return iconv.decode(bytes, 'cp932');
}

function checkSample(s: LayoutSample) {
  const r = readCsv(decode(sampleBytes(s)), s.source);
  assert.equal(r.fatal, null, String(r.fatal));
  assert.equal(r.layout?.id, s.layout, `read as ${r.layout?.name}`);
  assert.deepEqual(
    r.problems.map((p) => `${p.line}: ${p.reason}`),
    [],
  );
  assert.deepEqual(
    r.lines.map((l) => ({
      date: l.date,
      description: l.description,
      amount: l.amount,
      side: l.side,
      ...(s.expected.some((e) => e.balance !== undefined) ? { balance: l.balance } : {}),
    })),
    s.expected.map((e) => ({ ...e })),
  );
  assert.deepEqual(
    r.skipped.map((x) => x.line),
    s.skipped,
    'the layout lines are skipped and reported apart',
  );
  return r;
}

describe('every named layout reads its sample file', () => {
  for (const s of LAYOUT_SAMPLES) {
    const name = NAMED_LAYOUTS.find((l) => l.id === s.layout)?.name ?? s.layout;
    test(`${name} (${s.charset}${s.eol === '\r\n' ? ', CRLF' : ', LF'})`, () => {
      const r = checkSample(s);
      // Two genuine lines of one day and amount stay two lines with two keys.
      assert.equal(new Set(r.lines.map((l) => l.key)).size, r.lines.length);
    });
  }

  test('Excel 「Unicode テキスト」: UTF-16LE with a BOM, tab-separated', () => {
    assert.equal(detectCharset(sampleBytes(UNICODE_TEXT_SAMPLE)), 'UTF-16');
    checkSample(UNICODE_TEXT_SAMPLE);
  });

  test('every named layout has a sample, and every sample a layout', () => {
    assert.deepEqual(
      NAMED_LAYOUTS.map((l) => l.id).sort(),
      [...new Set(LAYOUT_SAMPLES.map((s) => s.layout))].sort(),
    );
    for (const l of NAMED_LAYOUTS) assert.ok(l.evidence.length > 0, `${l.name} names its evidence`);
  });

  test('detection is by the file, never its name: the same bytes under any 取込元 read the same', () => {
    for (const s of LAYOUT_SAMPLES) {
      assert.equal(readCsv(sampleText(s), 'なまえ.csv').layout?.id, s.layout);
    }
  });
});

describe('keys stay stable', () => {
  test('files the generic presets read before (イオン銀行, みずほ銀行, 楽天カード) keep their keys', () => {
    for (const id of ['aeon-bank', 'mizuho', 'rakuten-card']) {
      const s = LAYOUT_SAMPLES.find((x) => x.layout === id) as LayoutSample;
      const named = readCsv(sampleText(s), s.source);
      const generic = readCsv(sampleText(s), s.source, { preset: id === 'rakuten-card' ? 'card' : 'bank' });
      assert.equal(generic.layout?.id, id === 'rakuten-card' ? 'card' : 'bank', id);
      // DESIGN §2 over the one description column the presets read: what those imports stored.
      const seen = new Map<string, number>();
      const expected = generic.lines.map((l) => {
        const g = `${l.date}|${l.amount}|${l.description.normalize('NFKC')}`;
        seen.set(g, (seen.get(g) ?? 0) + 1);
        return csvKey(s.source, l.date, l.amount, l.description, seen.get(g) as number);
      });
      assert.deepEqual(
        named.lines.map((l) => l.key),
        expected,
        id,
      );
    }
  });

  test('a description joined from two columns also carries each column’s own key; a row with one is this line', () => {
    const s = LAYOUT_SAMPLES.find((x) => x.layout === 'mufg') as LayoutSample;
    const r = readCsv(sampleText(s), s.source);
    const twin = r.lines.filter((l) => l.description === '口座振替３ ＮＴＴドコモ');
    assert.equal(twin.length, 2);
    // What 列を指定 with 摘要 = column 2 alone gave: the occurrence counts that column's values.
    assert.ok(twin[0].aliases?.includes(csvKey(s.source, '2026-05-10', 8800, '口座振替３', 1)));
    assert.ok(twin[1].aliases?.includes(csvKey(s.source, '2026-05-10', 8800, '口座振替３', 2)));
    assert.ok(twin[0].aliases?.includes(csvKey(s.source, '2026-05-10', 8800, 'ＮＴＴドコモ', 1)));
    // An earlier import with the one column: its rows hold the alias keys; nothing is added again.
    const before = readCsv(sampleText(s), s.source, {
      preset: 'custom',
      date: 1,
      description: 2,
      withdrawal: 4,
      deposit: 5,
    });
    const rows = before.lines.map((l) => csvRecord(l, s.source, '2026-06-01T00:00:00Z'));
    const table = parseLedger([
      [...LEDGER_HEADERS],
      ...rows.map((x) => LEDGER_HEADERS.map((h) => (x as unknown as Record<string, unknown>)[h] ?? '')),
    ]);
    const plan = planCsvIntake(table, r.lines, s.source, '2026-06-02T00:00:00Z');
    assert.equal(plan.newRows.length, 0);
    assert.equal(plan.already, r.lines.length);
    // Without the aliases the same file would add every joined line a second time.
    const bare = r.lines.map(({ aliases: _a, ...l }) => l);
    assert.ok(planCsvIntake(table, bare, s.source, '').newRows.length > 0);
  });
});

describe('what belongs to the layout, and signs', () => {
  test('a Vpass line with no date (a discount) is reported by number, never dropped as a layout line', () => {
    const s = LAYOUT_SAMPLES.find((x) => x.layout === 'vpass') as LayoutSample;
    const text = [...s.lines.slice(0, 2), 'ＷＥＢ明細書年会費割引,,,,,-550,'].join('\r\n');
    const r = readCsv(text, '三井住友カード');
    assert.equal(r.lines.length, 1);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0].line, 3);
    assert.match(r.problems[0].reason, /日付/);
  });

  test('a minus on a card whose file does not say what it means is refused with its number', () => {
    const s = LAYOUT_SAMPLES.find((x) => x.layout === 'amex') as LayoutSample;
    const text = [...s.lines, '2026/05/21,2026/05/22,ＵＢＥＲ　ＥＡＴＳ,TARO TEST,-12345,-2150,,'].join(
      '\r\n',
    );
    const r = readCsv(text, 'アメックス');
    assert.equal(r.lines.length, 2);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0].line, 4);
    assert.match(r.problems[0].reason, /マイナスの金額（-2150）.*取り込みません/);
  });

  test('楽天銀行: a minus is a payment, as the bank writes it', () => {
    const r = readCsv('取引日,入出金(円),取引後残高(円),入出金内容\n20260501,(300),100,テスト\n', '楽天銀行');
    assert.deepEqual(
      r.lines.map((l) => [l.side, l.amount]),
      [['出金', 300]],
    );
  });

  test('楽天カード: under 「■ご利用キャンセルなど」 a positive amount is a refund; a minus there is refused', () => {
    const s = LAYOUT_SAMPLES.find((x) => x.layout === 'rakuten-card') as LayoutSample;
    const text = [...s.lines, '"2026/05/13","テスト","本人","1回払い","-500","0","-500","-500","0",""'].join(
      '\n',
    );
    const r = readCsv(text, '楽天カード');
    assert.equal(r.lines.at(-1)?.side, '入金');
    assert.deepEqual(
      r.problems.map((p) => p.line),
      [9],
    );
  });

  test('△ ▲ － ¥-1,000 and (1,000) in a 出金 or 入金 column never become the other direction', () => {
    for (const raw of ['△1000', '▲1000', '－1000', '"¥-1,000"', '"(1,000)"', '-1000']) {
      for (const col of ['out', 'in'] as const) {
        const cells = col === 'out' ? `${raw},` : `,${raw}`;
        const r = readCsv(
          `年月日,お引出し,お預入れ,お取り扱い内容,残高\n2026/5/1,${cells},テスト,1000\n`,
          'S',
        );
        assert.equal(r.lines.length, 0, raw);
        assert.equal(r.problems[0]?.line, 2);
        assert.match(r.problems[0].reason, /マイナスの金額.*取り込みません/, raw);
      }
    }
  });
});

describe('detection', () => {
  test('two named layouts that fit and read the file differently: the person picks', () => {
    const text =
      '日付,取引日,内容,摘要,出金金額,入金金額,お支払金額,お預り金額,残高,メモ\n2026/5/1,2026/5/2,A,B,100,,,,900,\n';
    const r = readCsv(text, 'X');
    assert.ok(r.fatal);
    assert.deepEqual(r.candidates.map((c) => c.id).sort(), ['gmo-aozora', 'sbi']);
    assert.match(String(r.fatal), /どちらの形にも合い/);
    const picked = readCsv(text, 'X', { preset: 'sbi' });
    assert.deepEqual(
      picked.lines.map((l) => [l.date, l.description]),
      [['2026-05-01', 'A']],
    );
  });

  test('a named layout beats the generic presets; a file no layout knows still reads with them', () => {
    assert.equal(resolveLayout(parseCsv('日付,摘要,出金,入金,残高\n').records).ok, true);
    const generic = resolveLayout(parseCsv('日付,摘要,出金,入金,残高\n').records);
    assert.ok(generic.ok && generic.layout.id === 'bank');
    const named = resolveLayout(
      parseCsv('"日付","お取引内容","お引出し","お預入れ","残高（お借入れはマイナス表示）"\n').records,
    );
    assert.ok(named.ok && named.layout.id === 'aeon-bank');
  });

  test('headers with (円) / （円） / (￥) suffixes are the same column', () => {
    const r = readCsv(
      '"日付","内容","出金金額（円）","入金金額（円）","残高（円）","メモ"\n"2026/05/01","A","1",,"9","-"\n',
      'S',
    );
    assert.equal(r.layout?.id, 'sbi');
  });
});

describe('saved formats (この形式を保存)', () => {
  test('a layout is kept as its name or its columns, and read back to the same reading', () => {
    for (const s of LAYOUT_SAMPLES) {
      const r = readCsv(sampleText(s), s.source);
      const text = savedLayoutText(r.layout as NonNullable<typeof r.layout>) as string;
      const saved = parseSavedLayout(text);
      assert.ok(saved?.ok, text);
      assert.deepEqual(readCsv(sampleText(s), s.source, saved.choice).lines, r.lines, s.layout);
    }
    const custom = readCsv('a,b,c,d,e\n2026/5/1,振込,ﾃｽﾄ,100,\n', 'X', {
      preset: 'custom',
      date: 1,
      description: 2,
      description2: 3,
      withdrawal: 4,
      deposit: 5,
    });
    const text = savedLayoutText(custom.layout as NonNullable<typeof custom.layout>);
    assert.equal(text, '列: 日付=1, 摘要=2+3, 出金=4, 入金=5, 見出し=あり');
    const again = parseSavedLayout(text);
    assert.ok(again?.ok);
    assert.deepEqual(readCsv('a,b,c,d,e\n2026/5/1,振込,ﾃｽﾄ,100,\n', 'X', again.choice).lines, custom.lines);
    assert.equal(custom.lines[0].description, '振込 ﾃｽﾄ');
  });

  test('a cell that cannot be read says what is wrong; empty means none', () => {
    assert.equal(parseSavedLayout(''), null);
    for (const [cell, why] of [
      ['ナゾ銀行', /という列の並びはありません/],
      ['列: 日付=1, 摘要=2', /金額の列/],
      ['列: 日付=x, 摘要=2, 金額=3, プラス=入金', /日付の列「x」/],
      ['列: 日付=1, 摘要=2, 金額=3', /プラス=入金/],
      ['列: 日付=1, 摘要=2, 出金=3', /出金と入金の両方/],
      ['列: 日付=1, 摘要=2, 金額=3, プラス=入金, 色=赤', /「色」という項目はありません/],
    ] as const) {
      const r = parseSavedLayout(cell);
      assert.ok(r && !r.ok, cell);
      assert.match(r.reason, why, cell);
    }
  });

  test('the dry run names a 取込形式 cell that cannot be read (checked like every setting)', () => {
    const warnings = csvDryRunWarnings(
      [],
      [{ name: 'A銀行', 勘定科目: '普通預金', 補助科目: '', 取込形式: 'ナゾ銀行', row: 3 }],
      EMPTY_MASTERS,
    );
    assert.match(warnings.join(), /シート「取込元」の 3 行目（A銀行）の「取込形式」を読めません/);
  });
});

describe('a card layout’s new 取込元', () => {
  test('gets the office’s account for that card in MF, else 未払金', () => {
    const masters = {
      ...EMPTY_MASTERS,
      accounts: [
        { id: 'a1', name: '普通預金', available: true, subAccounts: [{ id: 's1', name: 'みずほ銀行' }] },
        {
          id: 'a2',
          name: '未払金',
          available: true,
          subAccounts: [
            { id: 's2', name: '楽天カード' },
            { id: 's3', name: 'アメックス' },
          ],
        },
      ],
    };
    assert.deepEqual(newCardSource('楽天カード', '楽天カード', masters), {
      name: '楽天カード',
      勘定科目: '未払金',
      補助科目: '楽天カード',
    });
    assert.deepEqual(newCardSource('メインのカード', '三井住友カード（Vpass）', masters), {
      name: 'メインのカード',
      勘定科目: '未払金',
      補助科目: '',
    });
    assert.deepEqual(newCardSource('アメックス', 'アメリカン・エキスプレス', masters).補助科目, 'アメックス');
  });
});

describe('a line imported before with the other direction', () => {
  test('楽天カード read with the generic card preset (a cancellation as a purchase): reported, not changed', () => {
    const s = LAYOUT_SAMPLES.find((x) => x.layout === 'rakuten-card') as LayoutSample;
    const before = readCsv(sampleText(s), s.source, { preset: 'card' });
    const rows = before.lines.map((l) => csvRecord(l, s.source, '2026-06-01T00:00:00Z'));
    const table = parseLedger([
      [...LEDGER_HEADERS],
      ...rows.map((x) => LEDGER_HEADERS.map((h) => (x as unknown as Record<string, unknown>)[h] ?? '')),
    ]);
    const now = readCsv(sampleText(s), s.source);
    const plan = planCsvIntake(table, now.lines, s.source, '');
    assert.equal(plan.newRows.length, 0);
    assert.deepEqual(plan.sideChanged, [
      { line: 8, date: '2026-05-12', amount: 3280, was: '出金', now: '入金' },
    ]);
    assert.match(
      sideChangedMessages(plan.sideChanged)[0],
      /^8 行目: .*台帳では「出金」ですが.*「入金」です.*変えていません/,
    );
  });
});

describe('a line posted before under a one-column key', () => {
  test('is added as 完了 with that journal, never posted a second time (the 台帳 was lost since)', () => {
    const s = LAYOUT_SAMPLES.find((x) => x.layout === 'mufg') as LayoutSample;
    const r = readCsv(sampleText(s), s.source);
    const joined = r.lines[0];
    assert.ok(joined.aliases && joined.aliases.length > 0);
    const journals = new Map([[remoteTagOf(joined.aliases[0]), 'J-1']]);
    const empty = parseLedger([[...LEDGER_HEADERS]]);
    const plan = planCsvIntake(empty, [joined], s.source, '2026-06-01T00:00:00Z', journals);
    assert.equal(plan.alreadyInMf, 1);
    assert.equal(plan.newRows[0].状態, '完了');
    assert.equal(plan.newRows[0].MF仕訳ID, 'J-1');
  });
});
