/**
 * scripts/deploy.mjs against a stand-in for clasp (test/scripts/fake-clasp.mjs) that records every call,
 * and against the real clasp with no login: the order of checks and pushes, one failing office named at
 * the end without stopping the others, nothing pushed when the office list or the project file is wrong.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
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
  parseOffices,
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
      clasp: fakeClasp({ FAKE_CLASP_FAIL: ID_B }),
      steps,
      log,
      error: (m: string) => errors.push(m),
    });
    assert.equal(code, 1);
    const checks = CHECKS.map((s: string) => `npm run ${s}`);
    const push = 'clasp push -f -P .clasp.office.json';
    assert.deepEqual(order(), [...checks, push, push, push], 'checks once, then one push per office');
    assert.deepEqual(
      calls()
        .filter((c) => c.clasp)
        .map((c) => c.project),
      [ID_A, ID_B, ID_C].map((scriptId) => ({ scriptId, rootDir: 'dist' })),
      'each push saw its own office, in the listed order',
    );
    assert.match(errors.join('\n'), /配布できなかった事務所（1 件）/);
    assert.match(
      errors.join('\n'),
      new RegExp(`佐藤税理士事務所（${ID_B}）: Requested entity was not found`),
    );
    assert.doesNotMatch(errors.join('\n'), /山田商店|鈴木工務店/);
    assert.ok(out.includes('[1/3] 山田商店: 成功'));
    assert.ok(out.includes('[3/3] 鈴木工務店: 成功'));
    assert.ok(
      out.some((l) => l.includes('スクリプト ID が見つかりません')),
      'a Japanese hint for clasp’s message',
    );
    assert.ok(out.includes('3 件中 2 件に配布しました。'));
    assert.equal(
      existsSync(path.join(root, '.clasp.office.json')),
      false,
      'the per-office project file is removed',
    );
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
  it('checks, creates a spreadsheet with its bound script, builds again over what clasp pulled, pushes', () => {
    deployNew({ root, clasp: fakeClasp(), steps, log, title: '山田商店 記帳' });
    assert.deepEqual(order(), [
      ...CHECKS.map((s: string) => `npm run ${s}`),
      'clasp create --type sheets --title 山田商店 記帳 --rootDir dist',
      'npm run build',
      'clasp push -f',
    ]);
    assert.ok(out.some((l) => l.includes('https://docs.google.com/spreadsheets/d/fakeSheetId/edit')));
  });

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
      clasp: fakeClasp({ FAKE_CLASP_CREATE: 'silent' }),
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

  it('the committed placeholder id is refused', () => {
    writeFileSync(
      path.join(root, '.clasp.json'),
      JSON.stringify({ scriptId: 'REPLACE_WITH_YOUR_SCRIPT_ID', rootDir: 'dist' }),
    );
    assert.throws(
      () => deploy({ root, clasp: fakeClasp(), steps, log }),
      /本物のスクリプト ID ではありません/,
    );
    assert.deepEqual(calls(), []);
  });

  it('--script-id writes .clasp.json, then checks and pushes; a different id later is refused', () => {
    deploy({ root, clasp: fakeClasp(), steps, log, scriptId: ID_A });
    assert.deepEqual(JSON.parse(readFileSync(path.join(root, '.clasp.json'), 'utf8')), {
      scriptId: ID_A,
      rootDir: 'dist',
    });
    assert.deepEqual(order(), [...CHECKS.map((s: string) => `npm run ${s}`), 'clasp push -f']);
    assert.throws(() => deploy({ root, clasp: fakeClasp(), steps, log, scriptId: ID_B }), /別のスクリプト/);
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

  it('deploy reaches clasp push, which fails only for want of a login, with clasp’s own message and a hint', () => {
    writeFileSync(path.join(root, '.clasp.json'), JSON.stringify({ scriptId: ID_A, rootDir: 'dist' }));
    assert.throws(() => deploy({ root, clasp: realClasp(), steps, log }), /clasp push が失敗しました/);
    assert.ok(
      out.some((l) => /No credentials found/.test(l)),
      out.join('\n'),
    );
    assert.ok(out.some((l) => l.includes('npx clasp login')));
  });

  it('deploy:new reaches clasp create, which stops at the login: no project file, nothing pushed', () => {
    assert.throws(() => deployNew({ root, clasp: realClasp(), steps, log }), /作れませんでした/);
    assert.ok(
      out.some((l) => /No credentials found/.test(l)),
      out.join('\n'),
    );
    assert.equal(existsSync(path.join(root, '.clasp.json')), false);
    assert.deepEqual(
      order(),
      CHECKS.map((s: string) => `npm run ${s}`),
    );
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
      ['check-ignore', '.clasp.json', 'offices.json', '.clasp.office.json'],
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
