// Where the browser tests find Chromium and whether a Japanese font is there, shared by the set-up step
// (scripts/ensure-browser.mjs) and the tests (test/helpers/browser.ts), so both mean the same browser.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** Debian's package first (what CI and a fresh build machine get), then Chrome where people have it. */
const CANDIDATES = {
  linux: ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'],
  darwin: [
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  ],
  win32: [
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
  ],
};

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium to drive: CHROMIUM_PATH when set (even if it does not exist: the person chose it, and the
 * set-up step says so), otherwise the first installed candidate, otherwise null.
 */
export function chromiumPath(env = process.env, platform = process.platform) {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  return (CANDIDATES[platform] ?? []).find(executable) ?? null;
}

export function chromiumUsable(file) {
  return file !== null && executable(file);
}

/**
 * Screenshots show Japanese UI: without a CJK font every character is a box. On Linux fontconfig tells
 * (Chromium uses it); macOS and Windows ship Japanese fonts.
 */
export function japaneseFontPresent(platform = process.platform) {
  if (platform !== 'linux') return true;
  try {
    return execFileSync('fc-list', [':lang=ja', 'family'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}
