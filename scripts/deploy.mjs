// Deploying kicho to Apps Script with clasp, from a terminal on Linux, macOS or Windows.
//
//   npm run deploy                       checks, then push to the script in .clasp.json
//   npm run deploy -- --script-id ID     the same, writing .clasp.json for that script first
//   npm run deploy:new [-- --title T]    checks, create a new spreadsheet with its bound script, push
//   npm run deploy:offices [-- --file F] checks once, then push the same build to every office in
//                                        offices.json (one failure does not stop the others)
//
// First, in seconds, what only Google can say (issue 29): clasp is logged in, the Apps Script API is on for
// the account, and each script id exists and this account may edit it (a read-only `clasp list-deployments`).
// Then what deploying needs: typecheck, lint, build and the fast test levels (unit, bundle, scenario); no
// browser. `.clasp.json` is written only after a push to that id succeeded, so a mistyped id is never kept. The whole suite stays `npm test`. `.clasp.json` and `offices.json` are never
// committed (they name one person's scripts); `.clasp.json.example` and `offices.example.json` are.
// Pushing sends code only: script properties (MF keys, tokens, the office of each 台帳) stay with each
// script and are never copied from one office to another.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROJECT_FILE = '.clasp.json';
/**
 * The project file for one check or push to an id not (yet) in .clasp.json, in the project root: clasp
 * resolves rootDir against its folder. Removed after each use; never committed.
 */
const TEMP_PROJECT_FILE = '.clasp.deploy.json';
const PLACEHOLDER = /REPLACE|YOUR|^x+$/i;
/** Apps Script ids are long base64url-like strings (57 characters today); this only catches typos. */
const SCRIPT_ID = /^[A-Za-z0-9_-]{20,}$/;

export class DeployError extends Error {}

/** Where a person finds a script id, and what one looks like: said with every id problem. */
export const WHERE_THE_ID_IS =
  'スクリプト ID は、スプレッドシートの「拡張機能 → Apps Script」で開くエディタの左の「⚙ プロジェクトの設定」→「ID」にある「スクリプト ID」です（右の「コピー」で写せます）。' +
  '英数字と - _ だけの 50 文字ほどの 1 行で、たとえば 1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdEfGhIjKlMnOpQrS のような形です。' +
  'スプレッドシートの URL の /d/ のあとの文字（スプレッドシートの ID）とは別のものです。';

/**
 * A script id as pasted: the id itself, or the script editor's URL (…/projects/ID/edit or …/d/ID/edit), from
 * which the id is taken. A spreadsheet's URL is refused: its id is not the script's.
 */
