/** The code an execution loads: the guest services (built once from sim/gas/guest) and the bundle. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { buildSync } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
let guest: vm.Script | undefined;
let guestText: string | undefined;

/** The guest services' source as one classic script (es2019, like the bundle it serves). */
export function guestSource(): string {
  if (guestText === undefined) {
    const out = buildSync({
      entryPoints: [path.join(here, 'guest', 'index.ts')],
      bundle: true,
      format: 'iife',
      target: 'es2019',
      charset: 'utf8',
      write: false,
      platform: 'neutral',
    });
    guestText = out.outputFiles[0].text;
  }
  return guestText;
}

export function guestScript(): vm.Script {
  if (!guest) guest = new vm.Script(guestSource(), { filename: 'kicho-emulator-services.js' });
  return guest;
}

const bundles = new Map<string, { stamp: string; scripts: vm.Script[] }>();

/** Every *.js file of the built bundle, parsed as classic scripts (cached until a file changes). */
export function bundleScripts(dir: string): vm.Script[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort();
  if (files.length === 0) throw new Error(`No built bundle in ${dir}: run npm run build first`);
  const stamp = files.map((f) => `${f}:${statSync(path.join(dir, f)).mtimeMs}`).join('|');
  const cached = bundles.get(dir);
  if (cached && cached.stamp === stamp) return cached.scripts;
  const scripts = files.map((f) => new vm.Script(readFileSync(path.join(dir, f), 'utf8'), { filename: f }));
  bundles.set(dir, { stamp, scripts });
  return scripts;
}
