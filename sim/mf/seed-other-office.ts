// A second office for the one-office guard (DESIGN §5): a bookkeeper's other client, with books of its
// own. Built from the same generator under another seed, so its ids, lines and journals differ from the
// first office's, and renamed so that every message naming an office can be told apart.

import { buildDataset } from './seed';
import type { MfDataset } from './types';

export const OTHER_OFFICE_CODE = '8765-4321';
export const OTHER_OFFICE_NAME = '合同会社べつの帳簿';

/** Lines in the second office: enough to show an import would read them, few enough to stay cheap. */
const OTHER_LINES = 40;

export function otherOfficeDataset(seed: number): MfDataset {
  const dataset = buildDataset((seed + 7919) >>> 0, { lineCount: OTHER_LINES });
  return {
    ...dataset,
    office: { ...dataset.office, code: OTHER_OFFICE_CODE, name: OTHER_OFFICE_NAME },
  };
}
