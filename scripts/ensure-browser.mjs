// First step of `npm test`: the browser tests need Chromium and a Japanese font. When they are missing on
// Debian/Ubuntu and we may install packages (root, or sudo without a password), install Debian's
// `chromium` and `fonts-noto-cjk`; otherwise stop at once with one line that names the command to run.
// Browser tests are never skipped: a missing browser is a failed `npm test`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromiumPath, chromiumUsable, japaneseFontPresent } from './browser.mjs';

const PACKAGES = { chromium: 'chromium', font: 'fonts-noto-cjk' };
const MANUAL = `sudo apt-get install -y ${PACKAGES.chromium} ${PACKAGES.font}`;

function missing() {
  const list = [];
  if (!chromiumUsable(chromiumPath())) list.push('chromium');
  if (!japaneseFontPresent()) list.push('font');
  return list;
}

function stop(line) {
  console.error(line);
  process.exit(1);
}

/** How to run apt-get with the rights it needs, or null when we may not. */
function privilege() {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) return null;
  if (typeof process.getuid === 'function' && process.getuid() === 0) return [];
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  return sudo.status === 0 ? ['sudo', '-n'] : null;
}

/** apt's own output only when it fails: a passing `npm test` should not scroll dpkg past the reader. */
function run(prefix, args) {
  const [cmd, ...rest] = [...prefix, ...args];
  const r = spawnSync(cmd, rest, {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (r.status !== 0) {
    const lines = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim().split('\n');
    console.error(lines.slice(-15).join('\n'));
  }
  return r.status === 0;
}

const before = missing();
if (before.length === 0) process.exit(0);

if (process.env.CHROMIUM_PATH && before.includes('chromium')) {
  stop(
    `CHROMIUM_PATH=${process.env.CHROMIUM_PATH} は実行できるファイルではありません。パスを直すか、CHROMIUM_PATH を外してください。 / CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable: fix it or unset it.`,
  );
}

const names = before.map((m) => PACKAGES[m]);
const prefix = privilege();
if (prefix === null) {
  const where =
    process.platform === 'linux'
      ? `次を実行してください: ${MANUAL} / run: ${MANUAL}`
      : 'Chromium か Google Chrome を入れるか、CHROMIUM_PATH にその実行ファイルを指定してください / install Chromium or Google Chrome, or set CHROMIUM_PATH to its executable';
  stop(`ブラウザーテストに ${names.join(' と ')} が必要です。${where} (or set CHROMIUM_PATH)`);
}

console.error(
  `ブラウザーテストのために ${names.join(' ')} を入れます（apt-get） / installing ${names.join(' ')} for the browser tests`,
);
const ok =
  run(prefix, ['apt-get', 'update', '-qq']) &&
  run(prefix, ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...names]);
const after = missing();
if (!ok || after.length > 0) {
  stop(
    `${after.map((m) => PACKAGES[m]).join(' と ') || names.join(' と ')} を入れられませんでした。次を実行してください: ${MANUAL} / could not install them: run ${MANUAL}`,
  );
}
console.error(`Chromium: ${chromiumPath()}`);
