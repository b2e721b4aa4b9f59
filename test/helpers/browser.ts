/**
 * Headless Chromium for the browser tests: Debian's chromium (installed by `npm test`'s first step,
 * scripts/ensure-browser.mjs, when missing) or CHROMIUM_PATH, driven by playwright-core. The flags keep
 * Chromium off the network this machine does not have.
 */

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { chromiumPath } from '../../scripts/browser.mjs';
import { ROOT } from './emulator';

/** The same browser the set-up step checked; never a silent skip when there is none. */
export const CHROMIUM = chromiumPath() ?? '/usr/bin/chromium';
/** Screenshots are test artifacts; the README's user guide uses copies in docs/images/. */
export const SCREENSHOTS = path.join(ROOT, 'out', 'screenshots');

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page the size of a Sheets sidebar (300 px wide) or dialog. */
export async function newPage(browser: Browser, size: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport: size, locale: 'ja-JP', deviceScaleFactor: 1 });
  return context.newPage();
}

/** The user guide's pictures: the committed copies of what these tests take (docs/guide links them). */
export const GUIDE_IMAGES = path.join(ROOT, 'docs', 'images');

/**
 * The renderer the committed pictures were taken with. Pictures differ between renderers in every glyph
 * (another font, other anti-aliasing), so they are compared only under this one: Debian's chromium with the
 * Noto CJK font, which is what CI and `npm test`'s set-up step install. Checked by major version.
 */
export const GUIDE_RENDERER = { chromiumMajor: 156, font: 'Noto Sans CJK JP' };

/**
 * Playwright's own screenshot comparator (pixelmatch with its anti-aliasing detection), as
 * `toHaveScreenshot` uses it. A pixel counts as different past the colour threshold 0.2; up to 20 such
 * pixels pass. The same chromium renders the same page to the same bytes (13 of the 16 pictures were
 * byte-identical when this check was written), so 20 pixels is room for a font hinting change, while one
 * changed character (≈ 60–150 pixels at 13 px) or a moved line fails.
 */
const COMPARE = { threshold: 0.2, maxDiffPixels: 20 };

type Comparator = (actual: Buffer, expected: Buffer, options: object) => { errorMessage: string } | null;
const comparator: Comparator = createRequire(import.meta.url)(
  'playwright-core/lib/coreBundle',
).utils.getComparator('image/png');

function currentFont(): string {
  try {
    return execFileSync('fc-match', [':lang=ja', 'family'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/**
 * Whether a picture taken here can be compared with the committed one, and why not. Under another renderer
 * the check cannot say anything: it is said once, not hidden.
 */
export function sameRenderer(browserVersion: string): { same: boolean; why: string } {
  const major = Number(/^(\d+)\./.exec(browserVersion)?.[1] ?? 0);
  const font = currentFont();
  const same = major === GUIDE_RENDERER.chromiumMajor && font === GUIDE_RENDERER.font;
  return {
    same,
    why: `the guide's pictures were taken with Chromium ${GUIDE_RENDERER.chromiumMajor} and ${GUIDE_RENDERER.font}; this machine has Chromium ${browserVersion} and ${font || 'no Japanese font'}`,
  };
}

/** Null when the two PNGs match within COMPARE, else what differs. */
export function compareImages(actual: Buffer, expected: Buffer): { errorMessage: string } | null {
  return comparator(actual, expected, COMPARE);
}

let warned = false;

/**
 * Compares a picture just taken with its committed copy in docs/images (when the guide has one): a stale
 * copy fails the test, naming how to renew it. KICHO_UPDATE_SCREENSHOTS=1 copies the new picture over.
 */
export function checkGuideImage(file: string, name: string, browserVersion: string): void {
  const committed = path.join(GUIDE_IMAGES, `${name}.png`);
  if (process.env.KICHO_UPDATE_SCREENSHOTS === '1') {
    if (existsSync(committed) || process.env.KICHO_NEW_SCREENSHOTS?.split(',').includes(name))
      copyFileSync(file, committed);
    return;
  }
  if (!existsSync(committed)) return;
  const renderer = sameRenderer(browserVersion);
  if (!renderer.same) {
    // Not a failure, even on CI: Debian updates chromium on its own schedule, and a security update must not
    // turn every browser test red. The comparison itself is tested in guide-images.test.ts.
    if (!warned) console.warn(`# not comparing the guide's pictures: ${renderer.why}`);
    warned = true;
    return;
  }
  const diff = compareImages(readFileSync(file), readFileSync(committed));
  if (diff)
    throw new Error(
      `docs/images/${name}.png is stale (${diff.errorMessage.trim()}). The new picture is ${path.relative(ROOT, file)}; ` +
        'renew the committed ones with KICHO_UPDATE_SCREENSHOTS=1 node scripts/run-tests.mjs browser, look at them, and commit.',
    );
}

/**
 * The viewport as the person sees it (a dialog has a fixed size), or the whole page; then, for a picture
 * the guide shows, the check that the committed copy is still what the test takes.
 */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  checkGuideImage(file, name, page.context().browser()?.version() ?? '');
  return file;
}

/** Waits until every google.script.run call the page started has answered. */
export async function settled(page: Page): Promise<void> {
  // A string: this runs in the page, and sim/test are typed for Node, not the DOM.
  await page.waitForFunction('!window.__gasPending');
}

/** One Chromium for the test file: launched before its tests, closed after them. */
export function sharedBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not launched yet');
    return browser;
  };
}
