/**
 * The baseline for `npm run bench`: the posting job written the way a straightforward Apps Script
 * does it. Not part of kicho; the bench copies this file as Code.js into a project of its own.
 *
 * Per 未仕訳 line: look its key up in the 台帳 key column, append the row as 送信中, flush, send the
 * journalize request (with the same `kc-` tag kicho uses), write 状態 and MF仕訳ID one setValue each,
 * flush. It runs until every listed line is done or Apps Script kills it at 6 minutes; the next
 * execution starts again from the listing. Script properties: MF_API_KEY, MF_OFFICE_CODE,
 * IMPORT_START, IMPORT_END, and BENCH_LINE_LIMIT (a bench knob: stop after that many lines).
 */
const NAIVE_API = 'https://api-accounting.moneyforward.com/api/v3';
const NAIVE_AUTH = 'https://api.biz.moneyforward.com/auth/exchange';
// 台帳 columns (1-based), as laid out by kicho's setup.
const COL_STATE = 2;
const COL_JOURNAL_ID = 15;
const COL_MEMO = 20;

function naiveToken(apiKey) {
  const res = UrlFetchApp.fetch(NAIVE_AUTH, {
    method: 'post',
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  return JSON.parse(res.getContentText()).access_token;
}

// MF answers 429 above ~3 requests per second: wait a second and try again.
function naiveFetch(url, options) {
  for (let attempt = 0; ; attempt++) {
    const res = UrlFetchApp.fetch(url, { ...options, muteHttpExceptions: true });
    if (res.getResponseCode() !== 429 || attempt >= 3) return res;
    Utilities.sleep(1000);
  }
}

function naiveGet(token, office, path, query) {
  const url = `${NAIVE_API}${path}?office_code=${encodeURIComponent(office)}${query ? `&${query}` : ''}`;
  const res = naiveFetch(url, { headers: { Authorization: `Bearer ${token}` } });
  if (res.getResponseCode() !== 200) throw new Error(`MF ${path}: HTTP ${res.getResponseCode()}`);
  return JSON.parse(res.getContentText());
}

function naiveTag(key) {
  const bytes = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, key, Utilities.Charset.UTF_8);
  let hex = '';
  for (let i = 0; i < 8; i++) hex += ((bytes[i] + 256) % 256).toString(16).padStart(2, '0');
  return `kc-${hex}`;
}

function naiveLines(token, office, start, end) {
  let lines = [];
  for (let page = 1, pages = 1; page <= pages; page++) {
    const query = `start_date=${start}&end_date=${end}&journalizing_statuses=none&order=asc&per_page=500&page=${page}`;
    const body = naiveGet(token, office, '/transactions', query);
    lines = lines.concat(body.transactions);
    pages = body.transactions.length === 0 ? 0 : body.metadata.total_pages;
  }
  return lines;
}

// biome-ignore lint/correctness/noUnusedVariables: the entry point, called by name like any Apps Script function
function postAll() {
  const props = PropertiesService.getScriptProperties();
  const office = props.getProperty('MF_OFFICE_CODE');
  const limitText = props.getProperty('BENCH_LINE_LIMIT');
  const limit = limitText ? Number(limitText) : Number.POSITIVE_INFINITY;
  const token = naiveToken(props.getProperty('MF_API_KEY'));

  const account = naiveGet(token, office, '/accounts', '').accounts.find((a) => a.name === '消耗品費');
  const services = {};
  for (const c of naiveGet(token, office, '/connected_accounts', '').connected_accounts)
    services[c.id] = c.name;
  const lines = naiveLines(token, office, props.getProperty('IMPORT_START'), props.getProperty('IMPORT_END'));

  const sheet = SpreadsheetApp.getActive().getSheetByName('台帳');
  let done = 0;
  for (const line of lines) {
    if (done >= limit) break;
    const key = `mf:${line.id}`;
    const last = sheet.getLastRow();
    const keys = last > 1 ? sheet.getRange(2, 1, last - 1, 1).getValues() : [];
    if (keys.some((k) => k[0] === key)) continue;

    const now = new Date().toISOString();
    sheet.appendRow([
      key,
      '送信中',
      line.date,
      line.side === 'INCOME' ? '入金' : '出金',
      line.value,
      line.content || '',
      services[line.connected_account_id] || '',
      '消耗品費',
      '',
      '',
      '',
      '',
      'naive',
      '',
      '',
      1,
      now,
      now,
      '',
      '',
      line.id,
      '',
    ]);
    SpreadsheetApp.flush();
    const row = sheet.getLastRow();

    const res = naiveFetch(`${NAIVE_API}/transactions/journalize?office_code=${encodeURIComponent(office)}`, {
      method: 'post',
      contentType: 'application/json',
      headers: { Authorization: `Bearer ${token}` },
      payload: JSON.stringify({
        transaction_id: line.id,
        account_id: account.id,
        transaction_date: line.date,
        remark: (line.content || '').slice(0, 200),
        tags: [naiveTag(key)],
      }),
    });
    const code = res.getResponseCode();
    if (code >= 200 && code < 300) {
      sheet.getRange(row, COL_STATE).setValue('完了');
      sheet.getRange(row, COL_JOURNAL_ID).setValue(JSON.parse(res.getContentText()).journal.id);
    } else {
      sheet.getRange(row, COL_STATE).setValue('失敗');
      sheet.getRange(row, COL_MEMO).setValue(`HTTP ${code}`);
    }
    SpreadsheetApp.flush();
    done++;
  }
  return { done, listed: lines.length };
}
