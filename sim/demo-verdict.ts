/**
 * What `npm start` tells a person (issue 29): MF ids as people read them, the service counters in words,
 * what the 残高照合 figures mean, and one verdict line at the end — OK with what was shown, or NG with why.
 */
import { canonicalId } from '../src/mf/ids';

/**
 * An MF id for the eye: MF's ids are percent-encoded strings (`…%2FWpP…%3D%3D`) and kicho stores and sends
 * them exactly so; shown, they are decoded once (`…/WpP…==`). Never used to store or look anything up.
 */
export function shownId(id: unknown): string {
  return canonicalId(String(id ?? ''));
}

/** MF ids in a message, decoded for display (an id is a run of base64 and percent escapes with one). */
export function withShownIds(text: string): string {
  return text.replace(/[A-Za-z0-9_\-+]*(?:%[0-9A-Fa-f]{2}[A-Za-z0-9_\-+]*)+/g, (id) => shownId(id));
}

export interface Counters {
  sheetsReads: number;
  sheetsWrites: number;
  flushes: number;
  urlFetches: number;
}

/** The per-step counters, in words (the legend is printed once, at the start). */
export function countersText(c: Counters, seconds: number): string {
  return `[シートの読み取り ${c.sheetsReads} 回・書き込み ${c.sheetsWrites} 回・書き込みの確定 ${c.flushes} 回、外部への接続 ${c.urlFetches} 回、Apps Script の時間 ${seconds.toFixed(1)} 秒（模擬）]`;
}

export const COUNTERS_LEGEND =
  '各手順の [ ] は、その実行が Google の 1 日の上限に数えられる呼び出しを何回使ったか（シート・外部への接続）と、本物の Apps Script ならかかる時間の目安です。';

/**
 * 残高照合's rows (シート「残高照合」) read back as a person should read the summary's counts: the month ends
 * of the import window [start, end] (the sheet keeps other months a CSV brought too).
 */
export function balancesReading(
  sheetRows: readonly Record<string, unknown>[],
  [start, end]: readonly [string, string],
): string[] {
  const rows = sheetRows.filter((r) => String(r.月末) >= start && String(r.月末) <= end);
  const compared = rows.filter((r) => r.差額 !== '' && r.差額 !== null && r.差額 !== undefined);
  const equal = compared.filter((r) => Number(r.差額) === 0).length;
  const notCompared = rows.length - compared.length;
  const lines = [
    `  読み方: ${rows.length} 件の月末のうち、明細の残高（CSV の残高の列か、人が入れた通帳残高）がわかる ${compared.length} 件だけを MF と比べました。`,
    `  残り ${notCompared} 件は比べる相手がないため比べていません（失敗ではありません。シートの「通帳残高」に月末の残高を入れると比べます）。`,
  ];
  lines.push(
    equal === 0
      ? `  「一致 0 件」は、比べた ${compared.length} 件のどれも MF と同じ額ではなかったという意味で、kicho の失敗ではありません。差額の理由はシートの「説明」にあります（台帳でまだ登録していない明細の分なら、登録すれば消えます）。`
      : `  「一致 ${equal} 件」は、比べた ${compared.length} 件のうち MF と同じ額だった月末の数です。`,
  );
  return lines;
}

export interface DemoFacts {
  ledgerRows: number;
  mfRows: number;
  csvRows: number;
  eventRows: number;
  done: number;
  review: number;
  /** Ledger keys with two or more MF journals: must be 0. */
  twice: number;
  /** Rows still 不明 after the scheduled reconcile: must be 0. */
  unknownLeft: number;
  /** Rows that went 不明 (commit, then timeout) and were settled by the reconcile. */
  settledUnknown: number;
  /** Steps that failed, or anything else that went wrong, in plain Japanese. */
  problems: string[];
}

/** The last line `npm start` prints. */
export function verdict(f: DemoFacts): string {
  const problems = [...f.problems];
  if (f.twice > 0) problems.push(`同じ明細に 2 件以上の仕訳があるものが ${f.twice} 件あります（二重登録）`);
  if (f.unknownLeft > 0) problems.push(`照合のあとも結果が「不明」の行が ${f.unknownLeft} 件残っています`);
  if (f.ledgerRows === 0) problems.push('台帳に行がありません');
  if (problems.length > 0) return `結果: NG — ${problems.join('。')}。`;
  return (
    `結果: OK — 台帳 ${f.ledgerRows} 行（MF の未仕訳明細 ${f.mfRows} 件・CSV ${f.csvRows} 行・他の自動化からのイベント ${f.eventRows} 件）のうち ` +
    `${f.done} 件を MF に一度ずつ登録し、同じ明細への二重登録は 0 件でした。` +
    (f.settledUnknown > 0
      ? `応答がタイムアウトした ${f.settledUnknown} 件も送り直さず、照合が MF で確かめて完了にしました。`
      : '') +
    `残る要確認 ${f.review} 件は人の確認待ちです（このデモでは承認していません）。`
  );
}