export function scriptIdFrom(text) {
  const t = String(text ?? '').trim();
  if (/docs\.google\.com\/spreadsheets\//.test(t))
    throw new DeployError(
      `「${t}」はスプレッドシートの URL です。配布先はスクリプト ID で指定します。${WHERE_THE_ID_IS}`,
    );
  const fromUrl = /script\.google\.com\/(?:home\/projects|d|macros\/d)\/([A-Za-z0-9_-]{20,})/.exec(t);
  const id = fromUrl ? fromUrl[1] : t;
  if (!SCRIPT_ID.test(id) || PLACEHOLDER.test(id))
    throw new DeployError(`スクリプト ID「${t}」の形が正しくありません。${WHERE_THE_ID_IS}`);
  return id;
}

/**
 * @typedef {{ command: string, prefix: string[], env: NodeJS.ProcessEnv }} Clasp how clasp is started
 * @typedef {{ root?: string, clasp?: Clasp, steps?: (name: string) => void, log?: (line: string) => void }} Deps
 */

/** The checks before any push, in order. */
export const CHECKS = ['typecheck', 'lint', 'build', 'test:fast'];

function npmStep(name) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['run', name], {
    cwd: ROOT,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (r.status !== 0)
    throw new DeployError(`npm run ${name} が失敗したため、配布しませんでした。上の出力を確かめてください。`);
}

/** clasp from this checkout's node_modules, run by the same Node (no global install, no shell). */
export function localClasp() {
  const bin = path.join(ROOT, 'node_modules', '@google', 'clasp', 'build', 'src', 'index.js');
  return { command: process.execPath, prefix: [bin], env: process.env };
}

const NOT_LOGGED_IN =
  'clasp にログインしていません。`npx clasp login` を実行するとブラウザーが開くので、スプレッドシートを持つ Google アカウントで許可してから、もう一度どうぞ。';
const API_OFF =
  'この Google アカウントでは Apps Script API がオフです。https://script.google.com/home/usersettings を開いて「Google Apps Script API」をオンにし、数分待ってからもう一度どうぞ。';

/** Plain-Japanese hints for clasp's own English messages; clasp's text is shown as it is. */
const HINTS = [
  [/No credentials found|Not logged in/i, NOT_LOGGED_IN],
  [/Apps Script API|has not enabled/i, API_OFF],
  [/Project file already exists/i, `${PROJECT_FILE} がすでにあります。`],
  [
    /Requested entity was not found|not found|404/i,
    'スクリプト ID が見つかりません。ID と、そのスクリプトを編集できるアカウントでログインしているかを確かめてください。',
  ],
  [/permission|403/i, 'このアカウントにはそのスクリプトを編集する権限がありません。'],
];

export function hintFor(output) {
  return HINTS.filter(([re]) => re.test(output)).map(([, text]) => text);
}

function runClasp(clasp, args, log, root) {
  const r = spawnSync(clasp.command, [...clasp.prefix, ...args], {
    cwd: root,
    env: clasp.env,
    encoding: 'utf8',
  });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `${r.error.message}\n` : ''}`;
  if (output.trim()) log(output.trimEnd());
  return { ok: r.status === 0, output };
}

function readProject(root) {
  const file = path.join(root, PROJECT_FILE);
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new DeployError(
      `${PROJECT_FILE} が JSON として読めません（${e.message}）。直すか、消してやり直してください。`,
    );
  }
}

function realScriptId(project) {
  const id = String(project?.scriptId ?? '');
  return SCRIPT_ID.test(id) && !PLACEHOLDER.test(id) ? id : null;
}

function pushTo(clasp, log, root, projectFile) {
  const args = ['push', '-f', ...(projectFile ? ['-P', projectFile] : [])];
  const result = runClasp(clasp, args, log, root);
  if (!result.ok) for (const h of hintFor(result.output)) log(h);
  return result;
}

function withTempProject(root, scriptId, fn) {
  const file = path.join(root, TEMP_PROJECT_FILE);
  writeFileSync(file, `${JSON.stringify({ scriptId, rootDir: 'dist' }, null, 2)}\n`);
  try {
    return fn(TEMP_PROJECT_FILE);
  } finally {
    rmSync(file, { force: true });
  }
}

/** Logged in to clasp? `show-authorized-user --json` reads the stored credentials (no network without them). */
function checkLogin(clasp, root) {
  const r = spawnSync(clasp.command, [...clasp.prefix, 'show-authorized-user', '--json'], {
    cwd: root,
    env: clasp.env,
    encoding: 'utf8',
    timeout: PREFLIGHT_TIMEOUT_MS,
  });
  let state = null;
  try {
    state = JSON.parse(r.stdout ?? '');
  } catch {
    state = null;
  }
  if (r.status !== 0 || !state) {
    throw new DeployError(
      `clasp にログインしているかを確かめられませんでした（${`${r.stderr ?? ''}${r.error?.message ?? ''}`.trim() || '答えがありません'}）。何も配布していません。`,
    );
  }
  if (!state.loggedIn) throw new DeployError(`${NOT_LOGGED_IN} 何も配布していません。`);
  return typeof state.email === 'string' ? state.email : '';
}

/** A preflight clasp call is a few seconds; a minute means the network is down, not that Google is slow. */
const PREFLIGHT_TIMEOUT_MS = 60_000;

/**
 * What Google says of one script id, read-only (`clasp list-deployments`, an Apps Script API call): 'ok',
 * 'api-off', 'not-found', 'denied', 'logged-out', or 'other' with clasp's text.
 */
export function probeScript(clasp, root, scriptId) {
  return withTempProject(root, scriptId, (projectFile) => {
    const r = spawnSync(clasp.command, [...clasp.prefix, 'list-deployments', '-P', projectFile], {
      cwd: root,
      env: clasp.env,
      encoding: 'utf8',
      timeout: PREFLIGHT_TIMEOUT_MS,
    });
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim();
    if (r.status === 0) return { kind: 'ok', output };
    // Two different switches: the account's (usersettings) and, with a custom OAuth client, its Cloud project's.
    if (/has not been used in project|it is disabled/i.test(output)) return { kind: 'cloud-api-off', output };
    if (/has not enabled|Apps Script API/i.test(output)) return { kind: 'api-off', output };
    if (/No credentials found/i.test(output)) return { kind: 'logged-out', output };
    if (/not found|404/i.test(output)) return { kind: 'not-found', output };
    if (/permission|403/i.test(output)) return { kind: 'denied', output };
    return { kind: 'other', output };
  });
}

/** What a person reads when an id fails the check, with what to do. */
export function probeProblem(scriptId, probe, email) {
  const account = email ? `（ログイン中のアカウント: ${email}）` : '';
  switch (probe.kind) {
    case 'api-off':
      return API_OFF;
    case 'cloud-api-off': {
      const url = /https:\/\/\S+/.exec(probe.output)?.[0]?.replace(/[.,)]+$/, '') ?? '';
      return `clasp が使う Google Cloud のプロジェクトで Apps Script API が無効です。${url ? `${url} を開いて` : 'Google Cloud コンソールで'}「有効にする」を押し、数分待ってからもう一度どうぞ。`;
    }
    case 'logged-out':
      return NOT_LOGGED_IN;
    case 'not-found':
      return `スクリプト ID「${scriptId}」のスクリプトが見つかりません${account}。ID の写し間違いか、そのスクリプトを持たない Google アカウントでログインしています。${WHERE_THE_ID_IS}`;
    case 'denied':
      return `スクリプト ID「${scriptId}」のスクリプトを編集する権限が、ログイン中のアカウントにありません${account}。スプレッドシートの持ち主か編集者のアカウントで \`npx clasp login\` をやり直してください。`;
    default:
      return `スクリプト ID「${scriptId}」を確かめられませんでした（${probe.output || '答えがありません'}）。ネットワークにつながっているか確かめてください。`;
  }
}

