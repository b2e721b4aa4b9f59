/**
 * 登録番号の照会 (issue 27) end to end: the built bundle in the emulator, the fake MF and the fake NTA Web-API
 * (sim/nta). Off by default (nothing asked). On, with the office's アプリケーションID saved from the 設定
 * dialog: the numbers the 未判定 rows need are asked ten to a request, before the lock; a number not
 * registered on the 取引日 (registered later, 取消, or not published) gives 非適格 with the reason and is
 * never auto-approved; a look-up that fails gives no 適格; the ID is on no sheet and in no ログ.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeNta, TEST_NTA_APP_ID } from '../../sim/nta/fake-nta';
import { checkDigit } from '../../src/core/invoice';
import { remoteTagOf } from '../../src/core/keys';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

type Row = Record<string, unknown>;

const YAMADA = 'T4010001000011';
const SATO = 'T9010002000022';
const FUKUOKA = 'T1290001000044';
const DENKI = 'T1010001000055';
/** Twelve numbers people typed on 取引先インボイス (valid check digits). */
const TYPED = Array.from({ length: 12 }, (_, i) => {
  const base = String(300_000_000_000 + i * 7919);
  return `T${checkDigit(base)}${base}`;
});
const TYPED_NAMES = TYPED.map((_, i) => `ｼｲﾚ${String.fromCharCode(0xff71 + i)}`);

function nta(): FakeNta {
  return new FakeNta({
    registrations: [
      { number: YAMADA, name: '株式会社山田商事', registrationDate: '2023-10-01' },
      { number: SATO, name: '有限会社佐藤工業', registrationDate: '2023-10-01', disposalDate: '2026-06-01' },
      { number: FUKUOKA, name: '株式会社福岡不動産', registrationDate: '2026-11-01' },
      // 東京電力's number in MF is well formed but not published.
      ...TYPED.map((number, i) => ({ number, name: `仕入先${i}`, registrationDate: '2024-01-01' })),
    ],
  });
}

interface Keys {
  yamada: string;
  sato: string;
  fukuoka: string;
  denki: string;
  typed: string[];
}

