/** The 本番前チェック framework: items, the confirm step, what is kept, what blocks and what the dry run says. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CheckItem,
  describeSelfTest,
  importBlockedBy,
  parseSelfTestRecord,
  postingBlockedBy,
  runChecks,
  selfTestRecord,
  selfTestWarnings,
} from '../../src/core/self-test';

interface Ctx {
  posted: string[];
}

const ok: CheckItem<Ctx> = {
  id: 'ok',
  group: 'Sheets',
  title: '読み書き',
  critical: true,
  run: () => ({ result: 'OK', detail: 'そのまま読めました。' }),
};

/** The kind of item the MF half adds: it does something real, so it asks first and names the line. */
const postOne: CheckItem<Ctx> = {
  id: 'post-one',
  group: 'MF',
  title: '1 件だけ登録',
  critical: true,
  confirm: () => '2026-05-01 ﾃｽｳﾘﾖｳ 440 円を MF に登録します。',
  run: (ctx) => {
    ctx.posted.push('mf:1');
    return { result: 'OK', detail: '登録して、2 回目は何も送られませんでした。' };
  },
};

const throws = (critical: boolean): CheckItem<Ctx> => ({
  id: `throws-${critical}`,
  group: 'Apps Script',
  title: critical ? 'ロック' : 'タイムゾーン',
  critical,
  run: () => {
    throw new Error('Service unavailable');
  },
});

const clock = () => '2026-11-30T00:15:00.000Z';

describe('runChecks', () => {
  test('an item that asks first is not run until confirmed; its question is reported instead', () => {
    const ctx: Ctx = { posted: [] };
    const first = runChecks([ok, postOne], ctx, new Set(), clock);
    assert.deepEqual(ctx.posted, []);
    assert.equal(first[1].result, '注意');
    assert.equal(first[1].question, '2026-05-01 ﾃｽｳﾘﾖｳ 440 円を MF に登録します。');
    assert.match(describeSelfTest(first), /確認待ち 1 件/);
    const record = selfTestRecord(first, clock(), 'a@example.com');
    assert.deepEqual(record.pending, ['MF: 1 件だけ登録']);
    assert.equal(record.passed, true);
    assert.match(selfTestWarnings(record).join(' '), /まだ行っていない項目があります: MF: 1 件だけ登録/);

    const second = runChecks([ok, postOne], ctx, new Set(['post-one']), clock);
    assert.deepEqual(ctx.posted, ['mf:1']);
    assert.equal(second[1].result, 'OK');
    assert.equal(second[1].question, undefined);
  });

  test('an error while checking is NG; it blocks posting only for an item the protocol relies on', () => {
    const reports = runChecks([throws(true), throws(false)], { posted: [] }, new Set(), clock);
    assert.deepEqual(
      reports.map((r) => [r.result, r.blocksPosting]),
      [
        ['NG', true],
        ['NG', false],
      ],
    );
    assert.match(reports[0].detail, /エラーになりました: Service unavailable/);
    const record = selfTestRecord(reports, clock(), '');
    assert.equal(record.passed, false);
    assert.deepEqual(
      record.blocking.map((b) => b.title),
      ['Apps Script: ロック'],
    );
    assert.deepEqual(record.ng, ['Apps Script: タイムゾーン']);
    const blocked = postingBlockedBy(record) ?? '';
    assert.match(
      blocked,
      /本番前チェック（2026-11-30 09:15）で.*登録を止めています: 「Apps Script: ロック」/,
    );
    assert.match(importBlockedBy(record) ?? '', /取込を止めています/);
    assert.match(describeSelfTest(reports), /NG が直るまで登録を止めます/);
  });

  test('an NG that does not block is not a block, but the check has not passed', () => {
    const record = selfTestRecord(
      runChecks([ok, throws(false)], { posted: [] }, new Set(), clock),
      clock(),
      '',
    );
    assert.equal(postingBlockedBy(record), null);
    assert.match(selfTestWarnings(record).join(' '), /合格していません（NG: Apps Script: タイムゾーン）/);
  });
});

describe('the record (KICHO_SELF_TEST)', () => {
  test('round-trips through JSON; anything else reads as no check', () => {
    const record = selfTestRecord(
      runChecks([ok], { posted: [] }, new Set(), clock),
      clock(),
      'a@example.com',
    );
    assert.deepEqual(parseSelfTestRecord(JSON.stringify(record)), record);
    for (const raw of [null, '', '{', '{"v":2}', '[]'])
      assert.equal(parseSelfTestRecord(raw), null, String(raw));
  });

  test('no check yet: the dry run asks for one and nothing is blocked', () => {
    assert.equal(postingBlockedBy(null), null);
    assert.match(selfTestWarnings(null).join(' '), /本番前チェックをまだ行っていません/);
    const passed = selfTestRecord(runChecks([ok], { posted: [] }, new Set(), clock), clock(), '');
    assert.deepEqual(selfTestWarnings(passed), []);
  });

  test('a long detail is cut so the record stays far below the 9 KB a property holds', () => {
    const long: CheckItem<Ctx> = {
      ...ok,
      run: () => ({ result: 'NG', detail: 'あ'.repeat(20_000), blocksPosting: true }),
    };
    const items = Array.from({ length: 10 }, (_, i) => ({ ...long, id: `x${i}` }));
    const record = selfTestRecord(runChecks(items, { posted: [] }, new Set(), clock), clock(), '');
    assert.ok(new TextEncoder().encode(JSON.stringify(record)).length < 9 * 1024);
  });
});
