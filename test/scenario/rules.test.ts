/** Rules people can trust: the 診断 column, the dry run's rule list, and ルール候補 learnt from approvals. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EXAMPLE_RULES, type KichoWorld, kichoWorld, records } from '../helpers/kicho';

function sheetOf(w: KichoWorld, name: string) {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === name);
  assert.ok(s, `sheet ${name}`);
  return s;
}

function column(w: KichoWorld, name: string, header: string): number {
  const s = sheetOf(w, name);
  for (let c = 1; c <= s.lastColumn(); c++) if (s.value(1, c) === header) return c;
  throw new Error(`no ${header} on ${name}`);
}

/** A person types into a cell of a sheet (row = sheet row number). */
function type(w: KichoWorld, name: string, row: number, header: string, value: unknown): void {
  sheetOf(w, name).setValue(row, column(w, name, header), value as never);
}

const rules = (w: KichoWorld) => records(w.emu, 'ルール');
const candidates = (w: KichoWorld) => records(w.emu, 'ルール候補').filter((c) => c.キーワード !== '');

/** The 診断 cell of the rule whose キーワード is `keyword` (first such row). */
function diagnosis(w: KichoWorld, keyword: string): string {
  const rule = rules(w).find((r) => r.キーワード === keyword);
  assert.ok(rule, `rule ${keyword}`);
  return String(rule.診断);
}

/** Sheet row of the ルール row whose キーワード is `keyword`. */
function ruleRow(w: KichoWorld, keyword: string): number {
  const i = rules(w).findIndex((r) => r.キーワード === keyword);
  assert.ok(i >= 0, `rule ${keyword}`);
  return i + 2;
}

function approve(w: KichoWorld, key: string, account: string): void {
  w.edit(key, '勘定科目', account);
  w.edit(key, '操作', '承認');
}

const PROBLEM_RULES: Record<string, unknown>[] = [
  // Same keyword as 優先度 10 「アマゾン」 once NFKC-normalised: never reachable.
  { 優先度: 90, 一致方法: '部分一致', キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '新聞図書費', 有効: true },
  // Reachable, but 優先度 20 「タクシー」 takes every 日本交通 row first with another account.
  { 優先度: 91, 一致方法: '部分一致', キーワード: 'ﾆﾎﾝｺｳﾂｳ', 勘定科目: '接待交際費', 有効: true },
  { 優先度: 92, 一致方法: '正規表現', キーワード: '(ﾃﾞﾝｷ', 勘定科目: '水道光熱費', 有効: true },
  { 優先度: 93, 一致方法: '正規表現', キーワード: '(ｽｲ+)+ﾄﾞｳ', 勘定科目: '水道光熱費', 有効: true },
  { 優先度: 94, 一致方法: '部分一致', キーワード: 'ﾏﾙｾﾞﾝ', 勘定科目: '図書費', 有効: true },
  { 優先度: 95, 一致方法: '部分一致', キーワード: '', 勘定科目: '雑費', 有効: true },
  { 優先度: 96, 一致方法: '部分一致', キーワード: 'ﾕｳﾋﾞﾝ', 勘定科目: '通信費', 有効: false },
];