/**
 * The preflight before any check or push: login once, then each id. The Apps Script API being off or the
 * login missing stops everything; an id problem is returned for the caller (one office must not stop the others).
 */
function preflight(clasp, root, log, scriptIds) {
  log('配布の前に、clasp のログイン・Apps Script API・スクリプト ID を確かめます…');
  const email = checkLogin(clasp, root);
  const problems = new Map();
  for (const id of scriptIds) {
    const probe = probeScript(clasp, root, id);
    if (['api-off', 'cloud-api-off', 'logged-out'].includes(probe.kind))
      throw new DeployError(`${probeProblem(id, probe, email)} 何も配布していません。`);
    if (probe.kind !== 'ok') problems.set(id, { kind: probe.kind, text: probeProblem(id, probe, email) });
  }
  return { email, problems };
}

/**
 * Apps Script API on, for deploy:new (no script yet): a read-only call about an id no script has. Google
 * answers "not found" when the API is on and "has not enabled the Apps Script API" when it is off.
 */
export const PROBE_ID = '1kichoPreflightNoSuchScript0000000000000000000000000000000';

/**
 * `npm run deploy`: to the script named in .clasp.json, or in --script-id (then saved to .clasp.json once
 * the push succeeded).
 * @param {Deps & { scriptId?: string }} [options]
 */
export function deploy({
  root = ROOT,
  clasp = localClasp(),
  steps = npmStep,
  log = console.log,
  scriptId,
} = {}) {
  const project = readProject(root);
  const saved = project ? realScriptId(project) : null;
  if (project && !saved && scriptId === undefined) {
    throw new DeployError(
      `${PROJECT_FILE} の scriptId「${project.scriptId ?? ''}」は本物のスクリプト ID ではありません。npm run deploy -- --script-id <スクリプト ID> で指定してください。${WHERE_THE_ID_IS}`,
    );
  }
  const target = scriptId !== undefined ? scriptIdFrom(scriptId) : saved;
  if (!target) {
    throw new DeployError(
      `${PROJECT_FILE} がありません。新しいスプレッドシートを作るなら npm run deploy:new、既存のスプレッドシートに入れるなら npm run deploy -- --script-id <スクリプト ID> を実行してください。${WHERE_THE_ID_IS}`,
    );
  }
  const { problems } = preflight(clasp, root, log, [target]);
  if (problems.has(target)) throw new DeployError(`${problems.get(target).text} 何も配布していません。`);
  log(
    `確かめました（スクリプト ID ${target}）。続けて型検査・Lint・ビルド・テストを行います（数分かかります）。`,
  );
  for (const s of CHECKS) steps(s);
  const pushed =
    target === saved
      ? pushTo(clasp, log, root)
      : withTempProject(root, target, (file) => pushTo(clasp, log, root, file));
  if (!pushed.ok) throw new DeployError('clasp push が失敗しました。上のメッセージを確かめてください。');
  if (target !== saved) {
    // Only now: an id that never took a push is never kept.
    writeFileSync(
      path.join(root, PROJECT_FILE),
      `${JSON.stringify({ scriptId: target, rootDir: 'dist' }, null, 2)}\n`,
    );
    log(
      `${PROJECT_FILE} にスクリプト ID ${target} を書きました${saved ? `（前は ${saved}）` : ''}。次からは npm run deploy だけで更新できます。`,
    );
  }
  log(`配布しました（scriptId ${target}）。スプレッドシートを開き直すとメニュー「記帳」が出ます。`);
}

