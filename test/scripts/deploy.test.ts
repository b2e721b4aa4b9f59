/**
 * scripts/deploy.mjs against a stand-in for clasp (test/scripts/fake-clasp.mjs) that records every call,
 * and against the real clasp with no login: login, the Apps Script API and each script id are checked
 * before anything slow (issue 29), then the checks and pushes in order; one failing office named at the end
 * without stopping the others; nothing pushed when the office list or the project file is wrong; .clasp.json
 * written only after a push to its id succeeded.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  CHECKS,
  deploy,
  deployNew,
  deployOffices,
  localClasp,
  main,
  PROBE_ID,
  parseOffices,
  scriptIdFrom,
} from '../../scripts/deploy.mjs';
import { ROOT } from '../helpers/emulator';

const FAKE = path.join(ROOT, 'test', 'scripts', 'fake-clasp.mjs');
const ID_A = '1AaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaA';
const ID_B = '1BbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbB';
const ID_C = '1CcccccccccccccccccccccccccccccccccccccccccccccccccccccccC';

type Call = { step?: string; clasp?: string[]; project?: { scriptId: string; rootDir: string } | null };

let root: string;
let logFile: string;
let out: string[];

function fakeClasp(env: Record<string, string> = {}) {
  return {
    command: process.execPath,
    prefix: [FAKE],
    env: { ...process.env, FAKE_CLASP_LOG: logFile, ...env },
  };
}
/** The checks as the deploy script runs them, written to the same log as clasp's calls so order shows. */
function steps(name: string) {
  appendFileSync(logFile, `${JSON.stringify({ step: name })}\n`);
}
function calls(): Call[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}
function order(): string[] {
  return calls().map((c) => (c.step ? `npm run ${c.step}` : `clasp ${c.clasp?.join(' ')}`));
}
const log = (line: string) => out.push(line);
const LOGIN = 'clasp show-authorized-user --json';
const PROBE = 'clasp list-deployments -P .clasp.deploy.json';
const checks = () => CHECKS.map((s: string) => `npm run ${s}`);
/** The script ids the preflight asked Google about, in order. */
function probed(): string[] {
  return calls()
    .filter((c) => c.clasp?.[0] === 'list-deployments')
    .map((c) => String(c.project?.scriptId));
}
function errorsOf(run: (error: (m: string) => void) => number): { code: number; errors: string[] } {
  const errors: string[] = [];
  const code = run((m) => errors.push(m));
  return { code, errors };
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'kicho-deploy-'));
  logFile = path.join(root, 'calls.jsonl');
  out = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('npm run deploy:offices', () => {
  it('pushes the one build to every office in turn; a failing push does not stop the others and is named at the end', () => {
    writeFileSync(
      path.join(root, 'offices.json'),
      JSON.stringify([
        { name: '山田商店', scriptId: ID_A },
        { name: '佐藤税理士事務所', scriptId: ID_B },
        { name: '鈴木工務店', scriptId: ID_C },
      ]),
    );
    const errors: string[] = [];
    const code = main(['offices'], {
      root,
      clasp: fakeClasp({ FAKE_CLASP_PUSH_FAIL: ID_B }),
      steps,
      log,
      error: (m: string) => errors.push(m),
    });
    assert.equal(code, 1);
    const push = 'clasp push -f -P .clasp.deploy.json';
    assert.deepEqual(
      order(),
      [LOGIN, PROBE, PROBE, PROBE, ...checks(), push, push, push],
      'login and each id first, the checks once, then one push per office',
    );
    assert.deepEqual(probed(), [ID_A, ID_B, ID_C]);
    assert.deepEqual(
      calls()
        .filter((c) => c.clasp?.[0] === 'push')
        .map((c) => c.project),
      [ID_A, ID_B, ID_C].map((scriptId) => ({ scriptId, rootDir: 'dist' })),
      'each push saw its own office, in the listed order',
    );
    assert.match(errors.join('\n'), /配布できなかった事務所（1 件）/);
    assert.match(errors.join('\n'), new RegExp(`佐藤税理士事務所（${ID_B}）: Syntax error`));
    assert.doesNotMatch(errors.join('\n'), /山田商店|鈴木工務店/);
    assert.ok(out.includes('[1/3] 山田商店: 成功'));
    assert.ok(out.includes('[3/3] 鈴木工務店: 成功'));
    assert.ok(out.includes('3 件中 2 件に配布しました。'));
    assert.equal(
      existsSync(path.join(root, '.clasp.deploy.json')),
      false,
      'the per-office project file is removed',
    );
  });

  it('an office whose id Google does not know is named before the checks, and the others are still pushed', () => {
    writeFileSync(
      path.join(root, 'offices.json'),
      JSON.stringify([
        { name: '山田商店', scriptId: ID_A },
        { name: '佐藤税理士事務所', scriptId: ID_B },
      ]),
    );
    const { code, errors } = errorsOf((error) =>
      main(['offices'], { root, clasp: fakeClasp({ FAKE_CLASP_FAIL: ID_B }), steps, log, error }),
    );
    assert.equal(code, 1);
    const before = order().indexOf(checks()[0]);
    assert.ok(
      out.findIndex((l) => l.startsWith('佐藤税理士事務所: 配布しません')) >= 0 && before > 0,
      'named before the checks ran',
    );
    assert.deepEqual(
      calls()
        .filter((c) => c.clasp?.[0] === 'push')
        .map((c) => c.project?.scriptId),
      [ID_A],
    );
    assert.match(errors.join('\n'), /佐藤税理士事務所.*見つかりません/);
  });

  it('accepts an object name → script id', () => {
    writeFileSync(path.join(root, 'offices.json'), JSON.stringify({ 山田商店: ID_A, 鈴木工務店: ID_C }));
    const results = deployOffices({ root, clasp: fakeClasp(), steps, log });
    assert.deepEqual(
      results.map((r: { name: string; ok: boolean }) => [r.name, r.ok]),
      [
        ['山田商店', true],
        ['鈴木工務店', true],
      ],
    );
  });

  it('a wrong list pushes nowhere and runs no check: every problem is named with its position', () => {
    writeFileSync(
      path.join(root, 'offices.json'),
      JSON.stringify([
        { name: '山田商店', scriptId: ID_A },
        { name: '', scriptId: ID_B },
        { name: '鈴木工務店', scriptId: 'REPLACE_WITH_SCRIPT_ID' },
        { name: '山田商店', scriptId: ID_A },
      ]),
    );
    const errors: string[] = [];
    assert.equal(
      main(['offices'], { root, clasp: fakeClasp(), steps, log, error: (m: string) => errors.push(m) }),
      1,
    );
    assert.deepEqual(calls(), []);
    const text = errors.join('\n');
    assert.match(text, /どこにも配布しませんでした/);
    assert.match(text, /2 件目: name（事務所の名前）がありません/);
    assert.match(text, /3 件目（鈴木工務店）: scriptId「REPLACE_WITH_SCRIPT_ID」の形が正しくありません/);
    assert.match(text, /4 件目: 名前「山田商店」が 1 件目と同じです/);
    assert.match(text, /4 件目（山田商店）: scriptId が 1 件目と同じです/);
  });

  it('no offices.json: says how to make one', () => {
    const errors: string[] = [];
    assert.equal(
      main(['offices'], { root, clasp: fakeClasp(), steps, log, error: (m: string) => errors.push(m) }),
      1,
    );
    assert.match(errors[0], /offices\.example\.json をコピー/);
    assert.throws(() => parseOffices('{', 'offices.json'), /JSON として読めません/);
  });
});

