// Small katakana read as their full-size letters: bank statements write ｶ)ﾔﾏﾀﾞ in half-width kana without
// small letters, people write キャッシュ — both must compare equal after NFKC.

const LARGE: Record<string, string> = {
  ァ: 'ア',
  ィ: 'イ',
  ゥ: 'ウ',
  ェ: 'エ',
  ォ: 'オ',
  ッ: 'ツ',
  ャ: 'ヤ',
  ュ: 'ユ',
  ョ: 'ヨ',
  ヮ: 'ワ',
};

export function enlargeSmallKana(text: string): string {
  return text.replace(/[ァィゥェォッャュョヮ]/g, (c) => LARGE[c] ?? c);
}
