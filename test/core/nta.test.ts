/** 登録番号の照会 (issue 27): the verdict by 取引日 from the NTA's record, and the request URLs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeInvoice } from '../../src/core/invoice-judge';
import type { LedgerRecord } from '../../src/core/ledger';
import type { Masters } from '../../src/core/masters';
import { type NtaRecord, type NtaRegistry, ntaRequestUrls, registeredOn } from '../../src/core/nta';

const N = 'T4010001000011';
const rec = (o: Partial<NtaRecord> = {}): NtaRecord => ({
  number: N,
  name: '株式会社山田商事',
  registrationDate: '2023-10-01',
  disposalDate: '',
  expireDate: '',
  ...o,
});

test('registered on a date: from the 登録年月日, until the 取消年月日 or 失効年月日', () => {
  assert.equal(registeredOn(N, rec(), '2026-10-05').kind, 'registered');
  assert.equal(registeredOn(N, rec({ registrationDate: '2026-10-06' }), '2026-10-05').kind, 'not-registered');
  assert.equal(registeredOn(N, rec({ registrationDate: '2026-10-05' }), '2026-10-05').kind, 'registered');
  assert.equal(registeredOn(N, rec({ disposalDate: '2026-10-05' }), '2026-10-05').kind, 'not-registered');
  assert.equal(registeredOn(N, rec({ disposalDate: '2026-10-06' }), '2026-10-05').kind, 'registered');
  assert.equal(registeredOn(N, rec({ expireDate: '2026-01-01' }), '2026-10-05').kind, 'not-registered');
  const missing = registeredOn(N, null, '2026-10-05');
  assert.equal(missing.kind, 'not-registered');
  assert.match(
    missing.kind === 'not-registered' ? missing.why : '',
    /公表サイトに登録番号 T4010001000011 がありません/,
  );
});

test('ten numbers to a request, the ID only in the id parameter', () => {
  const numbers = Array.from({ length: 21 }, () => N);
  const urls = ntaRequestUrls(numbers, 'ID 1');
  assert.equal(urls.length, 3);
  assert.match(
    urls[0] ?? '',
    /^https:\/\/web-api\.invoice-kohyo\.nta\.go\.jp\/1\/num\?id=ID%201&number=(T\d{13},){9}T\d{13}&type=21&history=0$/,
  );
});

const masters: Masters = {
  accounts: [{ id: 'a1', name: '外注費', taxId: 't1', subAccounts: [] }],
  taxes: [{ id: 't1', name: '課税仕入 10%' }],
  partners: [{ id: 'p1', name: '株式会社山田商事', registrationNumber: N }],
  connectedAccounts: [],
  fetchedAt: '',
} as unknown as Masters;

const row = (date: string): LedgerRecord =>
  ({
    取引日: date,
    入出金: '出金',
    金額: 55_000,
    摘要: 'ﾌﾘｺﾐ ﾔﾏﾀﾞｼｮｳｼﾞ',
    勘定科目: '外注費',
    補助科目: '',
    税区分: '課税仕入 10%',
    取引先: '株式会社山田商事',
    インボイス: '',
  }) as unknown as LedgerRecord;

const sources = (registry?: NtaRegistry) => ({
  masters,
  defaults: [],
  special: 'なし' as const,
  smallAmount: false,
  ...(registry ? { registry } : {}),
});

test('a number decides 適格 only when the NTA shows it registered on the 取引日', () => {
  assert.equal(judgeInvoice(row('2026-10-05'), sources()).cell, '適格');
  const registry = (r: NtaRecord | null): NtaRegistry => ({ verdict: (n, d) => registeredOn(n, r, d) });
  const ok = judgeInvoice(row('2026-10-05'), sources(registry(rec())));
  assert.equal(ok.cell, '適格');
  assert.deepEqual(ok.notes, []);
  const disposed = judgeInvoice(row('2026-10-05'), sources(registry(rec({ disposalDate: '2026-04-01' }))));
  assert.equal(disposed.cell, '非適格');
  assert.match(disposed.notes.join(' '), /2026-04-01 に登録が取り消されています/);
  const later = judgeInvoice(row('2026-10-05'), sources(registry(rec({ registrationDate: '2026-11-01' }))));
  assert.equal(later.cell, '非適格');
  const unknown = judgeInvoice(
    row('2026-10-05'),
    sources({ verdict: () => ({ kind: 'unconfirmed', why: 'x' }) }),
  );
  assert.equal(unknown.cell, '未判定');
  assert.equal(unknown.undecided, true);
  assert.match(unknown.notes.join(' '), /確かめられませんでした/);
  const pending = judgeInvoice(row('2026-10-05'), sources({ verdict: () => ({ kind: 'pending' }) }));
  assert.equal(pending.pending, true);
});

test('a row whose number was not asked yet waits: no change, and not handed to the AI', async () => {
  const { classifyRows } = await import('../../src/core/classify');
  const record = {
    ...row('2026-10-05'),
    キー: 'mf:1',
    状態: '未判定',
    勘定科目: '',
    取引先: '',
    口座: '',
    判定根拠: '',
    メモ: '',
  } as LedgerRecord;
  const rules = [
    {
      rowNumber: 2,
      priority: 1,
      matchType: '部分一致',
      keyword: 'ﾔﾏﾀﾞ',
      direction: null,
      minAmount: null,
      maxAmount: null,
      account: null,
      enabled: true,
      勘定科目: '外注費',
      補助科目: '',
      税区分: '',
      取引先: '株式会社山田商事',
      autoApprove: true,
      インボイス: '',
      text: 'ルール#1',
    },
  ];
  const waiting = new Set<string>();
  const changes = classifyRows([{ rowNumber: 2, record }], rules as never, masters, '2026-11-30T00:00:00Z', {
    invoice: { ...sources({ verdict: () => ({ kind: 'pending' }) }), holdUndecided: true },
    waiting,
  });
  assert.deepEqual(changes, []);
  assert.deepEqual([...waiting], ['mf:1']);
});
