/** What 本番前チェック saw MF do, and how kicho adapts to it (core/mf-behaviour.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  graceForLag,
  isKichoJournal,
  kichoJournalsLabel,
  type MfBehaviour,
  mfBehaviourWarnings,
  parseMfBehaviour,
} from '../../src/core/mf-behaviour';

const MINUTE = 60_000;
const at = '2026-11-30T00:00:00.000Z';

describe('graceForLag', () => {
  test('the default 15 minutes covers a lag of up to 5 minutes; longer lags count twice, plus 5, rounded up to 5', () => {
    assert.equal(graceForLag(0), 15);
    assert.equal(graceForLag(30_000), 15);
    assert.equal(graceForLag(5 * MINUTE), 15);
    assert.equal(graceForLag(5 * MINUTE + 1), 20);
    assert.equal(graceForLag(10 * MINUTE), 25);
    assert.equal(graceForLag(12 * MINUTE), 30);
    assert.equal(graceForLag(29 * MINUTE), 65);
    assert.equal(graceForLag(-1), 15);
  });

  test('whatever the lag, the grace is longer than the lag plus the time a send may follow its claim', () => {
    for (let lag = 0; lag <= 24 * 60 * MINUTE; lag += 7 * MINUTE + 13_000)
      assert.ok(graceForLag(lag) * MINUTE > lag + 5 * MINUTE, String(lag));
  });
});

describe('isKichoJournal', () => {
  const tagged = { tags: ['kc-0123456789abcdef'], transaction_id: null };
  const line = { tags: [], transaction_id: 'abc%2B' };
  const other = { tags: ['people-tag'], transaction_id: null };
  const apiLine = { tags: [], transaction_id: 'abc%2B', entered_by: 'JOURNAL_TYPE_EXTERNAL' };
  const feedLine = { tags: [], transaction_id: 'abc%2B', entered_by: 'JOURNAL_TYPE_DATA_LINKAGE' };
  test('by tag; a statement-line journal without one where journalize drops tags, or made through the API before the check', () => {
    const kept: MfBehaviour = { v: 1, at, journalizeTags: 'kept' };
    const dropped: MfBehaviour = { v: 1, at, journalizeTags: 'dropped' };
    for (const b of [null, kept, dropped]) assert.equal(isKichoJournal(tagged, b), true);
    assert.equal(isKichoJournal(line, null), false);
    assert.equal(isKichoJournal(line, kept), false);
    assert.equal(isKichoJournal(line, dropped), true);
    assert.equal(isKichoJournal(other, dropped), false);
    // Before 本番前チェック: an untagged statement-line journal counts when the API made it.
    assert.equal(isKichoJournal(apiLine, null), true);
    assert.equal(isKichoJournal(feedLine, null), false);
    assert.equal(isKichoJournal(apiLine, kept), false);
    assert.equal(isKichoJournal(feedLine, dropped), true);
    assert.match(kichoJournalsLabel(null), /API で明細から作られた仕訳/);
    assert.match(kichoJournalsLabel(dropped), /明細から作られた仕訳/);
    assert.doesNotMatch(kichoJournalsLabel(kept), /明細から/);
  });
});

describe('the record and the dry run', () => {
  test('parses what it wrote; anything else is nothing seen', () => {
    const b: MfBehaviour = { v: 1, at, journalizeTags: 'dropped', lagMs: 12 * MINUTE };
    assert.deepEqual(parseMfBehaviour(JSON.stringify(b)), b);
    for (const raw of [null, '', '{', '{"v":2,"at":"x"}', '{"v":1}'])
      assert.equal(parseMfBehaviour(raw), null);
  });

  test('warns when 照合猶予 is below what the lag seen needs, and when CSV lines cannot be reconciled', () => {
    assert.deepEqual(mfBehaviourWarnings(null, 15), []);
    const slow: MfBehaviour = { v: 1, at, lagMs: 12 * MINUTE };
    assert.match(
      mfBehaviourWarnings(slow, 15).join(),
      /照合猶予（分）が 15 分ですが.*約 12 分かかりました。30 分以上に/,
    );
    assert.deepEqual(mfBehaviourWarnings(slow, 30), []);
    assert.match(
      mfBehaviourWarnings({ v: 1, at, createTags: 'dropped' }, 15).join(),
      /CSV の取込と登録は行いません/,
    );
  });
});
