/**
 * One 台帳, one office (DESIGN §5, §9.6; issue 12 §5). A bookkeeper keeps many clients: a spreadsheet
 * copied from one client's must never read from or post into another client's books. Connect office A,
 * import and post, switch the key to office B, run every entry point: nothing is read into or posted from
 * the wrong office, every run says why, and the guard costs at most one GET /offices per execution (none
 * in API-key mode, where the key names the office).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  OTHER_OFFICE_CODE,
  OTHER_OFFICE_NAME,
  TEST_API_KEY,
  TEST_API_KEY_OTHER,
  TEST_OFFICE_CODE,
} from '../../sim/mf/fake-mf';
import { TEST_OFFICE_NAME } from '../../sim/mf/seed';
import { remoteTagOf } from '../../src/core/keys';
import { type KichoWorld, kichoWorld, records } from '../helpers/kicho';

interface Summary {
  ok: boolean;
  messages: string[];
  [k: string]: unknown;
}

function summary(w: KichoWorld, name: string, options: Parameters<KichoWorld['run']>[1] = {}): Summary {
  const r = w.run(name, options);
  assert.equal(r.status, 'ok', `${name}: ${JSON.stringify(r.error)}`);
  return r.value as Summary;
}

/** Office A: imported, 5 rows approved and posted. */
function postedInOfficeA(): { w: KichoWorld; keys: string[] } {
  const w = kichoWorld({ otherOffice: true });
  summary(w, 'importTransactions');
  const keys = w
    .ledger()
    .slice(0, 5)
    .map((r) => String(r.キー));
  for (const key of keys) {
    w.edit(key, '勘定科目', '消耗品費');
    w.edit(key, '操作', '承認');
  }
  const posted = summary(w, 'postApproved');
  assert.equal(posted.posted, 5, JSON.stringify(posted));
  return { w, keys };
}

function switchKeyToOfficeB(w: KichoWorld): void {
  w.emu.world.properties.script.set('MF_API_KEY', TEST_API_KEY_OTHER);
  w.emu.world.properties.script.set('MF_OFFICE_CODE', OTHER_OFFICE_CODE);
  w.emu.world.properties.script.delete('MF_TOKEN_CACHE');
}

function kichoOffice(w: KichoWorld): { code: string; name: string; released?: boolean; scriptId?: string } {
  return JSON.parse(w.emu.world.properties.script.get('KICHO_OFFICE') ?? 'null');
}

/** The record without the script that made it (asserted on its own in the copy tests). */
function officeOf(w: KichoWorld): { code: string; name: string; released?: boolean } {
  const { scriptId: _made, ...rest } = kichoOffice(w);
  return rest;
}

const BOTH = new RegExp(`${TEST_OFFICE_NAME}.*${TEST_OFFICE_CODE}.*${OTHER_OFFICE_CODE}`, 's');

