/**
 * CSV import end to end: the built bundle in the emulator, the dialog's server targets called by name
 * with the file's bytes, posting through POST /journals against the fake MF, reconcile by tag.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'acorn';
import iconv from 'iconv-lite';
import { remoteTagOf } from '../../src/core/keys';
import { DIST } from '../helpers/emulator';
import { type KichoWorld, kichoWorld, records } from '../helpers/kicho';

const MINUTE = 60_000;

const BANK_CSV = [
  '日付,摘要,出金,入金,残高',
  '2026/05/01,ｱｽｸﾙ(株)①,"1,100",,98900',
  '2026/05/01,ﾃｽｳﾘﾖｳ,220,,98680',
  '2026/05/01,ﾃｽｳﾘﾖｳ,220,,98460',
  '2026/05/02,ﾌﾘｺﾐ ｶ)ﾐﾅﾐ,,"55,000",153460',
].join('\r\n');

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

function sjis(text: string): string {
  return base64(iconv.encode(text, 'cp932'));
}

function value<T = Record<string, unknown>>(r: { status: string; value?: unknown; error?: unknown }): T {
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  return r.value as T;
}

function csvRows(w: KichoWorld) {
  return w.ledger().filter((r) => String(r.キー).startsWith('csv:'));
}

function importText(w: KichoWorld, text: string, source = '○○銀行', layout?: unknown) {
  return value<{ ok: boolean; added: number; already: number; messages: string[]; sourceAdded: boolean }>(
    w.run('importCsv', { args: layout === undefined ? [text, source] : [text, source, layout] }),
  );
}

/** A person lists a source on 取込元 (名前 / 勘定科目 / 補助科目). */
function addSource(w: KichoWorld, name: string, account: string, sub = ''): void {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === '取込元');
  assert.ok(s);
  const r = s.lastRow() + 1;
  s.setValue(r, 1, name);
  s.setValue(r, 2, account);
  s.setValue(r, 3, sub);
}

function approveAll(w: KichoWorld, keys: string[], account = '支払手数料'): void {
  for (const key of keys) {
    w.edit(key, '勘定科目', account);
    w.edit(key, '操作', '承認');
  }
}

const journalsFor = (w: KichoWorld, key: string) =>
  w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key)));