/**
 * `npm run deploy:new`: a new spreadsheet with its bound script, then the build pushed to it.
 * @param {Deps & { title?: string }} [options]
 */
export function deployNew({
  root = ROOT,
  clasp = localClasp(),
  steps = npmStep,
  log = console.log,
  title = '記帳',
} = {}) {
  const existing = readProject(root);
  if (existing) {
    throw new DeployError(
      `${PROJECT_FILE} がすでにあります（scriptId ${existing.scriptId ?? '?'}）。そのスクリプトに配布するなら npm run deploy、新しく作るなら ${PROJECT_FILE} を別の名前にしてからどうぞ。`,
    );
  }
  const { problems } = preflight(clasp, root, log, [PROBE_ID]);
  const probe = problems.get(PROBE_ID);
  // "Not found" is the answer wanted here (the API is on); anything else but ok is a reason to stop.
  if (probe && probe.kind !== 'not-found') throw new DeployError(`${probe.text} 何も配布していません。`);
  log('確かめました。続けて型検査・Lint・ビルド・テストを行います（数分かかります）。');
  for (const s of CHECKS) steps(s);
  const created = runClasp(
    clasp,
    ['create', '--type', 'sheets', '--title', title, '--rootDir', 'dist'],
    log,
    root,
  );
  // clasp can exit 0 without creating anything ("Project file already exists."): trust only the file it writes.
  const project = readProject(root);
  if (!created.ok || !realScriptId(project)) {
    for (const h of hintFor(created.output)) log(h);
    throw new DeployError(
      '新しいスプレッドシートを作れませんでした。上のメッセージを確かめてください。何も配布していません。',
    );
  }
  // clasp pulled the new project's default files into dist/: build again so our bundle is what is pushed.
  steps('build');
  const pushed = pushTo(clasp, log, root);
  if (!pushed.ok) {
    throw new DeployError(
      `スプレッドシートは作りましたが、配布に失敗しました（scriptId ${project.scriptId}）。原因を直してから npm run deploy を実行してください。`,
    );
  }
  const sheetUrl = project.parentId ? `https://docs.google.com/spreadsheets/d/${project.parentId}/edit` : '';
  log(
    `新しいスプレッドシートに配布しました。${sheetUrl ? `開く: ${sheetUrl} ` : ''}メニュー「記帳 → 初期設定」から始めてください。`,
  );
}

/**
 * offices.json: a list of {"name", "scriptId"} (or an object name → scriptId). Problems are reported
 * together, with the entry's position, before anything is pushed.
 */
