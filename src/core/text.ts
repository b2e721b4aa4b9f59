/**
 * Text normalisation for matching: NFKC folds 全角/半角 and kana width (ｱﾏｿﾞﾝ = アマゾン,
 * ＡＢＣ = ABC), then spaces are collapsed. Matching never depends on how a bank typed a name.
 */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim();
}

/** Case-insensitive form for keyword matching (after NFKC, so Ａ and a match). */
export function matchForm(text: string): string {
  return normalizeText(text).toLowerCase();
}

/**
 * At most `max` characters of `text`, counted as MF's document counts maxLength (code points): a cut never
 * splits a surrogate pair (𠮷, emoji), which would send half a character.
 */
export function truncateChars(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}
