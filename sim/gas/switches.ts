/**
 * The Sheets unknowns as one named world each (README "Switches"): what a leading apostrophe written
 * into an '@' (plain text) cell does, and whether '@' alone stops `=`. Tests and the simulation run the
 * product in each; `KICHO_SHEETS` chooses one for a whole test run (scripts/run-tests.mjs sets it).
 */
import type { PlainTextApostrophe } from './lib/coerce';
import type { WorldOptions } from './world';

export interface SheetsWorld {
  /** `kept-formula`, `kept-text`, `stripped-formula`, `stripped-text`. */
  name: string;
  plainTextApostrophe: PlainTextApostrophe;
  plainTextStopsFormulas: boolean;
}

function world(apostrophe: PlainTextApostrophe, stops: boolean): SheetsWorld {
  return {
    name: `${apostrophe}-${stops ? 'text' : 'formula'}`,
    plainTextApostrophe: apostrophe,
    plainTextStopsFormulas: stops,
  };
}

/** Every combination; the first is the emulator's default (the answers that break the most). */
export const SHEETS_WORLDS: readonly SheetsWorld[] = [
  world('kept', false),
  world('kept', true),
  world('stripped', false),
  world('stripped', true),
];

export function sheetsWorld(name: string): SheetsWorld {
  const found = SHEETS_WORLDS.find((w) => w.name === name);
  if (!found) {
    throw new Error(
      `KICHO_SHEETS=${name} は知らない組み合わせです（${SHEETS_WORLDS.map((w) => w.name).join(' / ')}）`,
    );
  }
  return found;
}

/** The world KICHO_SHEETS names, or undefined when it is not set. */
export function sheetsWorldFromEnv(env: NodeJS.ProcessEnv = process.env): SheetsWorld | undefined {
  const name = env.KICHO_SHEETS?.trim();
  return name ? sheetsWorld(name) : undefined;
}

/** The World options for `w` (nothing when undefined: the emulator's defaults). */
export function sheetsOptions(
  w: SheetsWorld | undefined,
): Pick<WorldOptions, 'plainTextApostrophe' | 'plainTextStopsFormulas'> {
  return w
    ? { plainTextApostrophe: w.plainTextApostrophe, plainTextStopsFormulas: w.plainTextStopsFormulas }
    : {};
}