describe('ルール 診断', () => {
  test('classifyPending writes a plain-Japanese 診断 for each kind of problem, and OK otherwise', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.addRules(PROBLEM_RULES);
    w.run('importTransactions');
    const r = w.run('classifyPending');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));

    assert.match(
      diagnosis(w, 'ｱﾏｿﾞﾝ'),
      /優先度 10 の『アマゾン』（2行目、消耗品費）が先に必ず当てはまるため、このルールは使われません/,
    );
    const taxi = w.ledger().filter((x) => x.摘要 === 'ﾆﾎﾝｺｳﾂｳ ﾀｸｼｰ').length;
    assert.ok(taxi > 0);
    assert.match(
      diagnosis(w, 'ﾆﾎﾝｺｳﾂｳ'),
      new RegExp(
        `^台帳の ${taxi} 行はこのルールにも当てはまりますが、先に調べられる優先度 20 の『タクシー』`,
      ),
    );
    assert.match(diagnosis(w, '(ﾃﾞﾝｷ'), /正規表現として正しくありません/);
    assert.match(diagnosis(w, '(ｽｲ+)+ﾄﾞｳ'), /処理に時間がかかるおそれ/);
    assert.match(diagnosis(w, 'ﾏﾙｾﾞﾝ'), /勘定科目「図書費」がマスタにありません/);
    assert.match(diagnosis(w, ''), /キーワードが空です/);
    assert.match(diagnosis(w, 'ﾕｳﾋﾞﾝ'), /^無効です/);
    for (const rule of EXAMPLE_RULES) assert.equal(diagnosis(w, String(rule.キーワード)), 'OK');
    assert.ok(
      (r.value as { messages: string[] }).messages.some((m) => m.includes('7 件のルールに確認してほしい点')),
    );
  });

  test('a fixed rule gets OK on the next run; 診断 is one write whatever the number of rules', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.addRules(PROBLEM_RULES);
    w.run('importTransactions');
    const first = w.run('classifyPending');
    type(w, 'ルール', ruleRow(w, 'ﾏﾙｾﾞﾝ'), '勘定科目', '新聞図書費');
    type(w, 'ルール', ruleRow(w, '(ﾃﾞﾝｷ'), 'キーワード', '^ﾃﾞﾝｷ');
    type(w, 'ルール', ruleRow(w, ''), 'キーワード', 'ﾘｿｸ');
    type(w, 'ルール', ruleRow(w, 'ｱﾏｿﾞﾝ'), '有効', false);
    const second = w.run('classifyPending');
    assert.equal(diagnosis(w, 'ﾏﾙｾﾞﾝ'), 'OK');
    assert.equal(diagnosis(w, '^ﾃﾞﾝｷ'), 'OK');
    assert.equal(diagnosis(w, 'ﾘｿｸ'), 'OK');
    assert.match(diagnosis(w, 'ｱﾏｿﾞﾝ'), /^無効です/);
    assert.equal(first.status, 'ok');
    const many = Array.from({ length: 200 }, (_, i) => ({
      優先度: 200 + i,
      一致方法: '部分一致',
      キーワード: `ﾃｽﾄ${i}ﾃﾞｽ`,
      勘定科目: '雑費',
      有効: true,
    }));
    w.addRules(many);
    // Sheets traffic does not grow with the number of rules: nothing per row.
    const third = w.run('classifyPending');
    assert.equal(third.counters.sheetsWrites, second.counters.sheetsWrites);
    assert.equal(third.counters.sheetsReads, second.counters.sheetsReads);
    assert.equal(diagnosis(w, 'ﾃｽﾄ199ﾃﾞｽ'), 'OK');
  });

  test('setup adds the 診断 header to an existing ルール sheet without touching the rules, and fills it', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    const s = sheetOf(w, 'ルール');
    const col = column(w, 'ルール', '診断');
    for (let r = 1; r <= s.lastRow(); r++) s.setValue(r, col, '');
    const before = JSON.stringify(rules(w).map(({ 診断: _, ...rest }) => rest));
    const r = w.run('setup');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    assert.equal(JSON.stringify(rules(w).map(({ 診断: _, ...rest }) => rest)), before);
    assert.ok(rules(w).every((x) => x.診断 === 'OK'));
  });

  test('the dry run lists rule diagnostics on ドライラン and in its dialog', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.addRules(PROBLEM_RULES);
    w.run('importTransactions');
    w.run('classifyPending');
    const d = w.run('dryRun');
    assert.equal(d.status, 'ok', JSON.stringify(d.error));
    const listed = records(w.emu, 'ドライラン').filter((x) => x.区分 === 'ルール');
    assert.equal(listed.length, 7);
    const shadow = listed.find((x) => x.摘要 === 'ｱﾏｿﾞﾝ');
    assert.equal(shadow?.キー, `ルール ${ruleRow(w, 'ｱﾏｿﾞﾝ')}行目`);
    assert.match(String(shadow?.内容), /このルールは使われません/);
    const modal = w.emu.world.ui.events.find((e) => e.exec === d.id && e.type === 'modal') as {
      html?: string;
    };
    // The dialog renders its plan from JSON in the page (src/ui/dry-run.html).
    const plan = JSON.parse(/const PLAN = (.*);\n/.exec(String(modal?.html))?.[1] ?? '{}') as {
      rules?: { row: number; keyword: string; message: string }[];
    };
    assert.equal(plan.rules?.length, 7);
    assert.ok(plan.rules?.some((f) => f.message.includes('図書費') || f.keyword.includes('図書')));
  });
});

