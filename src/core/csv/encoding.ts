/**
 * Which charset a CSV file is in. Japanese banks and card companies mostly send Shift_JIS (really
 * Windows-31J/CP932, with ①, ㈱ and NEC/IBM extensions); newer ones send UTF-8, sometimes with a BOM.
 * A Shift_JIS file of Japanese text is practically never valid UTF-8 (its lead bytes 0x81–0x9F are
 * UTF-8 continuation bytes), so "valid UTF-8" is a safe test.
 */

export type CsvCharset = 'UTF-8' | 'Windows-31J' | 'UTF-16';

/** Bytes as Apps Script gives them (signed) or unsigned. */
export function hasUtf8Bom(bytes: ArrayLike<number>): boolean {
  return (
    bytes.length >= 3 &&
    (bytes[0] & 0xff) === 0xef &&
    (bytes[1] & 0xff) === 0xbb &&
    (bytes[2] & 0xff) === 0xbf
  );
}

/** Well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF). */
export function isValidUtf8(bytes: ArrayLike<number>): boolean {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] & 0xff;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
      cp = b & 0x07;
    } else return false;
    if (i + need >= bytes.length) return false;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k] & 0xff;
      if ((c & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += need + 1;
  }
  return true;
}

/**
 * A UTF-16 byte order mark (FF FE little-endian, FE FF big-endian): Excel's 「Unicode テキスト」 saves
 * UTF-16LE with a BOM, tab-separated (https://himorogi.hatenablog.com/entry/20141121/1416607915).
 */
export function hasUtf16Bom(bytes: ArrayLike<number>): boolean {
  if (bytes.length < 2) return false;
  const a = bytes[0] & 0xff;
  const b = bytes[1] & 0xff;
  return (a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff);
}

export function detectCharset(bytes: ArrayLike<number>): CsvCharset {
  if (hasUtf16Bom(bytes)) return 'UTF-16';
  return hasUtf8Bom(bytes) || isValidUtf8(bytes) ? 'UTF-8' : 'Windows-31J';
}

/** Japanese name of a charset for the dialog and the summary. */
export function charsetLabel(c: CsvCharset): string {
  if (c === 'UTF-16') return 'UTF-16（Unicode テキスト）';
  return c === 'UTF-8' ? 'UTF-8' : 'Shift_JIS';
}
