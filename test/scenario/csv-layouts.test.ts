/**
 * Each bank and card sample (sim/csv-layout-samples.ts) through the built bundle as a person gives it to
 * 「CSVを取り込む」: the file's bytes (Shift_JIS where the bank sends Shift_JIS) to the dialog's preview,
 * which names the layout it found, then to the import; the 台帳 rows read back; a second import adds
 * nothing; a card layout's new 取込元 gets a card account; 残高 reaches 残高照合; 「この形式を保存」 keeps a
 * mapping per 取込元 on a sheet people can edit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import iconv from 'iconv-lite';
import {
  LAYOUT_SAMPLES,
  type LayoutSample,
  sampleBytes,
  UNICODE_TEXT_SAMPLE,
} from '../../sim/csv-layout-samples';
import { NAMED_LAYOUTS } from '../../src/core/csv/named-layouts';
import { type KichoWorld, kichoWorld, records } from '../helpers/kicho';

function value<T = Record<string, unknown>>(r: { status: string; value?: unknown; error?: unknown }): T {
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  return r.value as T;
}

interface Preview {
  ok: boolean;
  charset: string;
  found: string;
  total: number;
  problems: string[];
  skipped: string | null;
  warnings: string[];
  fatal: string | null;
  candidates: { id: string; name: string }[];
  savable: string | null;
}

interface Imported {
  ok?: boolean;
  problems?: unknown[];
  added: number;
  already: number;
  messages: string[];
}

const CHARSET_LABEL = {
  cp932: 'Shift_JIS',
  utf8: 'UTF-8',
  'utf8-bom': 'UTF-8',
  'utf16le-bom': 'UTF-16（Unicode テキスト）',
} as const;

function csvRows(w: KichoWorld) {
  return w.ledger().filter((r) => String(r.キー).startsWith('csv:'));
}

function throughTheDialog(s: LayoutSample) {
  const layout = NAMED_LAYOUTS.find((l) => l.id === s.layout);
  assert.ok(layout);
  const w = kichoWorld();
  const file = sampleBytes(s).toString('base64');
  const preview = value<Preview>(w.run('csvPreview', { args: [file, s.source] }));
  assert.equal(preview.ok, true, String(preview.fatal));
  assert.equal(preview.charset, CHARSET_LABEL[s.charset]);
  assert.equal(preview.found, `${layout.name}の明細として読みました（${s.expected.length} 行）。`);
  assert.deepEqual(preview.problems, []);
  assert.equal(preview.total, s.expected.length);
  if (s.skipped.length > 0)
    assert.match(String(preview.skipped), new RegExp(`明細ではない行 ${s.skipped.length} 行`));
  else assert.equal(preview.skipped, null);
  assert.equal(csvRows(w).length, 0, 'a preview writes nothing');

  const first = value<Imported>(w.run('csvImportFile', { args: [file, s.source] }));
  assert.equal(first.added, s.expected.length, first.messages.join('\n'));
  assert.ok(first.messages.includes(`${layout.name}の明細として読みました（${s.expected.length} 行）。`));
  assert.deepEqual(first.problems, [], 'no line is unreadable');
  // Read back from the sheet: every date, direction, amount and description as the sample says.
  assert.deepEqual(
    csvRows(w).map((r) => [r.取引日, r.入出金, r.金額, r.摘要, r.口座, r.状態]),
    s.expected.map((e) => [e.date, e.side, e.amount, e.description, s.source, '未判定']),
  );
  const source = records(w.emu, '取込元').find((r) => r.名前 === s.source);
  assert.equal(source?.勘定科目, layout.kind === 'card' ? '未払金' : '普通預金');

  const again = value<Imported>(w.run('csvImportFile', { args: [file, s.source] }));
  assert.equal(again.added, 0, 'a second import adds nothing');
  assert.equal(again.already, s.expected.length);
  assert.equal(csvRows(w).length, s.expected.length);
  return w;
}

describe('every bank and card sample through the built bundle, as a person imports it', () => {
  for (const s of LAYOUT_SAMPLES) {
    const name = NAMED_LAYOUTS.find((l) => l.id === s.layout)?.name ?? s.layout;
    test(name, () => {
      const w = throughTheDialog(s);
      // Balance columns feed 残高照合: the month-end balance of each month the file covers.
      const withBalance = s.expected.filter((e) => e.balance !== undefined);
      if (withBalance.length > 0) {
        const last = [...withBalance].sort((a, b) => a.date.localeCompare(b.date)).at(-1);
        const monthEnd = records(w.emu, '残高照合').filter((r) => r.口座 === s.source);
        assert.ok(
          monthEnd.some((r) => r.明細の残高 === last?.balance),
          `${JSON.stringify(monthEnd)} holds ${last?.balance}`,
        );
      }
    });
  }

  test('Excel 「Unicode テキスト」 (UTF-16LE, BOM, tabs)', () => {
    throughTheDialog(UNICODE_TEXT_SAMPLE);
  });

  test('two genuine same-day, same-amount lines stay two rows; importCsv with decoded text gives the same keys', () => {
    const s = LAYOUT_SAMPLES.find((x) => x.layout === 'vpass') as LayoutSample;
    const w = throughTheDialog(s);
    const twins = csvRows(w).filter((r) => r.摘要 === 'ＡＭＡＺＯＮ．ＣＯ．ＪＰ');
    assert.equal(twins.length, 2);
    assert.notEqual(twins[0].キー, twins[1].キー);
    const text = iconv.decode(sampleBytes(s), 'cp932');
    assert.equal(value<Imported>(w.run('importCsv', { args: [text, s.source] })).added, 0);
  });
});

describe('when no layout fits, or two do', () => {
  const FILE = [
    '取引明細,2026年5月',
    '取扱日,区分,相手,引落,入金額,残り',
    '2026/05/01,振込,ﾃｽﾄｼﾖｳｼﾞ,,50000,150000',
    '2026/05/09,引落,ﾃﾞﾝｷ,3300,,146700',
  ].join('\r\n');
  const file = () => Buffer.from(iconv.encode(FILE, 'cp932')).toString('base64');
  const MAPPING = {
    preset: 'custom',
    header: false,
    date: 1,
    description: 2,
    description2: 3,
    withdrawal: 4,
    deposit: 5,
    balance: 6,
  };

  test('列を指定 reads it; 「この形式を保存」 keeps it on 取込元, and the next file of that bank needs no mapping', () => {
    const w = kichoWorld();
    const none = value<Preview>(w.run('csvPreview', { args: [file(), '地元信金'] }));
    assert.equal(none.ok, false);
    assert.match(String(none.fatal), /列を指定/);
    const saved = value<Imported>(
      w.run('csvImportFile', { args: [file(), '地元信金', { ...MAPPING, save: true }] }),
    );
    assert.equal(saved.added, 2);
    const cell = '列: 日付=1, 摘要=2+3, 出金=4, 入金=5, 残高=6, 見出し=なし';
    assert.ok(
      saved.messages.some((m) => m.includes(`この形式（${cell}）を取込元「地元信金」に保存しました`)),
    );
    assert.equal(records(w.emu, '取込元').find((r) => r.名前 === '地元信金')?.取込形式, cell);
    assert.deepEqual(
      csvRows(w).map((r) => [r.取引日, r.入出金, r.金額, r.摘要]),
      [
        ['2026-05-01', '入金', 50000, '振込 ﾃｽﾄｼﾖｳｼﾞ'],
        ['2026-05-09', '出金', 3300, '引落 ﾃﾞﾝｷ'],
      ],
    );
    // The next month's file: no mapping chosen, the saved format reads it.
    const june = FILE.replace(/2026\/05\/09,引落,ﾃﾞﾝｷ,3300,,146700/, '2026/06/09,引落,ﾃﾞﾝｷ,3520,,146480');
    const next = value<Preview>(
      w.run('csvPreview', {
        args: [Buffer.from(iconv.encode(june, 'cp932')).toString('base64'), '地元信金'],
      }),
    );
    assert.equal(next.ok, true, String(next.fatal));
    assert.match(next.found, /（取込元に保存した形式）（2 行）/);
    const imported = value<Imported>(
      w.run('csvImportFile', {
        args: [Buffer.from(iconv.encode(june, 'cp932')).toString('base64'), '地元信金'],
      }),
    );
    assert.equal(imported.added, 1, 'the May line is already there');
  });

  test('a 取込形式 a person broke stops the import of that source and names the cell', () => {
    const w = kichoWorld();
    value(w.run('csvImportFile', { args: [file(), '地元信金', { ...MAPPING, save: true }] }));
    const sheet = w.emu.world.spreadsheet.sheets.find((x) => x.name === '取込元');
    assert.ok(sheet);
    let col = 0;
    for (let c = 1; c <= sheet.lastColumn(); c++) if (sheet.value(1, c) === '取込形式') col = c;
    assert.ok(col > 0);
    sheet.setValue(2, col, '列: 日付=1, 摘要=2');
    const r = value<Imported>(w.run('csvImportFile', { args: [file(), '地元信金'] }));
    assert.equal(r.ok, false);
    assert.match(
      r.messages.join(),
      /シート「取込元」の 2 行目（地元信金）の「取込形式」を読めません: 金額の列/,
    );
    assert.equal(csvRows(w).length, 2, 'nothing more was imported');
  });

  test('a file two layouts fit is not imported until the person picks one', () => {
    const w = kichoWorld();
    const both =
      '日付,取引日,内容,摘要,出金金額,入金金額,お支払金額,お預り金額,残高,メモ\r\n2026/5/1,2026/5/2,A,B,100,,,,900,\r\n';
    const bytes = Buffer.from(iconv.encode(both, 'cp932')).toString('base64');
    const p = value<Preview>(w.run('csvPreview', { args: [bytes, 'X'] }));
    assert.equal(p.ok, false);
    assert.deepEqual(
      p.candidates.map((c) => c.name).sort(),
      ['GMOあおぞらネット銀行', '住信SBIネット銀行'].sort(),
    );
    const refused = value<Imported>(w.run('csvImportFile', { args: [bytes, 'X'] }));
    assert.equal(refused.ok, false);
    assert.equal(csvRows(w).length, 0);
    const picked = value<Imported>(w.run('csvImportFile', { args: [bytes, 'X', { preset: 'sbi' }] }));
    assert.equal(picked.added, 1);
    assert.deepEqual(
      csvRows(w).map((r) => [r.取引日, r.摘要]),
      [['2026-05-01', 'A']],
    );
  });
});
