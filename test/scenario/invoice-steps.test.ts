/**
 * Each step of the transitional credit at bundle level (issue 27): an office whose MF accounting periods
 * reach 2032-03-31 (the fake MF's seed option lastFiscalYear, not a tuned fake) posts a 非適格 purchase on
 * each side of every boundary — 80 % to 2026-09-30, 70 % to 2028-09-30, 50 % to 2030-09-30, 30 % to
 * 2031-09-30, none after — under both write worlds: MF's document (70/50/30 refused: 失敗, never another
 * kind) and MF's MCP server's enum (each kind stored).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { remoteTagOf } from '../../src/core/keys';
import { kichoWorld } from '../helpers/kicho';

const STEPS: [date: string, kind: string | null, label: string][] = [
  ['2026-09-30', 'INVOICE_KIND_UNQUALIFIED_80', '80%控除'],
  ['2026-10-01', 'INVOICE_KIND_UNQUALIFIED_70', '70%控除'],
  ['2028-09-30', 'INVOICE_KIND_UNQUALIFIED_70', '70%控除'],
  ['2028-10-01', 'INVOICE_KIND_UNQUALIFIED_50', '50%控除'],
  ['2030-09-30', 'INVOICE_KIND_UNQUALIFIED_50', '50%控除'],
  ['2030-10-01', 'INVOICE_KIND_UNQUALIFIED_30', '30%控除'],
  ['2031-09-30', 'INVOICE_KIND_UNQUALIFIED_30', '30%控除'],
  ['2031-10-01', null, ''],
];

describe('the journal’s invoice_kind at each step boundary', () => {
  for (const kinds of ['document', 'mcp'] as const) {
    test(`write world: ${kinds}`, () => {
      const w = kichoWorld(
        {
          taxMethod: 'INDIVIDUAL_ALLOCATION',
          invoiceKindsOnWrite: kinds,
          lastFiscalYear: 2031,
          window: ['2026-09-01', '2031-10-31'],
        },
        { start: '2031-11-20T09:00:00+09:00' },
      );
      const lines = w.mf.addTransactions(
        STEPS.map(([date], i) => ({
          date,
          value: 11_000 + i,
          side: 'EXPENSE' as const,
          content: 'ﾌﾘｺﾐ ﾀﾅｶ ｲﾗｽﾄ',
        })),
      );
      assert.equal(w.run('importTransactions').status, 'ok');
      const keys = lines.map((l) => `mf:${l.id}`);
      for (const key of keys) {
        w.edit(key, '勘定科目', '外注費');
        w.edit(key, 'インボイス', '非適格');
        w.edit(key, '操作', '承認');
      }
      const r = w.run('postApproved');
      assert.equal(r.status, 'ok', JSON.stringify(r.error));
      assert.deepEqual(r.internalErrors, []);
      const ledger = w.ledger();
      STEPS.forEach(([date, kind, label], i) => {
        const key = keys[i] as string;
        const row = ledger.find((x) => x.キー === key);
        assert.ok(row, key);
        const journals = w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key)));
        const stored = journals[0]?.branches[0]?.debitor?.invoice_kind;
        if (kind === null) {
          // After 2031-09-30 no credit: held for a person, nothing sent.
          assert.equal(row.状態, '要確認', date);
          assert.match(String(row.メモ), /経過措置（2031-09-30 まで）が終わった後/);
          assert.equal(journals.length, 0, date);
        } else if (kinds === 'mcp' || kind === 'INVOICE_KIND_UNQUALIFIED_80') {
          assert.equal(row.状態, '完了', `${date}: ${row.メモ}`);
          assert.equal(stored, kind, date);
        } else {
          assert.equal(row.状態, '失敗', date);
          assert.match(String(row.メモ), new RegExp(label), date);
          assert.equal(journals.length, 0, `${date}: never another kind instead`);
        }
      });
    });
  }
});
