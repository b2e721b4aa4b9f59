/**
 * Bytes of an uploaded CSV (base64 from the dialog) to text, with Apps Script's own charsets: the
 * browser never guesses the encoding, so the server decides once (core/csv/encoding.ts).
 */
import { type CsvCharset, detectCharset } from '../core/csv/encoding';

export function decodeCsvBase64(base64: string): { text: string; charset: CsvCharset } {
  const bytes = Utilities.base64Decode(base64);
  const charset = detectCharset(bytes);
  // Java's UTF-16 decoder reads the byte order from the BOM (Excel's Unicode テキスト is UTF-16LE).
  const text = Utilities.newBlob(bytes).getDataAsString(charset);
  // Java keeps a UTF-8 BOM as U+FEFF; the CSV parser drops it too, but the preview should not show it.
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, charset };
}