describe('one 台帳, one office', () => {
  test('the first successful connection records the office of the 台帳', () => {
    const { w } = postedInOfficeA();
    assert.deepEqual(officeOf(w), { code: TEST_OFFICE_CODE, name: TEST_OFFICE_NAME });
    assert.equal(kichoOffice(w).scriptId, w.emu.world.scriptId, 'the record names the script that made it');
  });

  test('with the key switched to office B, every entry point does nothing with MF and says why', () => {
    const { w, keys } = postedInOfficeA();
    const ledgerBefore = JSON.stringify(w.ledger());
    const journalsOfB = w.mf.journalsOf(OTHER_OFFICE_CODE).length;
    const journalsOfA = w.mf.journals().length;
    // Something is waiting to be sent, so that a guard that let postApproved through would show.
    const waiting = String(w.ledger()[6]?.キー);
    w.edit(waiting, '勘定科目', '消耗品費');
    w.edit(waiting, '操作', '承認');
    switchKeyToOfficeB(w);
    w.mf.clearRequestLog();

    const refused: [string, Summary][] = [];
    for (const name of ['importTransactions', 'postApproved', 'restoreLedgerFromMf', 'checkReceivables']) {
      refused.push([name, summary(w, name)]);
    }
    // reconcile has a row to look up only when one is 不明: make one.
    w.edit(keys[0] ?? '', '状態', '不明');
    refused.push(['reconcile', summary(w, 'reconcile')]);
    refused.push(['runScheduled', summary(w, 'runScheduled', { kind: 'trigger' })]);
    for (const [name, s] of refused) {
      assert.equal(s.ok, false, `${name} must fail: ${JSON.stringify(s)}`);
      assert.match(s.messages.join(' '), BOTH, `${name} names both offices`);
    }
    const dry = summary(w, 'dryRun');
    assert.match((dry.warnings as string[]).join(' '), BOTH, 'the dry run warns');
    const setup = summary(w, 'setup');
    assert.match(setup.messages.join(' '), /マスタは取得していません: この台帳は/);

    // Nothing was read from office B, nothing was posted to it, and the 台帳 holds no line of B.
    const apiCalls = w.mf.requestLog.filter((e) => e.path.startsWith('/api/v3/'));
    assert.deepEqual(apiCalls, [], 'no MF API call at all with the wrong office');
    assert.equal(w.mf.journalsOf(OTHER_OFFICE_CODE).length, journalsOfB);
    assert.equal(w.mf.journals().length, journalsOfA);
    const after = w.ledger();
    assert.equal(after.length, JSON.parse(ledgerBefore).length);
    const row = after.find((r) => r.キー === waiting);
    assert.ok(
      ['未判定', '送信待ち'].includes(String(row?.状態)),
      `the approved row stays unsent: ${row?.状態}`,
    );
    assert.equal(row?.MF仕訳ID, '');
    assert.ok(
      after.every((r) =>
        w.mf.journalsOf(OTHER_OFFICE_CODE).every((j) => !j.tags.includes(remoteTagOf(String(r.キー)))),
      ),
    );
    // ログ says it too, one line per run.
    assert.ok(
      records(w.emu, 'ログ').filter((l) => BOTH.test(String(l.内容 ?? JSON.stringify(l)))).length >= 6,
    );
  });

  test('OAuth: the guard asks MF for the office at most once per execution, and refuses office B', () => {
    const { w } = postedInOfficeA();
    w.emu.world.properties.script.delete('MF_API_KEY');
    w.emu.world.properties.script.delete('MF_OFFICE_CODE');
    w.emu.world.properties.script.set('MF_CLIENT_ID', 'kicho-test-client');
    w.emu.world.properties.script.set('MF_CLIENT_SECRET', 'kicho-test-secret');
    w.mf.setConsentOffice(OTHER_OFFICE_CODE);
    const saved = summary(w, 'saveOAuthClient', {
      args: ['kicho-test-client', 'kicho-test-secret', 'client_secret_post'],
    });
    const consent = w.mf.handle({ method: 'GET', url: String(saved.authorizationUrl), headers: {} });
    const back = new URL(consent.headers.Location ?? '');
    const page = JSON.stringify(w.emu.userCallback(Object.fromEntries(back.searchParams)).value);
    assert.match(page, /台帳と違う事業者が選ばれました/);
    assert.match(page, new RegExp(OTHER_OFFICE_NAME));
    assert.deepEqual(kichoOffice(w).code, TEST_OFFICE_CODE, 'a consent never moves the 台帳');

    for (const name of ['importTransactions', 'postApproved', 'checkReceivables']) {
      w.mf.clearRequestLog();
      const s = summary(w, name);
      assert.equal(s.ok, false);
      assert.match(s.messages.join(' '), new RegExp(`${TEST_OFFICE_CODE}.*${OTHER_OFFICE_NAME}`, 's'));
      const calls = w.mf.requestLog.filter((e) => e.path.startsWith('/api/v3/')).map((e) => e.path);
      assert.deepEqual(calls, ['/api/v3/offices'], `${name}: one /offices call and nothing else`);
    }
    // Back in office A, one /offices call serves the guard and every accounting-period split.
    w.mf.setConsentOffice(TEST_OFFICE_CODE);
    const again = summary(w, 'saveOAuthClient', {
      args: ['kicho-test-client', 'kicho-test-secret', 'client_secret_post'],
    });
    const consentA = w.mf.handle({ method: 'GET', url: String(again.authorizationUrl), headers: {} });
    w.emu.userCallback(Object.fromEntries(new URL(consentA.headers.Location ?? '').searchParams));
    w.mf.clearRequestLog();
    assert.equal(summary(w, 'importTransactions').ok, true);
    assert.equal(w.mf.requestLog.filter((e) => e.path === '/api/v3/offices').length, 1);
  });

  test('moving the 台帳 is explicit: 接続を解除, then a confirmation naming both offices, logged', () => {
    const { w } = postedInOfficeA();
    // Connected to A, a key of B is refused outright: disconnect first.
    const direct = summary(w, 'connectWithApiKey', { args: [TEST_API_KEY_OTHER, OTHER_OFFICE_CODE] });
    assert.equal(direct.ok, false);
    assert.match(String(direct.message), /先にメニュー「記帳 > 接続と設定 > 接続を解除」/);
    assert.equal(w.emu.world.properties.script.get('MF_API_KEY'), TEST_API_KEY);

    summary(w, 'disconnectMf');
    assert.equal(kichoOffice(w).released, true);
    const asked = summary(w, 'connectWithApiKey', { args: [TEST_API_KEY_OTHER, OTHER_OFFICE_CODE] });
    assert.equal(asked.ok, false);
    assert.match(
      String(asked.confirm),
      new RegExp(`${TEST_OFFICE_NAME}.*${OTHER_OFFICE_NAME}.*移しますか`, 's'),
    );
    assert.equal(
      w.emu.world.properties.script.get('MF_API_KEY'),
      undefined,
      'nothing saved before the answer',
    );

    const moved = summary(w, 'connectWithApiKey', { args: [TEST_API_KEY_OTHER, OTHER_OFFICE_CODE, true] });
    assert.equal(moved.ok, true, JSON.stringify(moved));
    assert.deepEqual(officeOf(w), { code: OTHER_OFFICE_CODE, name: OTHER_OFFICE_NAME });
    const log = JSON.stringify(records(w.emu, 'ログ'));
    assert.match(log, /台帳の事業者の変更/);
    assert.match(log, new RegExp(`${TEST_OFFICE_NAME}.*から.*${OTHER_OFFICE_NAME}.*に移しました`));
    assert.equal(summary(w, 'importTransactions').ok, true);
  });
});