describe('npm run deploy:new', () => {
  it('checks login and the Apps Script API first, then the checks, creates a spreadsheet with its bound script, builds again over what clasp pulled, pushes', () => {
    deployNew({ root, clasp: fakeClasp({ FAKE_CLASP_FAIL: PROBE_ID }), steps, log, title: '山田商店 記帳' });
    assert.deepEqual(order(), [
      LOGIN,
      PROBE,
      ...checks(),
      'clasp create --type sheets --title 山田商店 記帳 --rootDir dist',
      'npm run build',
      'clasp push -f',
    ]);
    assert.deepEqual(probed(), [PROBE_ID], 'an id no script has: "not found" means the API answered');
    assert.ok(out.some((l) => l.includes('https://docs.google.com/spreadsheets/d/fakeSheetId/edit')));
  });

  for (const [world, expected] of [
    [{ FAKE_CLASP_LOGIN: 'none' }, /clasp にログインしていません。`npx clasp login`/],
    [
      { FAKE_CLASP_API: 'off' },
      /Apps Script API がオフです。https:\/\/script\.google\.com\/home\/usersettings/,
    ],
    [
      { FAKE_CLASP_API: 'cloud-off' },
      /Google Cloud のプロジェクトで Apps Script API が無効です。https:\/\/console\.developers\.google\.com\/apis\/api\/script\.googleapis\.com\/overview\?project=1234567890 を開いて/,
    ],
  ] as const) {
    it(`stops in seconds, before any check, when ${JSON.stringify(world)}`, () => {
      const { code, errors } = errorsOf((error) =>
        main(['new'], { root, clasp: fakeClasp({ ...world, FAKE_CLASP_FAIL: PROBE_ID }), steps, log, error }),
      );
      assert.equal(code, 1);
      assert.match(errors[0], expected);
      assert.match(errors[0], /何も配布していません/);
      assert.ok(
        !order().some((o) => o.startsWith('npm run') || o.startsWith('clasp create')),
        order().join('\n'),
      );
      assert.equal(existsSync(path.join(root, '.clasp.json')), false);
    });
  }

  it('with a .clasp.json already there: stops before anything, instead of clasp’s silent "Project file already exists."', () => {
    writeFileSync(path.join(root, '.clasp.json'), JSON.stringify({ scriptId: ID_A, rootDir: 'dist' }));
    const errors: string[] = [];
    assert.equal(
      main(['new'], { root, clasp: fakeClasp(), steps, log, error: (m: string) => errors.push(m) }),
      1,
    );
    assert.deepEqual(calls(), []);
    assert.match(errors[0], new RegExp(`\\.clasp\\.json がすでにあります（scriptId ${ID_A}）`));
  });

  it('clasp exits 0 but creates nothing: nothing is pushed', () => {
    const errors: string[] = [];
    const code = main(['new'], {
      root,
      clasp: fakeClasp({ FAKE_CLASP_CREATE: 'silent', FAKE_CLASP_FAIL: PROBE_ID }),
      steps,
      log,
      error: (m: string) => errors.push(m),
    });
    assert.equal(code, 1);
    assert.ok(!order().includes('clasp push -f'));
    assert.match(errors[0], /作れませんでした.*何も配布していません/);
  });
});

