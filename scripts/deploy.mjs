// Deploying kicho to Apps Script with clasp, from a terminal on Linux, macOS or Windows.
//
//   npm run deploy                       checks, then push to the script in .clasp.json
//   npm run deploy -- --script-id ID     the same, writing .clasp.json for that script first
//   npm run deploy:new [-- --title T]    checks, create a new spreadsheet with its bound script, push
//   npm run deploy:offices [-- --file F] checks once, then push the same build to every office in
//                                        offices.json (one failure does not stop the others)
//
// Deploying needs what deploying needs: typecheck, lint, build and the fast test levels (unit, bundle,
// scenario); no browser. The whole suite stays `npm test`. `.clasp.json` and `offices.json` are never
// committed (they name one person's scripts); `.clasp.json.example` and `offices.example.json` are.
// Pushing sends code only: script properties (MF keys, tokens, the office of each 台帳) stay with each
// script and are never copied from one office to another.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROJECT_FILE = '.clasp.json';
/** The per-office project file, in the project root: clasp resolves rootDir against its folder. */
const OFFICE_PROJECT_FILE = '.clasp.office.json';
const PLACEHOLDER = /REPLACE|YOUR|^x+$/i;
/** Apps Script ids are long base64url-like strings (57 characters today); this only catches typos. */
const SCRIPT_ID = /^[A-Za-z0-9_-]{20,}$/;

export class DeployError extends Error {}

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

/** Plain-Japanese hints for clasp's own English messages; clasp's text is shown as it is. */
const HINTS = [
  [
    /No credentials found/i,
    'clasp にログインしていません。`npx clasp login` を実行してから、もう一度どうぞ。',
  ],
  [
    /Apps Script API|has not enabled/i,
    'Apps Script API が有効になっていません。https://script.google.com/home/usersettings でオンにしてください。',
  ],
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

/**
 * `npm run deploy`: to the script named in .clasp.json (written from --script-id when asked).
 * @param {Deps & { scriptId?: string }} [options]
 */
export function deploy({
  root = ROOT,
  clasp = localClasp(),
  steps = npmStep,
  log = console.log,
  scriptId,
} = {}) {
  let project = readProject(root);
  if (scriptId !== undefined) {
    if (!SCRIPT_ID.test(scriptId))
      throw new DeployError(`スクリプト ID「${scriptId}」の形が正しくありません。`);
    if (project && realScriptId(project) && project.scriptId !== scriptId) {
      throw new DeployError(
        `${PROJECT_FILE} にはすでに別のスクリプト（${project.scriptId}）があります。別の事務所に配布するときは npm run deploy:offices を使うか、${PROJECT_FILE} を消してからどうぞ。`,
      );
    }
    project = { scriptId, rootDir: 'dist' };
    writeFileSync(path.join(root, PROJECT_FILE), `${JSON.stringify(project, null, 2)}\n`);
    log(`${PROJECT_FILE} を書きました（scriptId ${scriptId}）。`);
  }
  if (!project) {
    throw new DeployError(
      `${PROJECT_FILE} がありません。新しいスプレッドシートを作るなら npm run deploy:new、既存のスプレッドシートに入れるなら npm run deploy -- --script-id <スクリプト ID> を実行してください。`,
    );
  }
  if (!realScriptId(project)) {
    throw new DeployError(
      `${PROJECT_FILE} の scriptId「${project.scriptId ?? ''}」は本物のスクリプト ID ではありません。`,
    );
  }
  for (const s of CHECKS) steps(s);
  const pushed = pushTo(clasp, log, root);
  if (!pushed.ok) throw new DeployError('clasp push が失敗しました。上のメッセージを確かめてください。');
  log(`配布しました（scriptId ${project.scriptId}）。スプレッドシートを開き直すとメニュー「記帳」が出ます。`);
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
  for (const s of CHECKS) steps(s);
  const projectFile = path.join(root, OFFICE_PROJECT_FILE);
  const results = [];
  try {
    offices.forEach((o, i) => {
      log(`[${i + 1}/${offices.length}] ${o.name}（${o.scriptId}）に配布します…`);
      writeFileSync(projectFile, `${JSON.stringify({ scriptId: o.scriptId, rootDir: 'dist' }, null, 2)}\n`);
      const r = pushTo(clasp, log, root, OFFICE_PROJECT_FILE);
      const reason = r.ok ? '' : (r.output.trim().split('\n').pop() ?? '') || '理由不明';
      results.push({ ...o, ok: r.ok, reason });
      log(`[${i + 1}/${offices.length}] ${o.name}: ${r.ok ? '成功' : `失敗（${reason}）`}`);
    });
  } finally {
    rmSync(projectFile, { force: true });
  }
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
