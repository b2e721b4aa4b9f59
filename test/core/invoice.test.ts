/**
 * インボイス区分 (issue 27): the credit by 取引日, registration numbers, which rows carry a 区分, what a
 * journal carries (invoiceForSend), the 判定 order, and the 指紋 of rows posted before the column existed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { classifyRows } from '../../src/core/classify';
import { fingerprint } from '../../src/core/fingerprint';
import {
  checkDigit,
  checkRegistrationNumber,
  creditStep,
  DEFAULT_INVOICE_POLICY,
  type InvoicePolicy,
  invoiceForSend,
  notNeededReason,
  parseKindsSeen,
  purchaseKind,
} from '../../src/core/invoice';
import { type InvoiceSources, judgeInvoice, parseInvoiceDefaults } from '../../src/core/invoice-judge';
import type { Masters } from '../../src/core/masters';
import { parseRules } from '../../src/core/rules';
import { sha256Hex } from '../../src/core/sha256';
import { ledgerRecord, ruleSheet } from '../helpers/fixtures';

const MASTERS: Masters = {
  accounts: [
    { id: 'a1', name: '消耗品費', available: true, taxId: 't-p10', subAccounts: [] },
    { id: 'a2', name: '外注費', available: true, taxId: 't-p10', subAccounts: [] },
    { id: 'a3', name: '租税公課', available: true, taxId: 't-out', subAccounts: [] },
    { id: 'a4', name: '売上高', available: true, taxId: 't-s10', subAccounts: [] },
    { id: 'a5', name: '雑費', available: true, subAccounts: [] },
  ],
  taxes: [
    { id: 't-p10', name: '課税仕入 10%', available: true },
    { id: 't-p8', name: '課税仕入 8%（軽）', available: true },
    { id: 't-s10', name: '課税売上 10%', available: true },
    { id: 't-out', name: '対象外仕', available: true },
    { id: 't-non', name: '非課税仕入', available: true },
  ],
  partners: [
    {
      code: 'p1',
      name: '東京電力エナジーパートナー株式会社',
      available: true,
      registrationNumber: 'T1010001000055',
    },
    { code: 'p2', name: '合同会社鈴木デザイン', available: true },
    { code: 'p3', name: '株式会社誤番号', available: true, registrationNumber: 'T1010001000056' },
  ],
  connectedAccounts: [],
  periods: [{ start: '2026-04-01', end: '2027-03-31', fiscalYear: 2026 }],
  taxMethods: [{ start: '2026-04-01', end: '2027-03-31', method: 'INDIVIDUAL_ALLOCATION' }],
  fetchedAt: '2026-11-01T00:00:00Z',
};

const SOURCES: InvoiceSources = { masters: MASTERS, defaults: [], special: 'なし', smallAmount: false };
const purchase = (over: Parameters<typeof ledgerRecord>[0] = {}) =>
  ledgerRecord({ 勘定科目: '外注費', 税区分: '課税仕入 10%', 金額: 55_000, ...over });

describe('the transitional credit by 取引日 (令和8年度税制改正)', () => {
  test('each step begins and ends on the day the law says', () => {
    const cases: [string, number | 'before' | 'after'][] = [
      ['2023-09-30', 'before'],
      ['2023-10-01', 80],
      ['2026-09-30', 80],
      ['2026-10-01', 70],
      ['2028-09-30', 70],
      ['2028-10-01', 50],
      ['2030-09-30', 50],
      ['2030-10-01', 30],
      ['2031-09-30', 30],
      ['2031-10-01', 'after'],
    ];
    for (const [date, want] of cases) {
      const step = creditStep(date);
      assert.equal(typeof step === 'string' ? step : step.percent, want, date);
    }
  });

  test('a 非適格 purchase carries the kind of its own 取引日, never 80 % after 2026-09-30', () => {
    const kinds: [string, string][] = [
      ['2026-09-30', 'INVOICE_KIND_UNQUALIFIED_80'],
      ['2026-10-01', 'INVOICE_KIND_UNQUALIFIED_70'],
      ['2028-10-01', 'INVOICE_KIND_UNQUALIFIED_50'],
      ['2030-10-01', 'INVOICE_KIND_UNQUALIFIED_30'],
    ];
    for (const [date, kind] of kinds) {
      const out = invoiceForSend(
        purchase({ 取引日: date, インボイス: '非適格' }),
        MASTERS,
        DEFAULT_INVOICE_POLICY,
      );
      assert.equal(out.kind === 'send' && out.invoiceKind, kind, date);
    }
    const late = invoiceForSend(
      purchase({ 取引日: '2031-10-01', インボイス: '非適格' }),
      MASTERS,
      DEFAULT_INVOICE_POLICY,
    );
    assert.equal(late.kind, 'hold');
  });
});

describe('registration numbers (T + 13 digits, 法人番号 check digit)', () => {
  test('published numbers pass; one changed digit fails', () => {
    // 株式会社エックスサーバー and 日本税理士会連合会, as they publish them.
    for (const n of ['T7120001168421', 'T7010705000725', 'Ｔ７１２０００１１６８４２１', 't7120-0011-68421'])
      assert.ok(checkRegistrationNumber(n).ok, n);
    assert.equal(checkRegistrationNumber('T7120001168422').ok, false);
    assert.equal(checkRegistrationNumber('7120001168421').ok, false);
    assert.equal(checkRegistrationNumber('T712000116842').ok, false);
  });

  test('property: the check digit catches every single-digit change except 0↔9', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{12}$/),
        fc.integer({ min: 0, max: 11 }),
        fc.integer({ min: 1, max: 9 }),
        (base, at, delta) => {
          const number = `T${checkDigit(base)}${base}`;
          assert.ok(checkRegistrationNumber(number).ok);
          const changed = (Number(base[at]) + delta) % 10;
          const swap09 = new Set([base[at], String(changed)]);
          fc.pre(!(swap09.has('0') && swap09.has('9')));
          const typo = `T${number[1]}${base.slice(0, at)}${changed}${base.slice(at + 1)}`;
          assert.equal(checkRegistrationNumber(typo).ok, false);
        },
      ),
    );
  });
});

describe('which rows carry a 区分', () => {
  test('a 出金 on a taxable purchase tax (named or the account’s default) does; a 入金 never', () => {
    assert.equal(purchaseKind(purchase(), MASTERS).kind, 'purchase');
    assert.equal(purchaseKind(purchase({ 税区分: '' }), MASTERS).kind, 'purchase');
    assert.equal(purchaseKind(purchase({ 税区分: '課税仕入 8%（軽）' }), MASTERS).kind, 'purchase');
    assert.equal(purchaseKind(purchase({ 勘定科目: '租税公課', 税区分: '' }), MASTERS).kind, 'not-purchase');
    assert.equal(purchaseKind(purchase({ 税区分: '非課税仕入' }), MASTERS).kind, 'not-purchase');
    assert.equal(
      purchaseKind(purchase({ 入出金: '入金', 勘定科目: '売上高' }), MASTERS).kind,
      'not-purchase',
    );
    // No 税区分 and an account whose default tax the マスタ does not know yet: asked, not assumed.
    assert.equal(purchaseKind(purchase({ 勘定科目: '雑費', 税区分: '' }), MASTERS).kind, 'unknown');
  });

  test('免税事業者・簡易課税 (MF), 2割特例 and 3割特例 (設定) make it change nothing, each in its own period', () => {
    const simple: Masters = {
      ...MASTERS,
      taxMethods: [{ start: '2026-04-01', end: '2027-03-31', method: 'SIMPLE' }],
    };
    assert.match(notNeededReason('2026-11-02', simple, 'なし') ?? '', /簡易課税/);
    assert.equal(notNeededReason('2027-04-01', simple, 'なし'), null);
    assert.equal(notNeededReason('2026-11-02', MASTERS, 'なし'), null);
    // 2割特例: the period containing the date begins on or before 2026-09-30.
    assert.match(notNeededReason('2027-03-31', MASTERS, '2割特例') ?? '', /2割特例/);
    assert.equal(notNeededReason('2027-04-01', MASTERS, '2割特例'), null);
    assert.match(notNeededReason('2027-01-01', MASTERS, '3割特例') ?? '', /3割特例/);
    assert.equal(notNeededReason('2029-01-01', MASTERS, '3割特例'), null);
    const out = invoiceForSend(purchase(), simple, DEFAULT_INVOICE_POLICY);
    assert.equal(out.kind, 'omit');
  });
});

describe('what a purchase journal carries (invoiceForSend)', () => {
  const policy = (over: Partial<InvoicePolicy> = {}): InvoicePolicy => ({
    ...DEFAULT_INVOICE_POLICY,
    ...over,
  });

  test('適格 → QUALIFIED; 未判定 held by default, sent without a 区分 only when 設定 says 送信', () => {
    const ok = invoiceForSend(purchase({ インボイス: '適格' }), MASTERS, policy());
    assert.deepEqual(ok, { kind: 'send', invoiceKind: 'INVOICE_KIND_QUALIFIED', label: '適格' });
    for (const cell of ['', '未判定']) {
      assert.equal(invoiceForSend(purchase({ インボイス: cell }), MASTERS, policy()).kind, 'hold');
      assert.equal(
        invoiceForSend(purchase({ インボイス: cell }), MASTERS, policy({ holdUndecided: false })).kind,
        'omit-undecided',
      );
    }
  });

  test('対象外 on a taxable purchase, a word of its own, or an unknown tax: held with a reason', () => {
    for (const cell of ['対象外', 'たぶん適格']) {
      const out = invoiceForSend(purchase({ インボイス: cell }), MASTERS, policy());
      assert.equal(out.kind, 'hold', cell);
    }
    assert.equal(
      invoiceForSend(purchase({ 勘定科目: '雑費', 税区分: '', インボイス: '適格' }), MASTERS, policy()).kind,
      'hold',
    );
  });

  test('a kind MF was seen refusing stops the row (失敗); never 80 % or 適格 instead', () => {
    const seen = { INVOICE_KIND_UNQUALIFIED_70: { seen: 'refused' as const, at: '2026-10-02T00:00:00Z' } };
    const out = invoiceForSend(
      purchase({ 取引日: '2026-11-02', インボイス: '非適格' }),
      MASTERS,
      policy({ seen }),
    );
    assert.equal(out.kind, 'refused');
    assert.match(out.kind === 'refused' ? out.problem : '', /70%控除/);
    // Before the change the same office's 80 % is untouched.
    const before = invoiceForSend(
      purchase({ 取引日: '2026-09-30', インボイス: '非適格' }),
      MASTERS,
      policy({ seen }),
    );
    assert.equal(before.kind === 'send' && before.invoiceKind, 'INVOICE_KIND_UNQUALIFIED_80');
  });

  test('sales and receivables carry none, whatever the cell says', () => {
    const sale = ledgerRecord({
      入出金: '入金',
      勘定科目: '売上高',
      税区分: '課税売上 10%',
      インボイス: '非適格',
    });
    assert.equal(invoiceForSend(sale, MASTERS, policy()).kind, 'omit');
  });

  test('KICHO_INVOICE_KINDS reads back what was stored and nothing else', () => {
    assert.deepEqual(parseKindsSeen('{"INVOICE_KIND_UNQUALIFIED_70":{"seen":"accepted","at":"x"},"bad":1}'), {
      INVOICE_KIND_UNQUALIFIED_70: { seen: 'accepted', at: 'x' },
    });
    assert.deepEqual(parseKindsSeen('not json'), {});
  });
});

describe('判定 order: rule, MF 取引先, AI, 取引先インボイス, 少額特例', () => {
  const kept = parseInvoiceDefaults([
    ['取引先', 'インボイス', '登録番号', 'メモ'],
    ['合同会社鈴木デザイン', '非適格', '', ''],
    ['ｽｽﾞｷ', '適格', '', '摘要で見つける'],
    ['山本翻訳', '', 'T7120001168421', ''],
    ['変な行', 'たぶん', '', ''],
  ]);

  test('the sheet is read with a message for a bad cell', () => {
    assert.equal(kept.defaults.length, 3);
    assert.match(kept.problems[0] ?? '', /5行目/);
  });

  test('the rule wins; then the 取引先’s 登録番号; then the AI; then the sheet', () => {
    const sources = { ...SOURCES, defaults: kept.defaults };
    const rule = judgeInvoice(purchase({ 取引先: '東京電力エナジーパートナー株式会社' }), sources, {
      rule: { say: '非適格', source: 'ルール#3' },
    });
    assert.deepEqual([rule.cell, rule.basis], ['非適格', 'インボイス: ルール#3']);
    const partner = judgeInvoice(purchase({ 取引先: '東京電力エナジーパートナー株式会社' }), sources, {
      ai: { say: '非適格', source: 'AI', reason: 'r' },
    });
    assert.equal(partner.cell, '適格');
    assert.match(partner.basis, /T1010001000055/);
    const ai = judgeInvoice(purchase({ 取引先: '合同会社鈴木デザイン' }), sources, {
      ai: { say: '帳簿のみ', source: 'AI', reason: '郵便切手' },
    });
    assert.deepEqual([ai.cell, ai.basis], ['適格', 'インボイス: AI（帳簿のみ保存の特例）「郵便切手」']);
    const sheet = judgeInvoice(purchase({ 取引先: '合同会社鈴木デザイン' }), sources);
    assert.equal(sheet.cell, '非適格');
    assert.match(sheet.basis, /取引先インボイス 2行目/);
    const byText = judgeInvoice(purchase({ 摘要: 'ﾌﾘｺﾐ ﾄﾞ)ｽｽﾞｷﾃﾞｻﾞｲﾝ' }), sources);
    assert.equal(byText.cell, '適格');
    const byNumber = judgeInvoice(purchase({ 取引先: '山本翻訳' }), sources);
    assert.match(byNumber.basis, /T7120001168421/);
  });

  test('a malformed 登録番号 in MF decides nothing and is said; 少額特例 fills only what is left', () => {
    const bad = judgeInvoice(purchase({ 取引先: '株式会社誤番号' }), SOURCES);
    assert.equal(bad.cell, '未判定');
    assert.equal(bad.undecided, true);
    assert.match(bad.notes[0] ?? '', /株式会社誤番号/);
    const small = judgeInvoice(purchase({ 金額: 9_999 }), { ...SOURCES, smallAmount: true });
    assert.equal(small.cell, '適格');
    const notSmall = judgeInvoice(purchase({ 金額: 10_000 }), { ...SOURCES, smallAmount: true });
    assert.equal(notSmall.cell, '未判定');
    const ruled = judgeInvoice(
      purchase({ 金額: 500 }),
      { ...SOURCES, smallAmount: true },
      {
        rule: { say: '非適格', source: 'ルール#1' },
      },
    );
    assert.equal(ruled.cell, '非適格');
    const late = judgeInvoice(purchase({ 金額: 500, 取引日: '2029-10-01' }), {
      ...SOURCES,
      smallAmount: true,
    });
    assert.equal(late.cell, '未判定');
  });

  test('rows whose 区分 changes nothing are said so, not asked', () => {
    const simple = {
      ...SOURCES,
      masters: { ...MASTERS, taxMethods: [{ start: '2026-04-01', end: '2027-03-31', method: 'SIMPLE' }] },
    };
    const j = judgeInvoice(purchase(), simple);
    assert.deepEqual([j.cell, j.undecided], ['', false]);
    assert.match(j.basis, /判定不要.*簡易課税/);
    assert.equal(judgeInvoice(purchase({ 勘定科目: '租税公課', 税区分: '' }), SOURCES).cell, '対象外');
    assert.equal(judgeInvoice(ledgerRecord({ 入出金: '入金', 勘定科目: '売上高' }), SOURCES).cell, '');
  });

  test('a rule with 自動承認 never approves a purchase nobody can place; its インボイス column approves it', () => {
    const rules = (invoice: string) =>
      parseRules(
        ruleSheet([{ キーワード: 'ｽｽﾞｷ', 勘定科目: '外注費', 自動承認: 'はい', インボイス: invoice }]),
      ).rules;
    const row = { rowNumber: 2, record: purchase({ 勘定科目: '', 税区分: '', 摘要: 'ﾌﾘｺﾐ ｽｽﾞｷ' }) };
    const invoice = { ...SOURCES, holdUndecided: true };
    const [none] = classifyRows([row], rules(''), MASTERS, 'now', { invoice });
    assert.equal(none?.patch.状態, '要確認');
    assert.equal(none?.patch.インボイス, '未判定');
    assert.match(String(none?.patch.メモ), /インボイス区分が決まりません/);
    const [said] = classifyRows([row], rules('非適格'), MASTERS, 'now', { invoice });
    assert.equal(said?.patch.状態, '送信待ち');
    assert.equal(said?.patch.インボイス, '非適格');
    assert.match(String(said?.patch.判定根拠), /インボイス: ルール#10/);
    // A 区分 a person typed stays.
    const [typed] = classifyRows(
      [{ ...row, record: { ...row.record, インボイス: '適格' } }],
      rules('非適格'),
      MASTERS,
      'now',
      { invoice },
    );
    assert.equal(typed?.patch.インボイス, undefined);
    // 設定 インボイス未判定の扱い 送信: the rule approves, the column says 未判定.
    const [sent] = classifyRows([row], rules(''), MASTERS, 'now', {
      invoice: { ...invoice, holdUndecided: false },
    });
    assert.equal(sent?.patch.状態, '送信待ち');
  });
});

describe('指紋 (DESIGN §3) with the インボイス column', () => {
  test('a row posted before the column existed keeps its 指紋; filling it in afterwards is an edit', () => {
    const before = purchase({ 状態: '完了' });
    // The 指紋 a row got before issue 27: the eight fields, by name.
    const fields = ['取引日', '入出金', '金額', '摘要', '勘定科目', '補助科目', '税区分', '取引先'] as const;
    const old = sha256Hex(fields.map((f) => `${f}=${String(before[f]).trim()}`).join('\n'));
    assert.equal(fingerprint({ ...before, インボイス: '' }), old);
    assert.notEqual(fingerprint({ ...before, インボイス: '非適格' }), old);
    assert.notEqual(
      fingerprint({ ...before, インボイス: '適格' }),
      fingerprint({ ...before, インボイス: '非適格' }),
    );
  });
});
