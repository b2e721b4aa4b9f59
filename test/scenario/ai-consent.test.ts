/**
 * AI 判定 is switched on only with a yes (issue 29): the 設定 dialog's save, run by name on the built bundle,
 * refuses AI判定 = a provider without the consent naming that provider, writes nothing, and says why; with
 * it, it saves and the ログ line says so. What the dialog shows comes from the same bundle.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AI_SENT } from '../../src/core/ai/disclosure';
import { kichoWorld, records } from '../helpers/kicho';

const setting = (w: ReturnType<typeof kichoWorld>, item: string) =>
  String(records(w.emu, '設定').find((r) => r.項目 === item)?.値);

describe('AI 判定 needs a yes', () => {
  test('without the yes (or a yes for another provider) nothing is saved; with it, saved and logged', () => {
    const w = kichoWorld();
    for (const consent of [undefined, '', 'anthropic']) {
      const refused = w.run('saveSettings', { args: [{ AI判定: 'openai', AI1日の上限: '50' }, consent] });
      assert.equal(refused.status, 'ok', JSON.stringify(refused.error));
      const v = refused.value as { ok: boolean; problems: Record<string, string>; message: string };
      assert.equal(v.ok, false, String(consent));
      assert.match(v.problems.AI判定, /同意のチェックを入れてください。保存していません/);
      assert.equal(setting(w, 'AI判定'), 'オフ');
      assert.equal(setting(w, 'AI1日の上限'), '200', 'no other value written either');
    }
    const saved = w.run('saveSettings', { args: [{ AI判定: 'openai' }, 'openai'] });
    const v = saved.value as { ok: boolean; message: string };
    assert.equal(v.ok, true, v.message);
    assert.equal(setting(w, 'AI判定'), 'openai');
    assert.match(
      v.message,
      /AI判定を openai にしました（AI に送る内容・送り先・費用の説明を確かめ、同意のうえ/,
    );
    assert.match(
      String(records(w.emu, 'ログ')[0].メッセージ ?? JSON.stringify(records(w.emu, 'ログ')[0])),
      /同意のうえ/,
    );
    // Saving again with the same provider asks nothing; another provider asks again; オフ never asks.
    const same = w.run('saveSettings', { args: [{ AI判定: 'openai', AI1回の上限: '10' }] }).value as {
      ok: boolean;
    };
    assert.equal(same.ok, true);
    const other = w.run('saveSettings', { args: [{ AI判定: 'gemini' }] }).value as { ok: boolean };
    assert.equal(other.ok, false);
    const off = w.run('saveSettings', { args: [{ AI判定: 'オフ' }] }).value as { ok: boolean };
    assert.equal(off.ok, true);
  });

  test('the dialog’s data says what is sent, to whom and what it costs, for each provider', () => {
    const w = kichoWorld();
    const form = w.run('settingsForm').value as {
      ai: {
        saved: string;
        disclosures: Record<
          string,
          { company: string; sent: string[]; keeps: string; cost: string; consentLabel: string }
        >;
      };
    };
    assert.equal(form.ai.saved, 'オフ');
    for (const p of ['openai', 'anthropic', 'gemini']) {
      const d = form.ai.disclosures[p];
      assert.deepEqual(d.sent, AI_SENT);
      assert.match(d.sent.join(''), /取引日・金額・入出金・摘要.*口座名/);
      assert.match(d.sent.join(''), /下 4 桁のほかを \*/);
      assert.match(d.cost, /1 日に多くても「AI1日の上限」の 200 回、1 か月で多くても約 6,200 回/);
      assert.match(d.cost, /有料のキー/);
      assert.match(
        d.consentLabel,
        new RegExp(`${d.company.replace(/[()（）]/g, '.')} に送ることに同意します`),
      );
      assert.match(d.keeps + d.cost, /https:\/\/|openai\.com/);
    }
  });
});