export function parseOffices(text, file = 'offices.json') {
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new DeployError(`${file} が JSON として読めません（${e.message}）。`);
  }
  const list = Array.isArray(data)
    ? data
    : data && typeof data === 'object'
      ? Object.entries(data).map(([name, scriptId]) => ({ name, scriptId }))
      : null;
  if (!list) throw new DeployError(`${file} は事務所の一覧（[{"name": …, "scriptId": …}]）にしてください。`);
  const problems = [];
  const seenNames = new Map();
  const seenIds = new Map();
  list.forEach((o, i) => {
    const where = `${i + 1} 件目`;
    const name = String(o?.name ?? '').trim();
    const id = String(o?.scriptId ?? '').trim();
    if (!name) problems.push(`${where}: name（事務所の名前）がありません。`);
    if (!SCRIPT_ID.test(id) || PLACEHOLDER.test(id))
      problems.push(`${where}（${name || '名前なし'}）: scriptId「${id}」の形が正しくありません。`);
    if (name && seenNames.has(name))
      problems.push(`${where}: 名前「${name}」が ${seenNames.get(name)} 件目と同じです。`);
    if (id && seenIds.has(id))
      problems.push(`${where}（${name}）: scriptId が ${seenIds.get(id)} 件目と同じです。`);
    seenNames.set(name, i + 1);
    seenIds.set(id, i + 1);
  });
  if (list.length === 0) problems.push('事務所が 1 件もありません。');
  if (problems.length)
    throw new DeployError(`${file} に問題があるため、どこにも配布しませんでした:\n${problems.join('\n')}`);
  return list.map((o) => ({ name: String(o.name).trim(), scriptId: String(o.scriptId).trim() }));
}

/**
 * Pushes the one build to each office in turn; returns every result, failures named at the end.
 * @param {Deps & { file?: string }} [options]
 */
export function deployOffices({
  root = ROOT,
  clasp = localClasp(),
  steps = npmStep,
  log = console.log,
  file = 'offices.json',
} = {}) {
  const full = path.resolve(root, file);
  if (!existsSync(full)) {
    throw new DeployError(
      `${file} がありません。offices.example.json をコピーして、事務所ごとの名前とスクリプト ID を書いてください。`,
    );
  }
  const offices = parseOffices(readFileSync(full, 'utf8'), file);
  const { problems } = preflight(
    clasp,
    root,
    log,
    offices.map((o) => o.scriptId),
  );
  for (const o of offices)
    if (problems.has(o.scriptId)) log(`${o.name}: 配布しません — ${problems.get(o.scriptId).text}`);
  if (problems.size === offices.length)
    throw new DeployError('どの事務所のスクリプト ID も確かめられなかったため、何も配布していません。');
  log(
    `確かめました（${offices.length - problems.size} 件）。続けて型検査・Lint・ビルド・テストを行います（数分かかります）。`,
  );
  for (const s of CHECKS) steps(s);
  const results = [];
  offices.forEach((o, i) => {
    if (problems.has(o.scriptId)) {
      results.push({ ...o, ok: false, reason: problems.get(o.scriptId).text });
      return;
    }
    log(`[${i + 1}/${offices.length}] ${o.name}（${o.scriptId}）に配布します…`);
    const r = withTempProject(root, o.scriptId, (projectFile) => pushTo(clasp, log, root, projectFile));
    const reason = r.ok ? '' : (r.output.trim().split('\n').pop() ?? '') || '理由不明';
    results.push({ ...o, ok: r.ok, reason });
    log(`[${i + 1}/${offices.length}] ${o.name}: ${r.ok ? '成功' : `失敗（${reason}）`}`);
  });
  const failed = results.filter((r) => !r.ok);
  log(`${results.length} 件中 ${results.length - failed.length} 件に配布しました。`);
  if (failed.length) {
    throw new DeployError(
      `配布できなかった事務所（${failed.length} 件）:\n${failed.map((f) => `- ${f.name}（${f.scriptId}）: ${f.reason}`).join('\n')}`,
    );
  }
  return results;
}

function option(argv, name) {
  const i = argv.indexOf(name);
  if (i === -1) return undefined;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--'))
    throw new DeployError(`${name} の後に値を書いてください。`);
  return value;
}

/**
 * @param {string[]} argv
 * @param {Deps & { error?: (line: string) => void }} [deps]
 */
export function main(argv, deps = {}) {
  const [command = 'push', ...rest] = argv;
  try {
    if (command === 'push') deploy({ ...deps, scriptId: option(rest, '--script-id') });
    else if (command === 'new') deployNew({ ...deps, title: option(rest, '--title') ?? '記帳' });
    else if (command === 'offices')
      deployOffices({ ...deps, file: option(rest, '--file') ?? 'offices.json' });
    else throw new DeployError(`知らないコマンドです: ${command}（push / new / offices）`);
    return 0;
  } catch (e) {
    if (!(e instanceof DeployError)) throw e;
    (deps.error ?? console.error)(e.message);
    return 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(main(process.argv.slice(2)));
}
