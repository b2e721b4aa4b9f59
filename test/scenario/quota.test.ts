/**
 * Daily quotas: a quota reached in the middle of a scheduled run stops it cleanly (nothing 不明 from a
 * request that was never sent), kicho's own usage record makes later runs shrink or skip before Google
 * stops them, and the 設定 dialog and ヘルプ show what the schedule costs a day.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type KichoWorld, kichoWorld, OWNER, records } from '../helpers/kicho';

function approve(w: KichoWorld, n: number): string[] {
  assert.equal(w.run('importTransactions').status, 'ok');
  const keys = w
    .ledger()
    .slice(0, n)
    .map((r) => String(r.キー));
  for (const key of keys) {
    w.edit(key, '勘定科目', '消耗品費');
    w.edit(key, '操作', '承認');
  }
  return keys;
}

const TOKYO_DAY = (t: number) => new Date(t + 9 * 3_600_000).toISOString().slice(0, 10);

function setUsage(w: KichoWorld, triggerMinutes: number, fetches = 0): void {
  const now = w.emu.world.clock.now();
  w.emu.world.properties
    .store('user', OWNER)
    .set(
      'KICHO_USAGE',
      JSON.stringify({ day: TOKYO_DAY(now), runs: 100, triggerMs: triggerMinutes * 60_000, fetches }),
    );
}

describe('daily quotas', () => {
  for (const quotaReset of ['rolling-24h', 'tokyo-midnight'] as const) {
    test(`the UrlFetch quota reached mid-run (${quotaReset}): the scheduled run stops, rows back to 送信待ち, nothing 不明`, () => {
      const w = kichoWorld({}, { quotaReset });
      w.setSetting('自動実行', 'オン');
      const keys = approve(w, 4);
      let posts = 0;
      w.emu.world.beforeCall = (_exec, call) => {
        const p = call.a[0] as { method?: string; url?: string } | undefined;
        if (call.s === 'fetch' && p?.method === 'post' && /journalize/.test(String(p.url)) && ++posts === 2) {
          const now = w.emu.world.clock.now();
          w.emu.world.quotas.use(OWNER, 'urlfetch', w.emu.world.quotas.left(OWNER, 'urlfetch', now), now);
        }
        return undefined;
      };
      const [run] = w.emu.advance(16 * 60_000);
      assert.equal(run.result.status, 'ok', JSON.stringify(run.result.error));
      const rows = w.ledger().filter((r) => keys.includes(String(r.キー)));
      assert.equal(rows.filter((r) => r.状態 === '完了').length, 1, 'the first send went through');
      assert.equal(rows.filter((r) => r.状態 === '送信待ち').length, 3);
      for (const r of rows.filter((x) => x.状態 === '送信待ち')) assert.equal(Number(r.試行回数 || 0), 0);
      assert.ok(!w.ledger().some((r) => r.状態 === '不明' || r.状態 === '送信中'));
      const log = records(w.emu, 'ログ').find((l) => l.処理 === '定期実行');
      assert.match(String(log?.メッセージ), /1日の外部接続（UrlFetch）の回数が上限/);
    });
  }

  test('kicho’s usage record: near the trigger-runtime quota a run only reconciles; nearer, it skips before Google ends it', () => {
    const w = kichoWorld();
    w.setSetting('自動実行', 'オン');
    approve(w, 2);
    // Earlier runs today spent 75 of the 90 minutes (Google counts them too).
    w.emu.world.quotas.use(OWNER, 'triggerRuntimeMs', 75 * 60_000, w.emu.world.clock.now());
    setUsage(w, 75);
    const [first] = w.emu.advance(16 * 60_000);
    assert.equal(first.result.status, 'ok');
    assert.match(JSON.stringify(first.result.value), /照合だけ行い、取込・判定・登録は休みました/);
    assert.equal(w.ledger().filter((r) => r.状態 === '完了').length, 0, 'nothing posted');
    assert.equal(w.ledger().filter((r) => r.操作 === '承認').length, 2, 'the approvals wait');

    w.emu.world.quotas.use(OWNER, 'triggerRuntimeMs', 11 * 60_000, w.emu.world.clock.now());
    setUsage(w, 86);
    const [second] = w.emu.advance(16 * 60_000);
    assert.equal(second.result.status, 'ok', 'stopped by kicho, not killed by Google');
    assert.match(JSON.stringify(second.result.value), /この回は休みました/);
    const log = records(w.emu, 'ログ')[0];
    assert.match(String(log.メッセージ), /この回は休みました/);
  });

  test('each scheduled run adds to the record (runs, runtime, fetches) for today', () => {
    const w = kichoWorld();
    w.setSetting('自動実行', 'オン');
    approve(w, 1);
    w.emu.advance(31 * 60_000);
    const usage = JSON.parse(String(w.emu.world.properties.store('user', OWNER).get('KICHO_USAGE'))) as {
      runs: number;
      triggerMs: number;
      fetches: number;
    };
    assert.equal(usage.runs, 2);
    assert.ok(usage.triggerMs > 0);
    assert.ok(usage.fetches >= 1, 'the post was counted');
  });

  test('the 設定 dialog and ヘルプ show the daily cost of the chosen interval and warn when it will not fit', () => {
    const w = kichoWorld();
    const form = w.run('settingsForm').value as {
      quota: {
        plans: {
          intervalMinutes: number;
          autoRun: boolean;
          runsPerDay: number;
          fits: boolean;
          text: string;
        }[];
      };
    };
    const five = form.quota.plans.find((p) => p.intervalMinutes === 5 && p.autoRun);
    assert.equal(five?.runsPerDay, 288);
    assert.equal(five?.fits, true);
    assert.match(String(five?.text), /1日 288 回/);
    // A heavy 台帳: this account's runs today took 25 s each.
    setUsage(w, (100 * 25) / 60, 300);
    const heavy = w.run('settingsForm').value as typeof form;
    const plan = heavy.quota.plans.find((p) => p.intervalMinutes === 5 && !p.autoRun);
    assert.equal(plan?.fits, false);
    assert.match(String(plan?.text), /上限を超えるおそれ/);
    assert.equal(heavy.quota.plans.find((p) => p.intervalMinutes === 30 && !p.autoRun)?.fits, true);
    w.run('openHelp');
    const help = w.emu.world.ui.events.filter((e) => e.type === 'modal').at(-1);
    assert.match(String(help?.html), /Google の1日の上限/);
    assert.match(String(help?.html), /1日 96 回/, 'the 15-minute default');
  });
});
