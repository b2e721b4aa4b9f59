/**
 * The lost-ledger guard (DESIGN §5), one decision and one wording for 登録 and its ドライラン: far fewer
 * 台帳 rows than the last run saw, or an empty 台帳 while MF holds kicho's journals, means rows went
 * missing, and posting them again would post twice.
 */
import { kichoJournalsLabel, type MfBehaviour } from './mf-behaviour';

/** Far fewer rows than the last run saw means rows went missing. */
export function ledgerLooksLost(rows: number, last: number): boolean {
  return last > 0 && (rows === 0 || rows < last / 2);
}

/** Journals MF holds that kicho counts as its own (isKichoJournal), asked when the 台帳 is empty. */
export interface KichoJournalsInMf {
  count: number;
  behaviour: MfBehaviour | null;
}

/**
 * Why posting stops because the 台帳 looks lost, or null. `inMf` is null when MF was not asked (the
 * 台帳 is not empty) or could not be asked.
 */
export function lostLedgerReason(rows: number, last: number, inMf: KichoJournalsInMf | null): string | null {
  if (ledgerLooksLost(rows, last)) return LOST_LEDGER_MSG.shrunk(last, rows);
  if (rows === 0 && inMf && inMf.count > 0) return LOST_LEDGER_MSG.emptyButInMf(inMf);
  return null;
}

export const LOST_LEDGER_MSG = {
  shrunk: (last: number, rows: number) =>
    `台帳の行が前回（${last} 行）より大きく減っています（今 ${rows} 行）。二重登録を防ぐため、登録は止めます。行を元に戻すか、メニュー「台帳を復元」を実行してください。`,
  emptyButInMf: (inMf: KichoJournalsInMf) =>
    `台帳が空ですが、MFには ${kichoJournalsLabel(inMf.behaviour)}が ${inMf.count} 件あります。二重登録を防ぐため、登録は止めます。メニュー「台帳を復元」を実行してください。`,
} as const;