describe('npm run deploy', () => {
  it('no .clasp.json: names both ways forward and pushes nothing', () => {
    const errors: string[] = [];
    assert.equal(
      main(['push'], { root, clasp: fakeClasp(), steps, log, error: (m: string) => errors.push(m) }),
      1,
    );
    assert.deepEqual(calls(), []);
    assert.match(errors[0], /npm run deploy:new/);
    assert.match(errors[0], /--script-id/);
  });

  it('the committed placeholder id is refused, saying where a real one is', () => {
    writeFileSync(
      path.join(root, '.clasp.json'),
      JSON.stringify({ scriptId: 'REPLACE_WITH_YOUR_SCRIPT_ID', rootDir: 'dist' }),
    );
    assert.throws(
      () => deploy({ root, clasp: fakeClasp(), steps, log }),
      /本物のスクリプト ID ではありません.*プロジェクトの設定/,
    );
    assert.deepEqual(calls(), []);
  });

  it('--script-id: the id is checked first, then the checks and the push; .clasp.json is written only after the push', () => {
    deploy({ root, clasp: fakeClasp(), steps, log, scriptId: ID_A });
    assert.deepEqual(JSON.parse(readFileSync(path.join(root, '.clasp.json'), 'utf8')), {
      scriptId: ID_A,
      rootDir: 'dist',
    });
    assert.deepEqual(order(), [LOGIN, PROBE, ...checks(), 'clasp push -f -P .clasp.deploy.json']);
    assert.deepEqual(probed(), [ID_A]);
    assert.equal(existsSync(path.join(root, '.clasp.deploy.json')), false);
    // Next time: `npm run deploy` alone uses the saved id.
    writeFileSync(logFile, '');
    deploy({ root, clasp: fakeClasp(), steps, log });
    assert.deepEqual(order(), [LOGIN, PROBE, ...checks(), 'clasp push -f']);
  });

  it('a mistyped id is explained in seconds (what a right one looks like, where to copy it) and never saved', () => {
    const { code, errors } = errorsOf((error) =>
      main(['push', '--script-id', ID_B], {
        root,
        clasp: fakeClasp({ FAKE_CLASP_FAIL: ID_B }),
        steps,
        log,
        error,
      }),
    );
    assert.equal(code, 1);
    assert.deepEqual(order(), [LOGIN, PROBE], 'no check, no push');
    assert.match(
      errors[0],
      new RegExp(
        `スクリプト ID「${ID_B}」のスクリプトが見つかりません（ログイン中のアカウント: owner@example\\.com）`,
      ),
    );
    assert.match(errors[0], /拡張機能 → Apps Script.*プロジェクトの設定.*スクリプト ID/);
    assert.match(errors[0], /50 文字ほど/);
    assert.equal(existsSync(path.join(root, '.clasp.json')), false, 'not saved');
    // So the right id afterwards is simply taken (no hidden file to find and delete).
    deploy({ root, clasp: fakeClasp({ FAKE_CLASP_FAIL: ID_B }), steps, log, scriptId: ID_A });
    assert.equal(JSON.parse(readFileSync(path.join(root, '.clasp.json'), 'utf8')).scriptId, ID_A);
  });

  it('a push that fails leaves no .clasp.json behind', () => {
    assert.throws(
      () => deploy({ root, clasp: fakeClasp({ FAKE_CLASP_PUSH_FAIL: ID_A }), steps, log, scriptId: ID_A }),
      /clasp push が失敗しました/,
    );
    assert.equal(existsSync(path.join(root, '.clasp.json')), false);
    assert.equal(existsSync(path.join(root, '.clasp.deploy.json')), false);
  });

  it('an id of the wrong shape, a spreadsheet URL, or the editor URL: refused with the explanation, or taken from the URL', () => {
    for (const bad of ['1abc', 'REPLACE_WITH_YOUR_SCRIPT_ID']) {
      const { code, errors } = errorsOf((error) =>
        main(['push', '--script-id', bad], { root, clasp: fakeClasp(), steps, log, error }),
      );
      assert.equal(code, 1);
      assert.match(errors[0], new RegExp(`スクリプト ID「${bad}」の形が正しくありません。スクリプト ID は`));
      assert.match(errors[0], /プロジェクトの設定/);
    }
    assert.throws(
      () => scriptIdFrom(`https://docs.google.com/spreadsheets/d/${ID_A.slice(0, 44)}/edit`),
      /スプレッドシートの URL です/,
    );
    assert.equal(scriptIdFrom(`https://script.google.com/home/projects/${ID_A}/edit`), ID_A);
    assert.equal(scriptIdFrom(`https://script.google.com/d/${ID_A}/edit?usp=sharing`), ID_A);
    assert.deepEqual(calls(), []);
  });

  it('another id than the saved one: checked and pushed, then saved, saying which it replaced', () => {
    writeFileSync(path.join(root, '.clasp.json'), JSON.stringify({ scriptId: ID_A, rootDir: 'dist' }));
    deploy({ root, clasp: fakeClasp(), steps, log, scriptId: ID_B });
    assert.equal(JSON.parse(readFileSync(path.join(root, '.clasp.json'), 'utf8')).scriptId, ID_B);
    assert.ok(out.some((l) => l.includes(`前は ${ID_A}`)));
  });

  it('no permission on the script: said before the checks', () => {
    assert.throws(
      () => deploy({ root, clasp: fakeClasp({ FAKE_CLASP_DENY: ID_A }), steps, log, scriptId: ID_A }),
      /編集する権限が、ログイン中のアカウントにありません/,
    );
    assert.deepEqual(order(), [LOGIN, PROBE]);
  });

  it('deploying needs no browser: the checks are typecheck, lint, build and the fast test levels', () => {
    assert.deepEqual(CHECKS, ['typecheck', 'lint', 'build', 'test:fast']);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.equal(pkg.scripts['test:fast'], 'node scripts/run-tests.mjs unit bundle scenario');
    for (const s of ['deploy', 'deploy:new', 'deploy:offices'])
      assert.match(pkg.scripts[s], /^node scripts\/deploy\.mjs/);
  });
});