describe('ルール候補', () => {
  test('a person’s account + 承認 gives one candidate; nothing is adopted without 採用; adopting adds the rule the next import uses', () => {
    const w = kichoWorld({ window: ['2026-01-01', '2026-03-31'] });
    w.addRules(EXAMPLE_RULES);
    w.run('importTransactions');
    w.run('classifyPending');
    const denki = w.ledger().filter((x) => x.摘要 === 'ﾃﾞﾝｷﾀﾞｲ');
    assert.ok(denki.length >= 3);
    approve(w, String(denki[0].キー), '水道光熱費');
    const r1 = w.run('classifyPending', { user: 'keiri@example.com' });
    assert.ok((r1.value as { messages: string[] }).messages.some((m) => m.includes('ルール候補を 1 件追加')));
    let list = candidates(w);
    assert.equal(list.length, 1);
    const c = list[0];
    assert.equal(c.キーワード, 'デンキダイ');
    assert.equal(c.一致方法, '部分一致');
    assert.equal(c.入出金, '出金');
    assert.equal(c.勘定科目, '水道光熱費');
    assert.equal(c.該当行数, denki.length);
    assert.equal(c.摘要の例, 'ﾃﾞﾝｷﾀﾞｲ');
    assert.equal(c.採用, false);
    assert.equal(c.状態, '候補');
    assert.match(
      String(c.根拠),
      /当てはまるルールがない行を、keiri@example.com が 水道光熱費 で承認しました/,
    );

    // The same merchant approved again — this time consumed by postApproved — updates, never duplicates.
    approve(w, String(denki[1].キー), '水道光熱費');
    const p = w.run('postApproved');
    assert.equal(p.status, 'ok', JSON.stringify(p.error));
    assert.ok((p.value as { messages: string[] }).messages.some((m) => m.includes('1 件更新')));
    list = candidates(w);
    assert.equal(list.length, 1);
    assert.equal(list[0].該当行数, denki.length);

    // Without the tick, nothing reaches ルール.
    const ruleCount = rules(w).length;
    w.run('classifyPending');
    assert.equal(rules(w).length, ruleCount);

    type(w, 'ルール候補', 2, '採用', true);
    const adopt = w.run('classifyPending');
    const messages = (adopt.value as { messages: string[] }).messages;
    const added = rules(w);
    assert.equal(added.length, ruleCount + 1);
    const rule = added[added.length - 1];
    assert.equal(rule.優先度, 81, 'after the last priority (80)');
    assert.equal(rule.キーワード, 'デンキダイ');
    assert.equal(rule.入出金, '出金');
    assert.equal(rule.勘定科目, '水道光熱費');
    assert.equal(rule.自動承認, 'いいえ');
    assert.equal(rule.有効, true);
    assert.equal(rule.診断, 'OK');
    assert.ok(messages.some((m) => m.includes(`ルール ${ruleCount + 2}行目に追加しました`)));
    assert.ok(records(w.emu, 'ログ').some((l) => String(l.メッセージ).includes('ルール候補『デンキダイ』')));
    list = candidates(w);
    assert.equal(list[0].採用, false);
    assert.match(String(list[0].状態), /^採用済み（ルール \d+行目、優先度 81）/);

    // A second run adopts nothing more.
    w.run('classifyPending');
    assert.equal(rules(w).length, ruleCount + 1);

    // New lines of the same merchant are classified by the adopted rule.
    w.setSetting('取込終了日', '2026-06-30');
    w.run('importTransactions');
    w.run('classifyPending');
    const later = w.ledger().filter((x) => x.摘要 === 'ﾃﾞﾝｷﾀﾞｲ' && String(x.取引日) > '2026-03-31');
    assert.ok(later.length > 0);
    for (const x of later) {
      assert.equal(x.判定元, 'ルール#81');
      assert.equal(x.勘定科目, '水道光熱費');
      assert.equal(x.状態, '要確認');
    }
  });

  test('overriding a rule’s account suggests a rule placed before it; approving what a rule gives suggests nothing', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.run('importTransactions');
    w.run('classifyPending');
    const sato = w.ledger().find((x) => x.摘要 === 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ');
    assert.ok(sato);
    w.edit(String(sato.キー), '操作', '承認'); // 売掛金 from ルール#80, unchanged
    w.run('classifyPending');
    assert.equal(candidates(w).length, 0);

    const yamada = w.ledger().filter((x) => x.摘要 === 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ');
    approve(w, String(yamada[0].キー), '売上高');
    w.run('classifyPending');
    const [c] = candidates(w);
    assert.equal(c.キーワード, 'ヤマダショウジ');
    assert.equal(c.入出金, '入金');
    assert.equal(c.該当行数, yamada.length);
    assert.match(String(c.根拠), /ルール#80（売掛金）が当てはまる行を/);

    type(w, 'ルール候補', 2, '採用', true);
    const r = w.run('classifyPending');
    const rule = rules(w).at(-1);
    assert.equal(rule?.優先度, 79, 'just before ルール#80, after #70');
    assert.ok(
      (r.value as { messages: string[] }).messages.some((m) =>
        m.includes('優先度 80 の『フリコミ』（売掛金）より先に調べます'),
      ),
    );
    assert.equal(rule?.診断, 'OK');
  });

  test('a ticked candidate that is not a valid rule is refused with the reason, not added', () => {
    const w = kichoWorld({ window: ['2026-01-01', '2026-03-31'] });
    w.run('importTransactions');
    w.run('classifyPending');
    const row = w.ledger().find((x) => x.摘要 === 'ﾃﾞﾝｷﾀﾞｲ');
    assert.ok(row);
    approve(w, String(row.キー), '水道光熱費');
    w.run('classifyPending');
    type(w, 'ルール候補', 2, 'キーワード', '');
    type(w, 'ルール候補', 2, '採用', true);
    const before = rules(w).length;
    const r = w.run('classifyPending');
    assert.equal(rules(w).length, before);
    const [c] = records(w.emu, 'ルール候補');
    assert.equal(c.採用, false);
    assert.match(String(c.状態), /^採用できません: キーワードが空です/);
    assert.ok(
      (r.value as { messages: string[] }).messages.some((m) =>
        m.includes('ルール候補 2行目は採用できません'),
      ),
    );
  });

  test('hostile descriptions stay text in the candidate and in the adopted rule', () => {
    const w = kichoWorld();
    w.run('importTransactions');
    w.run('classifyPending');
    const hostile = '=HYPERLINK("http://example.com","click")';
    const row = w.ledger().find((x) => x.摘要 === hostile);
    assert.ok(row);
    approve(w, String(row.キー), '雑費');
    w.run('classifyPending');
    const [c] = candidates(w);
    assert.equal(c.摘要の例, hostile);
    assert.ok(String(c.キーワード).startsWith('=HYPERLINK("http'), String(c.キーワード));
    const s = sheetOf(w, 'ルール候補');
    for (const h of ['摘要の例', 'キーワード'])
      assert.equal(s.meta(2, column(w, 'ルール候補', h))?.formula, undefined);
    type(w, 'ルール候補', 2, '採用', true);
    w.run('setup');
    const rule = rules(w).at(-1);
    assert.equal(rule?.キーワード, c.キーワード);
    const rs = sheetOf(w, 'ルール');
    assert.equal(rs.meta(rs.lastRow(), column(w, 'ルール', 'キーワード'))?.formula, undefined);
  });

  test('with 自動実行 オフ, the scheduled run still adopts a ticked candidate', () => {
    const w = kichoWorld({ window: ['2026-01-01', '2026-03-31'] });
    w.run('importTransactions');
    w.run('classifyPending');
    const row = w.ledger().find((x) => x.摘要 === 'ﾃﾞﾝｷﾀﾞｲ');
    assert.ok(row);
    approve(w, String(row.キー), '水道光熱費');
    w.run('classifyPending');
    const before = rules(w).length;
    w.run('runScheduled', { kind: 'trigger' });
    assert.equal(rules(w).length, before, 'not ticked: nothing');
    type(w, 'ルール候補', 2, '採用', true);
    const r = w.run('runScheduled', { kind: 'trigger' });
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    assert.equal(rules(w).length, before + 1);
    assert.equal(rules(w).at(-1)?.キーワード, 'デンキダイ');
    assert.ok(
      records(w.emu, 'ログ').some(
        (l) => l.処理 === '定期実行' && String(l.メッセージ).includes('ルール候補『デンキダイ』'),
      ),
    );
  });

  test('a book set up before ルール候補 existed gets the sheet, with headers, at the first approval', () => {
    const w = kichoWorld({ window: ['2026-01-01', '2026-03-31'] });
    const x = w.emu.open({ user: 'owner@example.com' });
    x.eval(`const b = SpreadsheetApp.getActiveSpreadsheet(); b.deleteSheet(b.getSheetByName('ルール候補'));`);
    x.end();
    assert.equal(
      w.emu.world.spreadsheet.sheets.find((s) => s.name === 'ルール候補'),
      undefined,
    );
    w.run('importTransactions');
    w.run('classifyPending');
    const row = w.ledger().find((x) => x.摘要 === 'ﾃﾞﾝｷﾀﾞｲ');
    assert.ok(row);
    approve(w, String(row.キー), '水道光熱費');
    w.run('classifyPending');
    const [c] = candidates(w);
    assert.equal(c.キーワード, 'デンキダイ');
    assert.equal(c.勘定科目, '水道光熱費');
  });

  test('a column people added to ルール候補 keeps its formulas and dates when candidates are updated', () => {
    const w = kichoWorld({ window: ['2026-01-01', '2026-03-31'] });
    w.run('importTransactions');
    w.run('classifyPending');
    const denki = w.ledger().filter((x) => x.摘要 === 'ﾃﾞﾝｷﾀﾞｲ');
    approve(w, String(denki[0].キー), '水道光熱費');
    w.run('classifyPending');
    const s = sheetOf(w, 'ルール候補');
    const col = s.lastColumn() + 1;
    s.setValue(1, col, '人のメモ');
    // A formula as a person typed it: its value and the formula behind it.
    s.setValue(2, col, 2);
    s.updateMeta(2, col, { formula: '=1+1' });
    const note = new Date('2026-12-01T00:00:00+09:00');
    s.setValue(3, col, note);
    approve(w, String(denki[1].キー), '水道光熱費');
    approve(w, String(w.ledger().find((x) => x.摘要 === 'ﾓﾊﾞｲﾙｽｲｶ ﾁﾔｰｼﾞ')?.キー), '旅費交通費');
    w.run('classifyPending');
    assert.equal(candidates(w).length, 2);
    assert.equal(s.meta(2, col)?.formula, '=1+1', 'a person’s formula is not ours to rewrite');
    assert.equal(candidates(w)[1].キーワード, 'モバイルスイカ チヤージ');
    assert.equal(String(s.value(3, col)), String(note));
  });

  test('setup formats 採用 as checkboxes', () => {
    const w = kichoWorld();
    const s = sheetOf(w, 'ルール候補');
    assert.equal(s.meta(2, column(w, 'ルール候補', '採用'))?.validation?.criteria, 'CHECKBOX');
  });
});
