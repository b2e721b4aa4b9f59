/**
 * `npm start` as a person reads it (issue 29): it ends with one verdict line, shows MF ids decoded, and says
 * what its figures mean (残高照合's 「一致 0 件」 is not a failure; the counters are in words).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { balancesReading, type DemoFacts, shownId, verdict, withShownIds } from '../../sim/demo-verdict';
import { ROOT } from '../helpers/emulator';

function start(cwd = ROOT) {
  // What `npm start` runs after its build (tests run after `npm run build`, like every bundle test).
  const tsx = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return spawnSync(process.execPath, ['--import', tsx, path.join(ROOT, 'sim', 'demo.ts')], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, TZ: 'Asia/Tokyo' },
    timeout: 120_000,
  });
}

const OK: DemoFacts = {
  ledgerRows: 258,
  mfRows: 245,
  csvRows: 11,
  eventRows: 2,
  done: 131,
  review: 127,
  twice: 0,
  unknownLeft: 0,
  settledUnknown: 2,
  problems: [],
};

describe('npm start', () => {
  it('ends with one verdict line, shows no percent-encoded id, and explains its figures', () => {
    const r = start();
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    const last = lines[lines.length - 1];
    assert.match(last, /^結果: OK — 台帳 \d+ 行（MF の未仕訳明細 245 件・/);
    assert.match(last, /二重登録は 0 件/);
    assert.equal(lines.filter((l) => l.startsWith('結果:')).length, 1, 'one verdict');
    assert.doesNotMatch(r.stdout, /%2F|%2B|%3D/i, 'MF ids are shown decoded');
    assert.match(r.stdout, /削除した仕訳: [A-Za-z0-9+/]+={0,2}$/m);
    assert.match(
      r.stdout,
      /「一致 0 件」は、比べた \d+ 件のどれも MF と同じ額ではなかったという意味で、kicho の失敗ではありません/,
    );
    assert.match(r.stdout, /比べる相手がないため比べていません（失敗ではありません/);
    assert.doesNotMatch(r.stdout, /flush|UrlFetch/, 'counters in words, explained once');
    assert.match(r.stdout, /各手順の \[ \] は/);
  });

  it('a run that stops says NG with why, as its last line', () => {
    // No built bundle where it looks: the emulator cannot load dist/Code.js.
    const empty = mkdtempSync(path.join(tmpdir(), 'kicho-start-'));
    try {
      const r = start(empty);
      assert.equal(r.status, 1);
      const lines = r.stdout.trimEnd().split('\n');
      assert.match(lines[lines.length - 1], /^結果: NG — 途中で止まりました: /);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the verdict and what the figures mean', () => {
  it('OK names what was shown; any duplicate, unsettled 不明 or failed step makes it NG with why', () => {
    assert.match(verdict(OK), /^結果: OK — .*131 件を MF に一度ずつ登録し、同じ明細への二重登録は 0 件/);
    assert.match(verdict(OK), /要確認 127 件は人の確認待ち/);
    assert.match(
      verdict({ ...OK, twice: 1 }),
      /^結果: NG — 同じ明細に 2 件以上の仕訳があるものが 1 件あります（二重登録）/,
    );
    assert.match(verdict({ ...OK, unknownLeft: 2 }), /^結果: NG — 照合のあとも結果が「不明」の行が 2 件/);
    assert.match(
      verdict({ ...OK, problems: ['登録を実行 が失敗しました'] }),
      /^結果: NG — 登録を実行 が失敗しました/,
    );
  });

  it('an MF id is decoded once for the eye, and nothing else in a message changes', () => {
    assert.equal(shownId('%2FuZqQNH%2FWpPqvSF8NWXfBg%3D%3D'), '/uZqQNH/WpPqvSF8NWXfBg==');
    assert.equal(
      withShownIds('削除した仕訳: %2FuZqQNH%2FWpPqvSF8NWXfBg%3D%3D、BowMhLnFvzZ1y9TeF5%2B3QQ%3D%3D'),
      '削除した仕訳: /uZqQNH/WpPqvSF8NWXfBg==、BowMhLnFvzZ1y9TeF5+3QQ==',
    );
    const plain = '一致 0 件、差額あり 3 件（+498,790 円）。80 % の行';
    assert.equal(withShownIds(plain), plain);
  });

  it('残高照合: 「一致 0 件」 is read as no equal month among those compared, the rest as not compared', () => {
    const rows = [
      { 月末: '2026-05-31', 差額: -5500 },
      { 月末: '2026-06-30', 差額: '' },
      { 月末: '2026-07-31', 差額: 0 },
    ];
    const text = balancesReading(rows, ['2026-01-01', '2026-06-30']).join('\n');
    assert.match(text, /2 件の月末のうち、.*わかる 1 件だけを MF と比べました/);
    assert.match(text, /残り 1 件は比べる相手がない/);
    assert.match(text, /「一致 0 件」は、比べた 1 件のどれも MF と同じ額ではなかった/);
  });
});