/**
 * ファイル → コピーを作成 copies the bound script with a new script id, and perhaps its script properties
 * (undocumented): a copy that carries its original's connection must not read from or post into the
 * original's books. The emulator cannot copy a spreadsheet; a record made by another script id is what
 * a copy with copied properties sees.
 */
describe('a copied spreadsheet', () => {
  const ORIGINAL_SCRIPT = '1originalScriptOfTheCopiedSpreadsheetXXXXXXXXXXXXXXXXXX';

  function copiedFromOfficeA(): { w: KichoWorld; keys: string[] } {
    const posted = postedInOfficeA();
    const record = { ...kichoOffice(posted.w), scriptId: ORIGINAL_SCRIPT };
    posted.w.emu.world.properties.script.set('KICHO_OFFICE', JSON.stringify(record));
    return posted;
  }

  test('with its original’s key and office record, every entry point does nothing with MF and says why', () => {
    const { w, keys } = copiedFromOfficeA();
    const waiting = String(w.ledger()[6]?.キー);
    w.edit(waiting, '勘定科目', '消耗品費');
    w.edit(waiting, '操作', '承認');
    w.edit(keys[0] ?? '', '状態', '不明');
    const journals = w.mf.journals().length;
    w.mf.clearRequestLog();
    for (const [name, kind] of [
      ['importTransactions', 'menu'],
      ['postApproved', 'menu'],
      ['reconcile', 'menu'],
      ['runScheduled', 'trigger'],
    ] as const) {
      const s = summary(w, name, { kind });
      assert.equal(s.ok, false, `${name}: ${JSON.stringify(s)}`);
      assert.match(s.messages.join(' '), /別のスプレッドシート（コピーの元）/, name);
    }
    assert.deepEqual(
      w.mf.requestLog.filter((e) => e.path.startsWith('/api/v3/')),
      [],
      'not even a read from the original’s books',
    );
    assert.equal(w.mf.journals().length, journals);
    assert.equal(w.ledger().find((r) => r.キー === waiting)?.MF仕訳ID, '');
    // Typing the same key again in the copy does not take the connection over either.
    const again = summary(w, 'connectWithApiKey', { args: [TEST_API_KEY, TEST_OFFICE_CODE] });
    assert.equal(again.ok, false);
    assert.match(String(again.message), /接続を解除/);
    assert.match(
      String((summary(w, 'connectionStatus') as unknown as { message: string }).message),
      /コピーの元/,
    );
  });

  test('接続を解除, then connecting again, makes the connection this spreadsheet’s own', () => {
    const { w } = copiedFromOfficeA();
    summary(w, 'disconnectMf');
    const connected = summary(w, 'connectWithApiKey', { args: [TEST_API_KEY, TEST_OFFICE_CODE] });
    assert.equal(connected.ok, true, JSON.stringify(connected));
    assert.equal(kichoOffice(w).scriptId, w.emu.world.scriptId);
    assert.equal(summary(w, 'importTransactions').ok, true);
  });

  test('a record from the version before (no script id) is this script’s, and gains its id', () => {
    const { w } = postedInOfficeA();
    const { scriptId: _made, ...older } = kichoOffice(w);
    w.emu.world.properties.script.set('KICHO_OFFICE', JSON.stringify(older));
    assert.equal(summary(w, 'importTransactions').ok, true);
    assert.equal(kichoOffice(w).scriptId, w.emu.world.scriptId);
  });
});
