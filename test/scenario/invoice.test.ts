/**
 * インボイス区分 end to end (issue 27): the built bundle in the emulator against the fake MF, in every world
 * of its インボイス switches (which values a write takes; NOT_TARGET with a taxable tax; a kind on the
 * credit side). Each purchase journal carries the kind of its 取引日 (80 % to 2026-09-30, 70 % from
 * 2026-10-01); where MF refuses the kind a journal needs the row stops as 失敗 and says why, never a silent
 * 80 % or 適格; a 未判定 purchase is not posted under the default; sales carry no kind.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FakeMfOptions } from '../../sim/mf/fake-mf';
import type { HttpRequest } from '../../sim/mf/types';
import { remoteTagOf } from '../../src/core/keys';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

type Row = Record<string, unknown>;

interface Lines {
  before: string;
  after: string;
  qualified: string;
  undecided: string;
  sale: string;
}

/** A world with five lines of its own in the window, imported; every request body MF receives is kept. */
function world(options: FakeMfOptions = {}): { w: KichoWorld; keys: Lines; sent: HttpRequest[] } {
  const w = kichoWorld({
    taxMethod: 'INDIVIDUAL_ALLOCATION',
    ...options,
    window: ['2026-09-20', '2026-10-20'],
  });
  const sent: HttpRequest[] = [];
  const handle = w.mf.handle.bind(w.mf);
  w.mf.handle = (req) => {
    if (req.method === 'POST') sent.push(req);
    return handle(req);
  };
  const [before, after, qualified, undecided, sale] = w.mf.addTransactions([
    { date: '2026-09-28', value: 55_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾔﾏﾓﾄ ﾎﾝﾔｸ' },
    { date: '2026-10-05', value: 44_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾔﾏﾓﾄ ﾎﾝﾔｸ' },
    { date: '2026-10-06', value: 33_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ｶ)ｵｵﾃｼﾞﾑｷ' },
    { date: '2026-10-07', value: 22_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾀﾅｶ ｲﾗｽﾄ' },
    { date: '2026-10-08', value: 110_000, side: 'INCOME', content: 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ' },
  ]);
  const r = w.run('importTransactions');
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  const keyOf = (id: string) => `mf:${id}`;
  return {
    w,
    sent,
    keys: {
      before: keyOf(before.id),
      after: keyOf(after.id),
      qualified: keyOf(qualified.id),
      undecided: keyOf(undecided.id),
      sale: keyOf(sale.id),
    },
  };
}

function approve(w: KichoWorld, key: string, account: string, invoice: string): void {
  w.edit(key, '勘定科目', account);
  if (invoice !== '') w.edit(key, 'インボイス', invoice);
  w.edit(key, '操作', '承認');
}

function rowOf(w: KichoWorld, key: string): Row {
  const row = w.ledger().find((r) => r.キー === key);
  assert.ok(row, key);
  return row;
}

function journalOf(w: KichoWorld, key: string) {
  const journals = w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key)));
  assert.ok(journals.length <= 1, `one journal at most for ${key}`);
  return journals[0];
}

/** Approves the five lines as a bookkeeper would and posts. */
function postAll(w: KichoWorld, keys: Lines) {
  approve(w, keys.before, '外注費', '非適格');
  approve(w, keys.after, '外注費', '非適格');
  approve(w, keys.qualified, '消耗品費', '適格');
  approve(w, keys.undecided, '外注費', '');
  approve(w, keys.sale, '売上高', '');
  const r = w.run('postApproved');
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  assert.deepEqual(r.internalErrors, []);
  return r;
}

const WORLDS: [string, FakeMfOptions][] = [
  ['the document’s write enum (refuses 70 %)', {}],
  ['MF’s MCP write enum (takes 70 %)', { invoiceKindsOnWrite: 'mcp' }],
  [
    'the document’s enum, NOT_TARGET and credit-side kinds accepted',
    { notTargetOnTaxable: 'accepted', invoiceKindOnCredit: 'accepted' },
  ],
  [
    'MF’s MCP enum, NOT_TARGET and credit-side kinds accepted',
    { invoiceKindsOnWrite: 'mcp', notTargetOnTaxable: 'accepted', invoiceKindOnCredit: 'accepted' },
  ],
];

describe('each purchase journal carries the 区分 of its 取引日, in every MF world', () => {
  for (const [name, options] of WORLDS) {
    test(name, () => {
      const { w, keys, sent } = world(options);
      postAll(w, keys);
      const takes70 = options.invoiceKindsOnWrite === 'mcp';

      // Before 2026-10-01: 80 %, in every world.
      assert.equal(rowOf(w, keys.before).状態, '完了');
      assert.equal(
        journalOf(w, keys.before)?.branches[0]?.debitor?.invoice_kind,
        'INVOICE_KIND_UNQUALIFIED_80',
      );

      // From 2026-10-01: 70 %, or 失敗 with a reason — never 80 % or 適格 instead.
      const after = rowOf(w, keys.after);
      if (takes70) {
        assert.equal(after.状態, '完了');
        assert.equal(
          journalOf(w, keys.after)?.branches[0]?.debitor?.invoice_kind,
          'INVOICE_KIND_UNQUALIFIED_70',
        );
        const seen = JSON.parse(w.emu.world.properties.script.get('KICHO_INVOICE_KINDS') ?? '{}');
        assert.equal(seen.INVOICE_KIND_UNQUALIFIED_70?.seen, 'accepted');
      } else {
        assert.equal(after.状態, '失敗');
        assert.match(String(after.メモ), /70%控除/);
        assert.match(String(after.メモ), /80% や「適格」に変えて送ることはしません/);
        assert.equal(journalOf(w, keys.after), undefined);
      }
      const bodies = sent.map((r) => String(r.body ?? ''));
      assert.ok(!bodies.some((b) => b.includes(keys.after.slice(3)) && b.includes('UNQUALIFIED_80')));

      assert.equal(
        journalOf(w, keys.qualified)?.branches[0]?.debitor?.invoice_kind,
        'INVOICE_KIND_QUALIFIED',
      );

      // 未判定: not posted (default 保留), and it says what to do.
      const undecided = rowOf(w, keys.undecided);
      assert.equal(undecided.状態, '要確認');
      assert.match(String(undecided.メモ), /インボイス区分が未判定です/);
      assert.equal(journalOf(w, keys.undecided), undefined);

      // A sale carries no invoice_kind; kicho never sends NOT_TARGET.
      assert.equal(rowOf(w, keys.sale).状態, '完了');
      const saleBody = bodies.find((b) => b.includes(keys.sale.slice(3)));
      assert.ok(saleBody && !saleBody.includes('invoice_kind'), saleBody);
      assert.ok(!bodies.some((b) => b.includes('INVOICE_KIND_NOT_TARGET')));
    });
  }
});

describe('what MF was seen refusing, and the 設定', () => {
  test('a kind 本番前チェック saw refused stops the row before anything is sent (失敗, with what to do)', () => {
    const { w, keys, sent } = world({ invoiceKindsOnWrite: 'mcp' });
    w.emu.world.properties.script.set(
      'KICHO_INVOICE_KINDS',
      JSON.stringify({ INVOICE_KIND_UNQUALIFIED_70: { seen: 'refused', at: '2026-10-02T00:00:00.000Z' } }),
    );
    approve(w, keys.after, '外注費', '非適格');
    w.run('postApproved');
    const row = rowOf(w, keys.after);
    assert.equal(row.状態, '失敗');
    assert.match(String(row.メモ), /MF の画面でこの仕訳を登録してから/);
    assert.equal(row.試行回数, 0, 'nothing was sent');
    assert.equal(sent.length, 0);
  });

  test('インボイス未判定の扱い 送信: the purchase is posted without a kind and its メモ says MF records 適格', () => {
    const { w, keys, sent } = world();
    w.setSetting('インボイス未判定の扱い', '送信');
    approve(w, keys.undecided, '外注費', '');
    w.run('postApproved');
    const row = rowOf(w, keys.undecided);
    assert.equal(row.状態, '完了');
    assert.match(String(row.メモ), /未判定のまま登録しました/);
    assert.ok(!String(sent[0]?.body).includes('invoice_kind'));
  });

  test('the dry run counts each 区分 and warns of 未判定 purchases before they are posted', () => {
    const { w, keys } = world({ invoiceKindsOnWrite: 'mcp' });
    for (const [key, account, invoice] of [
      [keys.before, '外注費', '非適格'],
      [keys.after, '外注費', '非適格'],
      [keys.qualified, '消耗品費', '適格'],
      [keys.undecided, '外注費', ''],
    ] as const) {
      w.edit(key, '勘定科目', account);
      if (invoice) w.edit(key, 'インボイス', invoice);
      w.edit(key, '状態', '送信待ち');
    }
    const r = w.run('dryRun');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const value = r.value as { invoiceCounts: Record<string, number>; warnings: string[]; toSend: string[] };
    assert.deepEqual(value.invoiceCounts, {
      '非適格（80%控除）': 1,
      '非適格（70%控除）': 1,
      適格: 1,
      '未判定・止める': 1,
    });
    assert.ok(value.warnings.some((m) => /未判定の仕入れが 1 件/.test(m)));
    assert.ok(!value.toSend.includes(keys.undecided));
    assert.equal(w.mf.journals().filter((j) => j.tags.some((t) => t.startsWith('kc-'))).length, 0);
  });
});

describe('判定 fills the column', () => {
  test('by rule, by MF 取引先, by the 取引先インボイス sheet; a 簡易課税 office is not asked', () => {
    const { w, keys } = world();
    w.addRules([
      {
        優先度: 1,
        一致方法: '部分一致',
        キーワード: 'ｵｵﾃｼﾞﾑｷ',
        勘定科目: '消耗品費',
        自動承認: 'はい',
        有効: true,
        インボイス: '適格',
      },
      {
        優先度: 2,
        一致方法: '部分一致',
        キーワード: 'ﾔﾏﾓﾄ',
        勘定科目: '外注費',
        自動承認: 'はい',
        有効: true,
      },
      {
        優先度: 3,
        一致方法: '部分一致',
        キーワード: 'ﾀﾅｶ',
        勘定科目: '外注費',
        取引先: '東京電力エナジーパートナー株式会社',
        自動承認: 'はい',
        有効: true,
      },
    ]);
    const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === '取引先インボイス');
    assert.ok(sheet, 'setup made the sheet');
    sheet.setValue(2, 1, 'ﾔﾏﾓﾄ');
    sheet.setValue(2, 2, '非適格');
    const r = w.run('classifyPending');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    assert.equal(rowOf(w, keys.qualified).インボイス, '適格');
    assert.match(String(rowOf(w, keys.qualified).判定根拠), /インボイス: ルール#1/);
    assert.equal(rowOf(w, keys.undecided).インボイス, '適格');
    assert.match(String(rowOf(w, keys.undecided).判定根拠), /登録番号 T1010001000055/);
    const yamamoto = rowOf(w, keys.after);
    assert.equal(yamamoto.インボイス, '非適格');
    assert.equal(yamamoto.状態, '送信待ち');
    assert.match(String(yamamoto.判定根拠), /取引先インボイス 2行目/);
    w.run('postApproved');
    assert.equal(
      journalOf(w, keys.before)?.branches[0]?.debitor?.invoice_kind,
      'INVOICE_KIND_UNQUALIFIED_80',
    );

    const simple = world({ taxMethod: 'SIMPLE' });
    simple.w.run('setup');
    simple.w.addRules([
      {
        優先度: 2,
        一致方法: '部分一致',
        キーワード: 'ﾔﾏﾓﾄ',
        勘定科目: '外注費',
        自動承認: 'はい',
        有効: true,
      },
    ]);
    simple.w.run('classifyPending');
    const row = rowOf(simple.w, simple.keys.after);
    assert.equal(row.インボイス, '');
    assert.equal(row.状態, '送信待ち');
    assert.match(String(row.判定根拠), /判定不要（この事業者は簡易課税のため/);
  });
});

describe('reads of kinds the document does not list break nothing', () => {
  test('reconcile, 重複点検 and the dry run read journals carrying UNQUALIFIED_70', () => {
    const { w, keys } = world({ invoiceKindsOnWrite: 'mcp' });
    postAll(w, keys);
    assert.equal(journalOf(w, keys.after)?.branches[0]?.debitor?.invoice_kind, 'INVOICE_KIND_UNQUALIFIED_70');
    for (const name of ['reconcile', 'auditDuplicates', 'dryRun', 'openReview']) {
      const r = w.run(name);
      assert.equal(r.status, 'ok', `${name}: ${JSON.stringify(r.error)}`);
      assert.deepEqual(r.internalErrors, [], name);
    }
    // A 完了 row keeps its 指紋 (the インボイス column joined it) and is not "edited after posting".
    const dry = w.run('dryRun').value as { counts: Record<string, number> };
    assert.equal(dry.counts.編集済み, 0);
  });
});

describe('本番前チェック learns which 区分 MF takes, and posting uses it', () => {
  /** Asks, then ticks the posting question (the person's two clicks); the posting item's report. */
  function postingCheck(w: KichoWorld): { result: string; detail: string } {
    const asked = w.run('selfTest').value as {
      reports: { id: string; confirmId?: string; question?: string }[];
    };
    const q = asked.reports.find((r) => r.id === 'mf-posting');
    assert.ok(q?.question, JSON.stringify(q));
    const done = w.run('selfTestConfirm', { args: [[q.confirmId ?? q.id]] }).value as {
      reports: { id: string; result: string; detail: string }[];
    };
    const report = done.reports.find((r) => r.id === 'mf-posting');
    assert.ok(report);
    return report;
  }

  for (const [name, options, takes] of [
    ['the document’s MF: 70 % refused, and the next 70 % row is stopped unsent', {}, false],
    ['MF’s MCP world: 70 % taken, and the next 70 % row is sent', { invoiceKindsOnWrite: 'mcp' }, true],
  ] as const) {
    test(name, () => {
      const { w, keys, sent } = world(options);
      // Two rows wait: the one dated before the change, and the 70 % one, which the check picks.
      for (const key of [keys.before, keys.after]) {
        w.edit(key, '勘定科目', '外注費');
        w.edit(key, 'インボイス', '非適格');
        w.edit(key, '状態', '送信待ち');
      }
      const report = postingCheck(w);
      const seen = JSON.parse(w.emu.world.properties.script.get('KICHO_INVOICE_KINDS') ?? '{}');
      assert.equal(seen.INVOICE_KIND_UNQUALIFIED_70?.seen, takes ? 'accepted' : 'refused', report.detail);
      assert.equal(rowOf(w, keys.after).状態, takes ? '完了' : '失敗');
      if (!takes) assert.match(report.detail, /70%控除/);
      // A further 70 % purchase: sent where MF takes it, stopped before sending where it does not.
      w.edit(keys.undecided, '勘定科目', '外注費');
      w.edit(keys.undecided, 'インボイス', '非適格');
      w.edit(keys.undecided, '操作', '承認');
      const before = sent.length;
      w.run('postApproved');
      const row = rowOf(w, keys.undecided);
      assert.equal(row.状態, takes ? '完了' : '失敗');
      const requests = sent.slice(before).filter((r) => String(r.body).includes(keys.undecided.slice(3)));
      assert.equal(requests.length, takes ? 1 : 0);
    });
  }
});