describe('the dialog’s server targets', () => {
  test('Shift_JIS (Windows-31J) bytes: previewed, then imported exactly as written', () => {
    const w = kichoWorld();
    const preview = value<{
      ok: boolean;
      charset: string;
      total: number;
      lines: { description: string; amount: number; side: string }[];
      warnings: string[];
      problems: string[];
    }>(w.run('csvPreview', { args: [sjis(BANK_CSV), '○○銀行'] }));
    assert.equal(preview.ok, true);
    assert.equal(preview.charset, 'Shift_JIS');
    assert.equal(preview.total, 4);
    assert.deepEqual(preview.problems, []);
    assert.equal(
      preview.lines[0].description,
      'ｱｽｸﾙ(株)①',
      '① and (株) need Windows-31J, not strict Shift_JIS',
    );
    assert.match(preview.warnings.join(), /取込元「○○銀行」はまだありません/);
    assert.equal(csvRows(w).length, 0, 'a preview changes nothing');
    assert.equal(records(w.emu, '取込元').length, 0);

    const r = value<{ added: number; charset: string }>(
      w.run('csvImportFile', { args: [sjis(BANK_CSV), '○○銀行'] }),
    );
    assert.equal(r.added, 4);
    assert.equal(r.charset, 'Shift_JIS');
    const rows = csvRows(w);
    assert.deepEqual(
      rows.map((x) => [x.取引日, x.入出金, x.金額, x.摘要, x.口座, x.状態, x.明細ID]),
      [
        ['2026-05-01', '出金', 1100, 'ｱｽｸﾙ(株)①', '○○銀行', '未判定', ''],
        ['2026-05-01', '出金', 220, 'ﾃｽｳﾘﾖｳ', '○○銀行', '未判定', ''],
        ['2026-05-01', '出金', 220, 'ﾃｽｳﾘﾖｳ', '○○銀行', '未判定', ''],
        ['2026-05-02', '入金', 55000, 'ﾌﾘｺﾐ ｶ)ﾐﾅﾐ', '○○銀行', '未判定', ''],
      ],
    );
    assert.equal(new Set(rows.map((x) => x.キー)).size, 4, 'the twin 手数料 lines are two rows');
  });

  test('UTF-8 with a BOM is detected and the BOM is not part of the header', () => {
    const w = kichoWorld();
    const bytes = Buffer.from(`\ufeff${BANK_CSV}`, 'utf8');
    const preview = value<{ charset: string; header: string[] }>(
      w.run('csvPreview', { args: [base64(bytes), '○○銀行'] }),
    );
    assert.equal(preview.charset, 'UTF-8');
    assert.equal(preview.header[0], '日付');
    assert.equal(
      value<{ added: number }>(w.run('csvImportFile', { args: [base64(bytes), '○○銀行'] })).added,
      4,
    );
    // The same lines as Shift_JIS bytes are the same keys: nothing more is added.
    assert.equal(
      value<{ added: number }>(w.run('csvImportFile', { args: [sjis(BANK_CSV), '○○銀行'] })).added,
      0,
    );
  });

  test('the menu item opens the dialog; it lists the sources already on 取込元', () => {
    const w = kichoWorld();
    addSource(w, '△△カード', '未払金', '三井住友カード');
    const r = w.run('openCsvImport');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const shown = w.emu.world.ui.events.filter((e) => e.exec === r.id);
    assert.ok(JSON.stringify(shown).includes('CSVを取り込む'));
    const init = value<{ sources: string[]; presets: unknown[] }>(w.run('csvDialogInit'));
    assert.deepEqual(init.sources, ['△△カード']);
    // Named banks and cards first, then the 3 generic presets.
    assert.ok(init.presets.length > 20);
    assert.ok(JSON.stringify(init.presets).includes('三菱UFJ銀行'));
  });
});

