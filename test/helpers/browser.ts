/**
 * Headless Chromium for the browser tests: Debian's chromium (installed by `npm test`'s first step,
 * scripts/ensure-browser.mjs, when missing) or CHROMIUM_PATH, driven by playwright-core. The flags keep
 * Chromium off the network this machine does not have.
 */
import { mkdirSync } from 'node:fs';
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

/** The viewport as the person sees it (a dialog has a fixed size), or the whole page. */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
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
