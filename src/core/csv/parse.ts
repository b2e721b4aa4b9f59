/**
 * RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks; records end with CRLF,
 * LF or CR; a leading BOM is dropped. Each record keeps the file line it starts on, because people
 * are told "line N" and look it up in the file they have.
 */

export interface CsvRecord {
  /** 1-based line of the file where the record starts. */
  line: number;
  fields: string[];
  /** The record as it appeared in the file (for messages). */
  text: string;
}

export interface CsvParse {
  records: CsvRecord[];
  /** A quote left open at the end of the file: the rest of the file is one broken field. */
  unterminatedAt: number | null;
  /** The field separator found in the file (banks also export tab- or semicolon-separated text). */
  delimiter: Delimiter;
}

export type Delimiter = ',' | '\t' | ';';

const CANDIDATES: readonly Delimiter[] = [',', '\t', ';'];
/** Lines looked at to tell the separator. */
const SAMPLE_LINES = 30;

/**
 * The separator of a file: the candidate that splits most of the first non-empty lines (outside
 * quotes) into the same number of fields; a comma unless another one clearly does better.
 */
export function detectDelimiter(text: string): Delimiter {
  const lines: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length && lines.length < SAMPLE_LINES; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    if (!quoted && (ch === '\n' || ch === '\r')) {
      if (current.trim() !== '') lines.push(current);
      current = '';
      continue;
    }
    // Quoted text cannot split a record: blank it out of the sample.
    current += quoted ? ' ' : ch;
  }
  if (current.trim() !== '' && lines.length < SAMPLE_LINES) lines.push(current);
  let best: Delimiter = ',';
  let bestScore = 0;
  for (const d of CANDIDATES) {
    const counts = lines.map((l) => l.split(d).length - 1).filter((n) => n > 0);
    if (counts.length === 0) continue;
    const freq = new Map<number, number>();
    for (const n of counts) freq.set(n, (freq.get(n) ?? 0) + 1);
    const score = Math.max(...freq.values());
    if (score > bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

export function parseCsv(input: string, delimiter?: Delimiter): CsvParse {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const sep = delimiter ?? detectDelimiter(text);
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let startLine = 1;
  let startIndex = 0;
  let unterminatedAt: number | null = null;
  const end = (i: number) => {
    fields.push(field);
    records.push({ line: startLine, fields, text: text.slice(startIndex, i) });
    fields = [];
    field = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i += 1;
        continue;
      }
      if (ch === '\n' || (ch === '\r' && text[i + 1] !== '\n')) line += 1;
      field += ch;
      i += 1;
      continue;
    }
    if (ch === '"' && field.trim() === '') {
      // A quote opens a quoted field only at its start (spaces before it are tolerated).
      field = '';
      quoted = true;
      i += 1;
    } else if (ch === sep) {
      fields.push(field);
      field = '';
      i += 1;
    } else if (ch === '\r' || ch === '\n') {
      end(i);
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line += 1;
      startLine = line;
      startIndex = i;
    } else {
      field += ch;
      i += 1;
    }
  }
  if (quoted) unterminatedAt = startLine;
  // The last record when the file does not end with a line break.
  if (field !== '' || fields.length > 0 || quoted) end(text.length);
  return { records, unterminatedAt, delimiter: sep };
}
