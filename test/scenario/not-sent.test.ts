/**
 * Apps Script refuses some requests before anything leaves: a permission missing after granular
 * consent, the day's UrlFetch calls spent, the bandwidth throttle. Such a send is not 不明: the row goes
 * back to 送信待ち with its 試行回数 restored and a Japanese メモ, and the run stops. Reads that meet
 * them stop cleanly with a Japanese message.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SCOPE } from '../../sim/gas/authorization';
import type { World } from '../../sim/gas/world';
import { type KichoWorld, kichoWorld, OWNER, records } from '../helpers/kicho';

const WITHOUT_FETCH = [SCOPE.spreadsheetsCurrent, SCOPE.containerUi, SCOPE.scriptApp, SCOPE.email];

type Refusal = (world: World) => void;

const REFUSALS: Record<string, { apply: Refusal; memo: RegExp }> = {
  'permission unticked': {
    apply: (w) => w.grants.set(OWNER, WITHOUT_FETCH),
    memo: /外部サービスへの接続」が許可されていない/,
  },
  'daily UrlFetch quota': {
    apply: (w) =>
      w.quotas.use(OWNER, 'urlfetch', w.quotas.left(OWNER, 'urlfetch', w.clock.now()), w.clock.now()),
    memo: /1日の外部接続（UrlFetch）の回数が上限/,
  },
  'bandwidth throttle': {
    apply: (w) => {
      w.fetch.bandwidthExceeded = 1000;
    },
    memo: /通信量の上限/,
  },
};

function approvedWorld(n: number): { w: KichoWorld; keys: string[] } {
  const w = kichoWorld();
  assert.equal(w.run('importTransactions').status, 'ok');
  const keys = w
    .ledger()
    .slice(0, n)
    .map((r) => String(r.キー));
  for (const key of keys) {
    w.edit(key, '勘定科目', '消耗品費');
    w.edit(key, '操作', '承認');
  }
  return { w, keys };
}

/** Applies the refusal at the moment the run sends its first journal (mid-run, after the claim). */
function refuseAtFirstPost(w: KichoWorld, refusal: Refusal): void {
  let done = false;
  w.emu.world.beforeCall = (_exec, call) => {
    const p = call.a[0] as { method?: string; url?: string } | undefined;
    if (!done && call.s === 'fetch' && p?.method === 'post' && /journalize|journals/.test(String(p.url))) {
      done = true;
      refusal(w.emu.world);
    }
    return undefined;
  };
}

describe('a request Apps Script refused is not 不明', () => {
  for (const [name, { apply, memo }] of Object.entries(REFUSALS)) {
    test(`${name} during posting: rows back to 送信待ち, 試行回数 restored, メモ in Japanese, the run stops`, () => {
      const { w, keys } = approvedWorld(3);
      refuseAtFirstPost(w, apply);
      const journalsBefore = w.mf.journals().length;
      const r = w.run('postApproved');
      assert.equal(r.status, 'ok', JSON.stringify(r.error));
      const v = r.value as {
        ok: boolean;
        posted: number;
        unknown: number;
        returned: number;
        stoppedBy: string;
        messages: string[];
      };
      assert.equal(v.ok, false);
      assert.equal(v.stoppedBy, 'refused');
      assert.equal(v.unknown, 0);
      assert.equal(v.posted, 0);
      assert.equal(v.returned, 3);
      assert.match(v.messages.join(' '), memo);
      assert.equal(w.mf.journals().length, journalsBefore, 'nothing reached MF');
      const rows = w.ledger().filter((row) => keys.includes(String(row.キー)));
      for (const row of rows) {
        assert.equal(row.状態, '送信待ち', String(row.キー));
        assert.equal(Number(row.試行回数 || 0), 0, 'attempt restored');
      }
      assert.match(String(rows[0].メモ), memo);
      assert.ok(!w.ledger().some((row) => row.状態 === '不明' || row.状態 === '送信中'));
      assert.match(String(records(w.emu, 'ログ')[0].メッセージ), memo);
      // Once Apps Script lets requests through again, the same rows are sent once each.
      w.emu.world.beforeCall = undefined;
      w.emu.world.grants.grantAll(OWNER);
      w.emu.world.fetch.bandwidthExceeded = 0;
      w.emu.advance(25 * 60 * 60_000);
      const again = w.run('postApproved');
      assert.equal((again.value as { posted: number }).posted, 3, JSON.stringify(again.value));
    });
  }

  test('a reconcile or import that meets the daily quota stops with a Japanese message', () => {
    const { w } = approvedWorld(0);
    // A row whose send is unknown makes reconcile look it up in MF.
    const key = String(w.ledger()[0].キー);
    w.edit(key, '状態', '不明');
    w.edit(key, '試行回数', 1);
    w.edit(key, '更新日時', '2026-11-30T00:00:00.000Z');
    REFUSALS['daily UrlFetch quota'].apply(w.emu.world);
    for (const name of ['reconcile', 'importTransactions']) {
      const r = w.run(name);
      assert.equal(r.status, 'ok', JSON.stringify(r.error));
      const v = r.value as { ok: boolean; messages: string[] };
      assert.equal(v.ok, false, name);
      assert.match(v.messages.join(' '), /1日の外部接続（UrlFetch）の回数が上限/, name);
      assert.doesNotMatch(v.messages.join(' '), /Service invoked/, name);
    }
    assert.equal(w.ledger()[0].状態, '不明', 'the lookup did not happen: the row waits as it was');
  });
});
