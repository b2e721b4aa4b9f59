/**
 * The simulation's `invoice-kind` invariant (sim/simulate/invoice.ts) on hand-made rows: a posted purchase
 * whose kind is not what its row's 区分 and 取引日 require is reported; a row edited after posting (指紋) and
 * a journal that is no purchase are not held to it. The seeds run it in every 原則課税 world.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invoiceKindProblems, taxMethodOf } from '../../sim/simulate/invoice';
import type { Scenario } from '../../sim/simulate/scenario';
import { fingerprint } from '../../src/core/fingerprint';

const base = {
  取引日: '2026-05-02',
  入出金: '出金',
  金額: 1100,
  摘要: 'ﾃﾞﾝｷﾀﾞｲ',
  勘定科目: '水道光熱費',
  補助科目: '',
  税区分: '',
  取引先: '',
};

function row(key: string, invoice: string, edited = false) {
  const r: Record<string, unknown> = { ...base, インボイス: invoice, キー: key, 状態: '完了', MF仕訳ID: key };
  r.指紋 = fingerprint({ ...base, インボイス: invoice });
  if (edited) r.勘定科目 = '雑費';
  return r;
}

const journal = (kind: string, tax = '課税仕入 10%') => ({
  id: '',
  branches: [{ debitor: { tax_long_name: tax, invoice_kind: kind } }],
});

test('a purchase posted with a kind its row does not say is reported; the rest are not', () => {
  const journals = new Map<string, ReturnType<typeof journal>>([
    ['ok-q', journal('INVOICE_KIND_QUALIFIED')],
    ['ok-80', journal('INVOICE_KIND_UNQUALIFIED_80')],
    ['silent', journal('INVOICE_KIND_QUALIFIED')],
    ['wrong-80', journal('INVOICE_KIND_UNQUALIFIED_80')],
    ['edited', journal('INVOICE_KIND_QUALIFIED')],
    ['sale', journal('INVOICE_KIND_NOT_TARGET', '課税売上 10%')],
  ]);
  const rows = [
    row('ok-q', '適格'),
    row('ok-80', '非適格'),
    row('silent', '未判定'),
    row('wrong-80', '適格'),
    row('edited', '非適格', true),
    row('sale', ''),
  ];
  const { problems, checked } = invoiceKindProblems(rows, (r) => journals.get(String(r.キー)));
  assert.equal(checked, 4);
  assert.equal(problems.length, 2);
  assert.match(problems[0] ?? '', /^silent .*INVOICE_KIND_QUALIFIED; it must not be posted/);
  assert.match(problems[1] ?? '', /^wrong-80 .*UNQUALIFIED_80; INVOICE_KIND_QUALIFIED/);
});

test('about half the worlds are 原則課税; the fixed regression cases stay 簡易課税', () => {
  const scenario = (seed: number, archiver?: false) =>
    ({
      data: { seed, lines: 4 },
      schedule: { seed: 1 },
      ...(archiver === false ? { archiver } : {}),
    }) as Scenario;
  const principle = Array.from({ length: 200 }, (_, i) => taxMethodOf(scenario(i))).filter(
    (m) => m === 'INDIVIDUAL_ALLOCATION',
  ).length;
  assert.ok(principle > 60 && principle < 140, String(principle));
  assert.equal(taxMethodOf(scenario(1, false)), 'SIMPLE');
});
