/**
 * What leaves the spreadsheet for an AI provider: statement text with account and card numbers
 * masked. A run of 6 or more digits (spaces or hyphens between groups count as one run, so
 * `1234-5678-9012-3456` is one card number) keeps only its last 4 digits.
 */

/** Digits, optionally in groups joined by one space or hyphen. Input is NFKC text (全角 digits folded). */
const DIGIT_RUN = /\d+(?:[- ]\d+)*/g;

/** Long enough to be an account, card or phone number rather than an amount or a date. */
const MASK_FROM_DIGITS = 6;
const KEEP_LAST = 4;

export function maskDigitRuns(text: string): string {
  return text.normalize('NFKC').replace(DIGIT_RUN, (run) => {
    const digits = run.replace(/\D/g, '').length;
    if (digits < MASK_FROM_DIGITS) return run;
    let toMask = digits - KEEP_LAST;
    return run.replace(/\d/g, (d) => {
      if (toMask <= 0) return d;
      toMask--;
      return '*';
    });
  });
}
