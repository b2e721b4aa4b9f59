/**
 * Scenarios the simulation once failed on, shrunk by fast-check and kept by name so that they run
 * on every build (test/sim/people-sort.test.ts, test/sim/mutants.test.ts).
 */
import type { Scenario } from './scenario';

const slot = (acts: Scenario['slots'][number]['acts']): Scenario['slots'][number] => ({
  jitter: 0,
  skip: false,
  menus: [],
  acts,
  faults: [],
  night: false,
});

/**
 * Three trigger runs; a person approves a row, then sorts the 台帳 inside a run's locked read–write
 * (needs `peopleAnytime`). Positional writes put classify's 送信待ち on a row already 完了.
 */
export const SORT_INSIDE_A_LOCKED_WRITE: Scenario = {
  data: { seed: 1, lines: 4 },
  interval: 5,
  permissive: true,
  lagMinutes: 0,
  batchLimit: 2,
  maxAttempts: 1,
  openEnd: false,
  writeThrough: false,
  schedule: { seed: 0, sticky: false },
  slots: [
    slot([{ offset: 304, act: { k: 'approve', pick: 0, account: 0, tax: false } }]),
    slot([{ offset: 243, act: { k: 'sort', column: 0, descending: false } }]),
    slot([]),
  ],
};
