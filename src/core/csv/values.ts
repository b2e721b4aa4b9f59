/**
 * Dates and amounts as Japanese bank and card CSVs write them. Every parser returns either a value
 * or the reason it could not read the text, in Japanese, so the person can fix the file.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const ERAS: Record<string, { offset: number; from: string; to: string }> = {
  // Era year 1 is offset+1; the first and last valid days keep 平成31年5月1日 from passing.
  R: { offset: 2018, from: '2019-05-01', to: '9999-12-31' },
  令和: { offset: 2018, from: '2019-05-01', to: '9999-12-31' },
  H: { offset: 1988, from: '1989-01-08', to: '2019-04-30' },
  平成: { offset: 1988, from: '1989-01-08', to: '2019-04-30' },
};

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function validDate(y: number, m: number, d: number): string | null {
  if (m < 1 || m > 12 || d < 1 || d > 31) return null;
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== m - 1 || t.getUTCDate() !== d) return null;
  return `${y}-${pad(m)}-${pad(d)}`;
}

const DATE_FORMS = '2026/05/01、2026-5-1、2026年5月1日、20260501、R8.5.1、令和8年5月1日';

/**
 * `2026/05/01`, `2026-5-1`, `2026.5.1`, `2026年5月1日`, `20260501`, `R8.5.1`, `令和8年5月1日`
 * (元年 too), 全角 digits; a time after the date (`2026/05/01 10:23`) is ignored. Yields yyyy-MM-dd.
 */
export function parseDate(raw: string): Parsed<string> {
  const text = raw.normalize('NFKC').trim();
  if (text === '') return { ok: false, reason: '日付が空です。' };
  const bad = {
    ok: false as const,
    reason: `日付「${raw.trim()}」を読めません（${DATE_FORMS} の形にしてください）。`,
  };
  const withoutTime = text.replace(/[ T]\d{1,2}:\d{2}(:\d{2})?$/, '');
  let m = /^(\d{4})[/\-.](\d{1,2})[/\-.](\d{1,2})$/.exec(withoutTime);
  if (!m) m = /^(\d{4})年(\d{1,2})月(\d{1,2})日$/.exec(withoutTime);
  if (!m) m = /^(\d{4})(\d{2})(\d{2})$/.exec(withoutTime);
  if (m) {
    const date = validDate(Number(m[1]), Number(m[2]), Number(m[3]));
    return date
      ? { ok: true, value: date }
      : { ok: false, reason: `日付「${raw.trim()}」は存在しない日です。` };
  }
  const era =
    /^(R|H|令和|平成)\s*(\d{1,2}|元)[.\-/年](\d{1,2})[.\-/月](\d{1,2})日?$/i.exec(withoutTime) ?? null;
  if (era) {
    const spec = ERAS[era[1].toUpperCase()] ?? ERAS[era[1]];
    const year = (era[2] === '元' ? 1 : Number(era[2])) + spec.offset;
    const date = validDate(year, Number(era[3]), Number(era[4]));
    if (!date || date < spec.from || date > spec.to)
      return { ok: false, reason: `日付「${raw.trim()}」は存在しない日です。` };
    return { ok: true, value: date };
  }
  return bad;
}

/**
 * A signed integer amount of yen: `1,200`, `¥1,200`, `1,200円`, `１２００` (全角), `-500`, `△500` and
 * `▲500` (Japanese minus), `(500)` (accounting minus), `+500`. Empty text is `null` (no amount in that
 * column). Decimals are refused: yen has none, and a decimal usually means the wrong column.
 */
export function parseAmount(raw: string): Parsed<number | null> {
  const text = raw
    .normalize('NFKC')
    .replace(/[\s\u3000]/g, '')
    .trim();
  if (text === '' || text === '-' || text === '―' || text === '－') return { ok: true, value: null };
  let body = text.replace(/^[¥\\￥]/, '').replace(/円$/, '');
  let negative = false;
  const paren = /^\((.*)\)$/.exec(body);
  if (paren) {
    negative = true;
    body = paren[1];
  } else if (/^[-−△▲]/.test(body)) {
    negative = true;
    body = body.slice(1);
  } else if (body.startsWith('+')) body = body.slice(1);
  body = body.replace(/^[¥\\￥]/, '').replace(/円$/, '');
  if (!/^(\d{1,3}(,\d{3})+|\d+)$/.test(body))
    return {
      ok: false,
      reason: `金額「${raw.trim()}」を読めません（数字だけ、または 1,200 の形にしてください）。`,
    };
  const n = Number(body.replace(/,/g, ''));
  if (!Number.isSafeInteger(n)) return { ok: false, reason: `金額「${raw.trim()}」が大きすぎます。` };
  return { ok: true, value: negative ? -n : n };
}