function world(): { w: KichoWorld; fake: FakeNta; keys: Keys } {
  const w = kichoWorld({ taxMethod: 'INDIVIDUAL_ALLOCATION', window: ['2026-09-20', '2026-10-20'] });
  const fake = nta();
  w.emu.world.fetch.route('web-api.invoice-kohyo.nta.go.jp', (req) => fake.handle(req));
  const lines = w.mf.addTransactions([
    { date: '2026-10-05', value: 55_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾔﾏﾀﾞｼｮｳｼﾞ' },
    { date: '2026-10-05', value: 44_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ｻﾄｳｺｳｷﾞｮｳ' },
    { date: '2026-10-05', value: 33_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾌｸｵｶﾌﾄﾞｳｻﾝ' },
    { date: '2026-10-05', value: 13_210, side: 'EXPENSE', content: 'ﾃﾞﾝｷﾀﾞｲ' },
    ...TYPED_NAMES.map((name, i) => ({
      date: '2026-10-06',
      value: 20_000 + i,
      side: 'EXPENSE' as const,
      content: `ﾌﾘｺﾐ ${name}`,
    })),
  ]);
  const rule = (priority: number, keyword: string, partner: string) => ({
    優先度: priority,
    一致方法: '部分一致',
    キーワード: keyword,
    勘定科目: '外注費',
    ...(partner ? { 取引先: partner } : {}),
    自動承認: 'はい',
    有効: true,
  });
  w.addRules([
    rule(1, 'ﾔﾏﾀﾞ', '株式会社山田商事'),
    rule(2, 'ｻﾄｳ', '有限会社佐藤工業'),
    rule(3, 'ﾌｸｵｶ', '株式会社福岡不動産'),
    rule(4, 'ﾃﾞﾝｷ', '東京電力エナジーパートナー株式会社'),
    rule(5, 'ｼｲﾚ', ''),
  ]);
  const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === '取引先インボイス');
  assert.ok(sheet, 'setup made the sheet');
  TYPED_NAMES.forEach((name, i) => {
    sheet.setValue(i + 2, 1, name);
    sheet.setValue(i + 2, 3, TYPED[i] as string);
  });
  const r = w.run('importTransactions');
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  const key = (i: number) => `mf:${lines[i]?.id}`;
  return {
    w,
    fake,
    keys: {
      yamada: key(0),
      sato: key(1),
      fukuoka: key(2),
      denki: key(3),
      typed: TYPED.map((_, i) => key(4 + i)),
    },
  };
}

function rowOf(w: KichoWorld, key: string): Row {
  const row = w.ledger().find((r) => r.キー === key);
  assert.ok(row, key);
  return row;
}

/** Every cell of every sheet, as text. */
function everyCell(w: KichoWorld): string {
  const out: string[] = [];
  for (const s of w.emu.world.spreadsheet.sheets)
    for (let r = 1; r <= s.lastRow(); r++)
      for (let c = 1; c <= s.lastColumn(); c++) out.push(String(s.value(r, c) ?? ''));
  return out.join('\n');
}

function saveId(w: KichoWorld, id = TEST_NTA_APP_ID) {
  const saved = w.run('saveNtaKey', { args: [id] });
  assert.equal(saved.status, 'ok', JSON.stringify(saved.error));
  assert.equal((saved.value as { saved: boolean }).saved, true);
  assert.ok(!JSON.stringify(saved.value).includes(id), 'the ID is not shown back');
}

describe('登録番号の照会', () => {
  test('off by default: nothing is asked, a well-formed number gives 適格', () => {
    const { w, fake, keys } = world();
    saveId(w);
    const r = w.run('classifyPending');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    assert.equal(fake.requests.length, 0);
    for (const key of [keys.yamada, keys.sato, keys.fukuoka, keys.denki])
      assert.equal(rowOf(w, key).インボイス, '適格', key);
  });

  test('on: ten numbers to a request, before the lock; only a number registered on the 取引日 gives 適格', () => {
    const { w, fake, keys } = world();
    saveId(w);
    w.setSetting('登録番号の照会', 'オン');
    const r = w.run('classifyPending');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    assert.deepEqual(
      fake.requests.map((q) => [q.path, q.numbers.length, q.status]),
      [
        ['/1/num', 10, 200],
        ['/1/num', 6, 200],
      ],
    );
    const nta = w.emu.world.fetch.log.filter((f) => f.url.includes('invoice-kohyo'));
    assert.ok(nta.length === 2 && nta.every((f) => !f.heldScriptLock), 'never under the script lock');

    const yamada = rowOf(w, keys.yamada);
    assert.equal(yamada.インボイス, '適格');
    assert.equal(yamada.状態, '送信待ち');
    assert.match(String(yamada.判定根拠), /国税庁の公表サイトで 2026-10-05 に登録あり/);
    for (const key of keys.typed) {
      assert.equal(rowOf(w, key).インボイス, '適格', key);
      assert.equal(rowOf(w, key).状態, '送信待ち', key);
    }
    const expect: [string, RegExp][] = [
      [keys.sato, /2026-06-01 に登録が取り消されています/],
      [keys.fukuoka, /登録日は 2026-11-01 で、取引日 2026-10-05 には登録されていません/],
      [keys.denki, /公表サイトに登録番号 T1010001000055 がありません/],
    ];
    for (const [key, why] of expect) {
      const row = rowOf(w, key);
      assert.equal(row.インボイス, '非適格', key);
      assert.equal(row.状態, '要確認', 'never auto-approved');
      assert.match(String(row.メモ), why);
      assert.match(String(row.メモ), /インボイス欄を「非適格」にしました/);
    }

    // Posting: 山田's journal is 適格; the others wait for a person.
    w.run('postApproved');
    const journals = (key: string) => w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key)));
    assert.equal(journals(keys.yamada)[0]?.branches[0]?.debitor?.invoice_kind, 'INVOICE_KIND_QUALIFIED');
    for (const key of [keys.sato, keys.fukuoka, keys.denki]) assert.equal(journals(key).length, 0);

    // The ID is on no sheet (ログ included).
    assert.ok(!everyCell(w).includes(TEST_NTA_APP_ID));
  });

  test('an ID the NTA refuses: one request, then nothing more; no number gives 適格, and each row says why', () => {
    const { w, fake, keys } = world();
    saveId(w, 'NotTheOfficesId99');
    w.setSetting('登録番号の照会', 'オン');
    w.run('classifyPending');
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0]?.status, 403);
    for (const key of [keys.yamada, keys.denki, ...keys.typed]) {
      const row = rowOf(w, key);
      assert.equal(row.インボイス, '未判定', key);
      assert.equal(row.状態, '要確認', key);
      assert.match(
        String(row.メモ),
        /国税庁の公表サイトで確かめられませんでした（.*アプリケーションIDを受け付けませんでした（403）/,
      );
    }
    assert.ok(!everyCell(w).includes('NotTheOfficesId99'));
  });

  test('a request that times out confirms nothing: its numbers give no 適格; the next batch still counts', () => {
    const { w, fake, keys } = world();
    saveId(w);
    w.setSetting('登録番号の照会', 'オン');
    fake.timeouts = 1;
    w.run('classifyPending');
    assert.equal(fake.requests.length, 2);
    const first = new Set(fake.requests[0]?.numbers);
    const all = [keys.yamada, keys.sato, keys.fukuoka, keys.denki, ...keys.typed];
    const numberOf = [YAMADA, SATO, FUKUOKA, DENKI, ...TYPED];
    all.forEach((key, i) => {
      const row = rowOf(w, key);
      if (first.has(numberOf[i] as string)) {
        assert.equal(row.インボイス, '未判定', key);
        assert.match(String(row.メモ), /接続できませんでした/);
      } else assert.notEqual(row.インボイス, '', key);
    });
    assert.ok(!everyCell(w).includes(TEST_NTA_APP_ID));
  });

  test('on without a saved ID: nothing is asked, no number gives 適格, and the run says to save it', () => {
    const { w, fake, keys } = world();
    w.setSetting('登録番号の照会', 'オン');
    w.run('classifyPending');
    assert.equal(fake.requests.length, 0);
    assert.equal(rowOf(w, keys.yamada).インボイス, '未判定');
    assert.equal(rowOf(w, keys.yamada).状態, '要確認');
    assert.match(everyCell(w), /アプリケーションIDが保存されていません/);
  });

  test('the 設定 dialog keeps the ID as a secret: saved, never shown, removable', () => {
    const { w } = world();
    assert.deepEqual(w.run('ntaKeyStatus').value, { saved: false });
    assert.equal((w.run('saveNtaKey', { args: ['has space'] }).value as { ok: boolean }).ok, false);
    saveId(w);
    assert.deepEqual(w.run('ntaKeyStatus').value, { saved: true });
    assert.equal(w.emu.world.properties.script.get('NTA_API_KEY'), TEST_NTA_APP_ID);
    assert.ok(!everyCell(w).includes(TEST_NTA_APP_ID));
    w.run('removeNtaKey');
    assert.deepEqual(w.run('ntaKeyStatus').value, { saved: false });
  });
});