test('the dialog’s script parses and calls only server functions the bundle defines', () => {
  const html = readFileSync(path.join(DIST, 'csv-import.html'), 'utf8');
  const code = readFileSync(path.join(DIST, 'Code.js'), 'utf8');
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  parse(script, { ecmaVersion: 2020, sourceType: 'script' });
  // Every google.script.run target is named csv…: each must be a top-level function of the bundle.
  const servers = new Set([...script.matchAll(/\.(csv\w+)\(/g)].map((m) => m[1]));
  assert.deepEqual([...servers].sort(), ['csvDialogInit', 'csvImportFile', 'csvPreview']);
  for (const name of servers) assert.match(code, new RegExp(`^function ${name}\\(`, 'm'), name);
});

describe('importCsv', () => {
  test('the same file twice adds nothing; a new source is added to 取込元 and the summary and ログ say so', () => {
    const w = kichoWorld();
    const first = importText(w, BANK_CSV);
    assert.equal(first.added, 4);
    assert.equal(first.sourceAdded, true);
    assert.match(first.messages.join(), /取込元「○○銀行」を新しく追加しました（勘定科目 普通預金）/);
    assert.deepEqual(records(w.emu, '取込元'), [
      { 名前: '○○銀行', 勘定科目: '普通預金', 補助科目: '', 取込形式: '' },
    ]);
    const log = records(w.emu, 'ログ').filter((l) => l.処理 === 'CSVの取込');
    assert.match(String(log.at(-1)?.メッセージ), /取込元「○○銀行」を新しく追加しました/);

    const again = importText(w, BANK_CSV);
    assert.equal(again.added, 0);
    assert.equal(again.already, 4);
    assert.equal(again.sourceAdded, false);
    assert.equal(records(w.emu, '取込元').length, 1);
    assert.equal(csvRows(w).length, 4);
  });

  test('every kind of bad line is reported with line number, reason and text; the good lines are imported', () => {
    const w = kichoWorld();
    const text = [
      '日付,摘要,出金,入金',
      '2026/05/01,A,"¥1,200",',
      '',
      '2026年5月2日,B,△500,',
      '2026-5-3,C,１２００,',
      '20260504,D,(300),',
      'R8.5.5,E,1,200円,',
      '令和8年5月6日,F,-700,',
      '2026/05/07,G,12a,',
      'あした,H,100,',
      '2026/05/08,I',
      '2026/05/09,J,,',
      '合計,,"3,000",',
    ].join('\n');
    const r = importText(w, text);
    const rows = csvRows(w);
    assert.deepEqual(
      rows.map((x) => [x.取引日, x.入出金, x.金額, x.摘要]),
      [
        ['2026-05-01', '出金', 1200, 'A'],
        ['2026-05-03', '出金', 1200, 'C'],
      ],
    );
    const problems = r.messages.filter((m) => /^\d+ 行目/.test(m));
    assert.deepEqual(
      problems.map((m) => Number(m.split(' ')[0])),
      [4, 6, 7, 8, 9, 10, 11, 12],
    );
    // A minus in the 出金 column (△, parentheses, -) is never turned into 入金: refused with its number.
    assert.match(problems[0], /^4 行目: 出金の列にマイナスの金額（△500）があります。.*取り込みません/);
    assert.match(problems[1], /^6 行目: 出金の列にマイナスの金額（\(300\)）/);
    // `1,200円` without quotes is two cells: the amount reads as 1 and 200円 lands in 入金.
    assert.match(problems[2], /^7 行目: 出金と入金の両方に金額があります。.*「R8\.5\.5,E,1,200円,」/);
    assert.match(problems[3], /^8 行目: 出金の列にマイナスの金額（-700）/);
    assert.match(problems[4], /^9 行目: 金額「12a」を読めません/);
    assert.match(problems[5], /^10 行目: 日付「あした」を読めません.*「あした,H,100,」/);
    assert.match(problems[6], /^11 行目: 列が足りません/);
    assert.match(problems[7], /^12 行目: 金額がありません/);
    assert.match(r.messages[0], /2 件を台帳に追加しました。読めなかった行 8 件。/);
    // The blank line and the total are the layout's, reported in one line apart.
    assert.ok(
      r.messages.includes('明細ではない行 2 行（空行 1 行、合計 1 行: 3・13 行目）は読み飛ばしました。'),
    );
    const log = records(w.emu, 'ログ').filter((l) => l.処理 === 'CSVの取込');
    assert.match(String(log.at(-1)?.メッセージ), /10 行目: 日付「あした」を読めません/);
  });

  test('a file with no recognisable header imports nothing and says what to do; a custom layout reads it', () => {
    const w = kichoWorld();
    const text = '2026/05/01,ｺﾝﾋﾞﾆ,980\n2026/05/02,ﾍﾝﾋﾟﾝ,-980\n';
    const r = w.run('importCsv', { args: [text, '○○カード'] });
    const v = r.value as { ok: boolean; messages: string[] };
    assert.equal(v.ok, false);
    assert.match(v.messages[0], /見出し行.*見つかりません.*列を指定/);
    assert.equal(csvRows(w).length, 0);
    const custom = { preset: 'custom', header: false, date: 1, description: 2, amount: 3, positive: '出金' };
    assert.equal(importText(w, text, '○○カード', custom).added, 2);
    assert.deepEqual(
      csvRows(w).map((x) => [x.入出金, x.金額]),
      [
        ['出金', 980],
        ['入金', 980],
      ],
    );
  });

  test('a wrong encoding (bytes that are neither UTF-8 nor Shift_JIS) is named in the preview', () => {
    const w = kichoWorld();
    const latin = Buffer.from(iconv.encode('日付,摘要,出金,入金\n2026/05/01,ｱ,1,\n', 'utf16le'));
    const p = value<{ ok: boolean; fatal: string | null; problems: string[] }>(
      w.run('csvPreview', { args: [base64(latin), '○○銀行'] }),
    );
    assert.equal(p.ok, false);
    assert.match(String(p.fatal), /見出し行/);
    const euc = value<{ ok: boolean; fatal: string | null }>(
      w.run('csvPreview', { args: [base64(iconv.encode('日付,摘要,出金,入金\n', 'euc-jp')), '○○銀行'] }),
    );
    assert.match(String(euc.fatal), /文字化け|見出し行/);
  });

  test('hostile descriptions are stored as text, never as formulas', () => {
    const w = kichoWorld();
    const hostile = ['=HYPERLINK("http://evil.example","x")', '+81-3-0000', '-1+2', '@SUM(A1)'];
    const text = [
      '日付,摘要,出金,入金',
      ...hostile.map((d, i) => `2026/05/0${i + 1},"${d.replace(/"/g, '""')}",100,`),
    ].join('\n');
    importText(w, text);
    assert.deepEqual(
      csvRows(w).map((r) => r.摘要),
      hostile,
    );
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    for (let r = 2; ledger && r <= ledger.lastRow(); r++)
      for (let c = 1; c <= ledger.lastColumn(); c++)
        assert.equal(ledger.meta(r, c)?.formula, undefined, `formula at ${r},${c}`);
  });

  test('an overlapping file warns that keys may shift; a file of other days does not', () => {
    const w = kichoWorld();
    importText(w, '日付,摘要,出金,入金\n2026/05/01,A,100,\n2026/05/02,B,200,\n');
    const other = importText(w, '日付,摘要,出金,入金\n2026/05/03,C,300,\n');
    assert.ok(!other.messages.join().includes('以前にも取り込んでいます'));
    const overlap = importText(w, '日付,摘要,出金,入金\n2026/05/02,B,200,\n2026/05/02,B2,250,\n');
    assert.equal(overlap.added, 1);
    assert.match(overlap.messages.join(), /2026-05-02 の行を以前にも取り込んでいます/);
  });

  test('Sheets calls do not grow with the lines of the file; a run holding the lock makes the import wait', () => {
    const w = kichoWorld();
    const file = (n: number, day: string) =>
      ['日付,摘要,出金,入金', ...Array.from({ length: n }, (_, i) => `${day},ﾐｾ${i},${i + 1},`)].join('\n');
    importText(w, file(1, '2026/04/01'));
    const small = w.run('importCsv', { args: [file(2, '2026/05/01'), '○○銀行'] });
    const large = w.run('importCsv', { args: [file(300, '2026/06/01'), '○○銀行'] });
    assert.equal(value<{ added: number }>(large).added, 300);
    assert.equal(large.counters.sheetsReads, small.counters.sheetsReads);
    assert.equal(large.counters.sheetsWrites, small.counters.sheetsWrites);

    const other = w.emu.open({ user: 'bob@example.com' });
    assert.equal(other.eval('LockService.getScriptLock().tryLock(1000)'), true);
    const busy = w.run('importCsv', { args: [file(3, '2026/07/01'), '○○銀行'] });
    assert.equal((busy.value as { ok: boolean }).ok, false);
    assert.match(JSON.stringify(busy.value), /別の実行が進行中/);
    other.end();
    assert.equal(csvRows(w).filter((r) => r.取引日 === '2026-07-01').length, 0);
  });

  test('rules classify CSV rows like MF lines (口座 is the source name)', () => {
    const w = kichoWorld();
    importText(w, BANK_CSV);
    w.addRules([
      {
        優先度: 1,
        一致方法: '部分一致',
        キーワード: 'ﾃｽｳﾘﾖｳ',
        口座: '○○銀行',
        勘定科目: '支払手数料',
        自動承認: 'はい',
        有効: true,
      },
    ]);
    value(w.run('classifyPending'));
    const fees = csvRows(w).filter((r) => r.摘要 === 'ﾃｽｳﾘﾖｳ');
    assert.deepEqual(
      fees.map((r) => [r.状態, r.勘定科目]),
      [
        ['送信待ち', '支払手数料'],
        ['送信待ち', '支払手数料'],
      ],
    );
  });
});

describe('posting CSV rows', () => {
  test('each approved row becomes one balanced journal via POST /journals with its tag; a rerun sends nothing', () => {
    const w = kichoWorld();
    addSource(w, '○○銀行', '普通預金', 'ゆうちょ銀行');
    importText(w, BANK_CSV);
    const keys = csvRows(w).map((r) => String(r.キー));
    approveAll(w, keys.slice(0, 3));
    w.edit(keys[3], '勘定科目', '売上高');
    w.edit(keys[3], '操作', '承認');
    const r = value<{ posted: number }>(w.run('postApproved'));
    assert.equal(r.posted, 4);
    const posts = w.mf.requestLog.filter((x) => x.method === 'POST' && x.path === '/api/v3/journals');
    assert.equal(posts.length, 4);
    for (const key of keys) {
      const row = w.ledger().find((x) => x.キー === key);
      const js = journalsFor(w, key);
      assert.equal(js.length, 1);
      assert.equal(row?.状態, '完了');
      assert.equal(row?.MF仕訳ID, js[0].id);
      assert.equal(js[0].transaction_id, null);
    }
    const [out] = journalsFor(w, keys[0]);
    const b = out.branches[0];
    assert.deepEqual(
      [b.debitor?.account_name, b.creditor?.account_name, b.creditor?.sub_account_name, b.creditor?.value],
      ['支払手数料', '普通預金', 'ゆうちょ銀行', 1100],
    );
    assert.ok(String(out.memo).startsWith('ｱｽｸﾙ(株)①'));
    const [inn] = journalsFor(w, keys[3]);
    assert.deepEqual(
      [inn.branches[0].debitor?.account_name, inn.branches[0].creditor?.account_name],
      ['普通預金', '売上高'],
    );
    value(w.run('postApproved'));
    assert.equal(
      w.mf.requestLog.filter((x) => x.method === 'POST' && x.path === '/api/v3/journals').length,
      4,
    );
  });

  test('commit-then-timeout on POST /journals: 不明, never resent, and reconcile finds exactly one journal by tag', () => {
    const w = kichoWorld();
    importText(w, BANK_CSV);
    const keys = csvRows(w).map((r) => String(r.キー));
    approveAll(w, keys.slice(1, 3));
    w.mf.injectFault({ kind: 'commit-then-timeout', match: { method: 'POST', path: '/api/v3/journals' } });
    value(w.run('postApproved'));
    const state = (k: string) => w.ledger().find((x) => x.キー === k);
    assert.deepEqual([state(keys[1])?.状態, state(keys[2])?.状態], ['不明', '完了']);
    assert.equal(journalsFor(w, keys[1]).length, 1, 'MF committed it');
    value(w.run('postApproved'));
    const rec = value<{ found: number }>(w.run('reconcile'));
    assert.equal(rec.found, 1);
    assert.equal(state(keys[1])?.状態, '完了');
    assert.equal(state(keys[1])?.MF仕訳ID, journalsFor(w, keys[1])[0].id);
    for (const k of keys.slice(1, 3)) assert.equal(journalsFor(w, k).length, 1);
    value(w.run('postApproved'));
    for (const k of keys.slice(1, 3)) assert.equal(journalsFor(w, k).length, 1);
  });

  test('5xx before commit: reconcile finds nothing, the row is sent again after the grace period, once', () => {
    const w = kichoWorld();
    importText(w, BANK_CSV);
    const [key] = csvRows(w).map((r) => String(r.キー));
    approveAll(w, [key]);
    w.mf.injectFault({ kind: '5xx-before-commit', match: { method: 'POST', path: '/api/v3/journals' } });
    value(w.run('postApproved'));
    assert.equal(w.ledger().find((x) => x.キー === key)?.状態, '不明');
    w.emu.advance(16 * MINUTE);
    value(w.run('reconcile'));
    assert.equal(w.ledger().find((x) => x.キー === key)?.状態, '送信待ち');
    value(w.run('postApproved'));
    assert.equal(w.ledger().find((x) => x.キー === key)?.状態, '完了');
    assert.equal(journalsFor(w, key).length, 1);
  });

  test('lines posted before (the 台帳 was lost since) are re-imported as 完了 and never posted again', () => {
    const w = kichoWorld();
    importText(w, BANK_CSV);
    const keys = csvRows(w).map((r) => String(r.キー));
    approveAll(w, keys);
    assert.equal(value<{ posted: number }>(w.run('postApproved')).posted, 4);
    // The rows are deleted (restoreLedgerFromMf cannot rebuild CSV rows: a tag does not give the key back).
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    ledger?.rows.splice(1);
    const again = importText(w, BANK_CSV);
    assert.equal(again.added, 4);
    assert.match(again.messages.join(), /4 件はMFに仕訳が既にあったため「完了」/);
    for (const key of keys) {
      const row = w.ledger().find((x) => x.キー === key);
      assert.equal(row?.状態, '完了');
      assert.equal(row?.MF仕訳ID, journalsFor(w, key)[0].id);
    }
    approveAll(w, keys);
    value(w.run('postApproved'));
    for (const key of keys) assert.equal(journalsFor(w, key).length, 1);
  });

  test('a source whose counter account MF does not know goes to 要確認 with a message, nothing is sent', () => {
    const w = kichoWorld();
    addSource(w, '○○銀行', '存在しない科目');
    importText(w, BANK_CSV);
    const [key] = csvRows(w).map((r) => String(r.キー));
    approveAll(w, [key]);
    value(w.run('postApproved'));
    const row = w.ledger().find((x) => x.キー === key);
    assert.equal(row?.状態, '要確認');
    assert.match(
      String(row?.メモ),
      /取込元「○○銀行」の相手科目: 勘定科目「存在しない科目」がマスタにありません/,
    );
    assert.equal(journalsFor(w, key).length, 0);
  });
});

describe('double counting', () => {
  test('a source booked to the account of an MF connected account is warned about in the preview and the dry run', () => {
    const w = kichoWorld();
    addSource(w, 'SMBCカード', '未払金', '三井住友カード');
    const card = '利用日,利用店名,利用金額\n2026/05/01,ｺﾝﾋﾞﾆ,980\n';
    const p = value<{ warnings: string[] }>(w.run('csvPreview', { args: [sjis(card), 'SMBCカード'] }));
    assert.match(p.warnings.join(), /MFの連携口座「三井住友カード」と同じです/);
    importText(w, card, 'SMBCカード');
    const dry = value<{ warnings: string[] }>(w.run('dryRun'));
    assert.match(dry.warnings.join(), /取込元「SMBCカード」.*二重に記帳/);
  });

  test('a sub-account of a connected service (one bank account of several) is matched through マスタ', () => {
    const w = kichoWorld();
    addSource(w, '渋谷の口座', '普通預金', '三井住友銀行 渋谷支店');
    const p = value<{ warnings: string[] }>(w.run('csvPreview', { args: [sjis(BANK_CSV), '渋谷の口座'] }));
    assert.match(p.warnings.join(), /MFの連携口座「三井住友銀行 渋谷支店 普通 7654321」と同じです/);
  });

  test('a source on its own account is not warned about', () => {
    const w = kichoWorld();
    addSource(w, '○○信金', '普通預金');
    importText(w, BANK_CSV, '○○信金');
    const dry = value<{ warnings: string[] }>(w.run('dryRun'));
    assert.ok(!dry.warnings.join().includes('二重に記帳'), dry.warnings.join());
  });
});
