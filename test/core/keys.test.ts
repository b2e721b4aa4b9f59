import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { fingerprint } from '../../src/core/fingerprint';
import { isMfKey, mfKey, remoteTagOf, transactionIdOf } from '../../src/core/keys';
import { sha256Hex } from '../../src/core/sha256';

describe('sha256', () => {
  test('matches node:crypto on any text, including kana, emoji and long input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (s) => {
        assert.equal(sha256Hex(s), createHash('sha256').update(s, 'utf8').digest('hex'));
      }),
      { numRuns: 300 },
    );
    const long = 'ｱﾏｿﾞﾝ'.repeat(5000);
    assert.equal(sha256Hex(long), createHash('sha256').update(long).digest('hex'));
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('keys and tags', () => {
  test('an MF key keeps the id exactly as MF sent it (already percent-encoded)', () => {
    const id = 'BowMhLnFvzZ1y9TeF5%2B3QQ%3D%3D';
    assert.equal(mfKey(id), `mf:${id}`);
    assert.equal(transactionIdOf(mfKey(id)), id);
    assert.ok(isMfKey(mfKey(id)));
  });

  test('the remote tag is kc- and 16 hex chars: 19 characters, within MF’s 20', () => {
    const tag = remoteTagOf('mf:abc');
    assert.match(tag, /^kc-[0-9a-f]{16}$/);
    assert.equal(tag.length, 19);
    assert.equal(tag, `kc-${createHash('sha256').update('mf:abc').digest('hex').slice(0, 16)}`);
  });

  test('the fingerprint changes when any business field changes, and only then', () => {
    const base = {
      取引日: '2026-10-01',
      入出金: '出金',
      金額: 1200,
      摘要: 'ｱﾏｿﾞﾝ',
      勘定科目: '消耗品費',
      補助科目: '',
      税区分: '課税仕入 10%',
      取引先: '',
    };
    const f = fingerprint(base);
    assert.equal(fingerprint({ ...base }), f);
    for (const k of Object.keys(base) as (keyof typeof base)[]) {
      const changed = { ...base, [k]: typeof base[k] === 'number' ? 1201 : `${base[k]}x` };
      assert.notEqual(fingerprint(changed), f, k);
    }
  });
});