describe('the real clasp, with no login', () => {
  // An empty home: no ~/.clasprc.json, so clasp stops at its own login check without the network.
  function realClasp() {
    const base = localClasp();
    return { ...base, env: { ...base.env, HOME: root, USERPROFILE: root } };
  }

  it('deploy stops at the login check, before any check or push, in Japanese', () => {
    writeFileSync(path.join(root, '.clasp.json'), JSON.stringify({ scriptId: ID_A, rootDir: 'dist' }));
    assert.throws(
      () => deploy({ root, clasp: realClasp(), steps, log }),
      /clasp にログインしていません。`npx clasp login`.*何も配布していません/,
    );
    assert.deepEqual(calls(), [], 'no npm step ran');
  });

  it('deploy:new stops at the login check too: no project file, nothing created', () => {
    assert.throws(() => deployNew({ root, clasp: realClasp(), steps, log }), /clasp にログインしていません/);
    assert.equal(existsSync(path.join(root, '.clasp.json')), false);
    assert.deepEqual(calls(), []);
  });

  it('the real clasp’s own answer to an API call without a login is what the preflight reads', () => {
    writeFileSync(path.join(root, '.clasp.deploy.json'), JSON.stringify({ scriptId: ID_A, rootDir: 'dist' }));
    const r = spawnSync(
      realClasp().command,
      [...realClasp().prefix, 'list-deployments', '-P', '.clasp.deploy.json'],
      { cwd: root, env: realClasp().env, encoding: 'utf8' },
    );
    assert.equal(r.status, 1);
    assert.match(`${r.stdout}${r.stderr}`, /No credentials found/);
  });
});

describe('the repository', () => {
  it('commits an example project file, never a real one', () => {
    const tracked = execFileSync(
      'git',
      ['ls-files', '.clasp.json', '.clasp.json.example', 'offices.json', 'offices.example.json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n');
    assert.deepEqual(tracked.sort(), ['.clasp.json.example', 'offices.example.json']);
    const ignored = execFileSync(
      'git',
      ['check-ignore', '.clasp.json', 'offices.json', '.clasp.deploy.json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    assert.equal(ignored.trim().split('\n').length, 3);
  });
});

describe('npm test’s browser set-up step', () => {
  it('a CHROMIUM_PATH that is not there stops at once with one line saying so, in Japanese and English', () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'ensure-browser.mjs')], {
        env: { ...process.env, CHROMIUM_PATH: path.join(root, 'no-chromium') },
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      failure = e as { status: number; stderr: string };
    }
    assert.equal(failure?.status, 1);
    const lines = failure.stderr.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(
      lines[0],
      /CHROMIUM_PATH=.*no-chromium は実行できるファイルではありません.*is not an executable/,
    );
  });
});
