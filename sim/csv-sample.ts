/**
 * A card statement as a Japanese card company sends it: Shift_JIS (Windows-31J) bytes, CRLF, a
 * header of 利用日/利用店名/利用金額, and one line a person would have to fix (an unreadable amount).
 * Used by `npm start` (sim/demo.ts) to show the CSV import through the dialog's server targets.
 */
import iconv from 'iconv-lite';

export const SAMPLE_CARD_SOURCE = '○○カード';

export const SAMPLE_CARD_CSV = [
  '利用日,利用店名,利用金額,支払区分',
  '2026/05/02,ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ,"3,280",1回払い',
  '2026/05/08,ﾀｸｼｰ ﾄｳｷﾖｳ,"2,140",1回払い',
  '2026/05/08,ﾀｸｼｰ ﾄｳｷﾖｳ,"2,140",1回払い',
  '2026/05/12,ｽﾀｰﾊﾞﾂｸｽ ｼﾌﾞﾔ,７８０,1回払い',
  '2026/05/15,ﾖﾄﾞﾊﾞｼｶﾒﾗ,"12,8OO",1回払い',
  '2026/05/20,ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ,-980,返品',
  '',
].join('\r\n');

/** The file's bytes as the dialog reads them (base64 of Windows-31J). */
export function sampleCardCsvBase64(): string {
  return Buffer.from(iconv.encode(SAMPLE_CARD_CSV, 'cp932')).toString('base64');
}

export const SAMPLE_BANK_SOURCE = '○○信用金庫';

/**
 * A bank statement with a running 残高 (UTF-8 with a BOM, as net banks save it): an opening deposit, and
 * a withdrawal of 5,500 on 5/15 that is missing from the file, so line 5's balance does not add up.
 */
export const SAMPLE_BANK_CSV = [
  '\ufeff日付,摘要,出金,入金,残高',
  '2026/04/01,ｶｲｾﾂ ｼﾝｷ,,500000,500000',
  '2026/04/10,NTTﾄﾞｺﾓ,8800,,491200',
  '2026/04/25,ｽﾀｰﾊﾞﾂｸｽ ｼﾌﾞﾔ,1210,,489990',
  '2026/05/20,NTTﾄﾞｺﾓ,8800,,475690',
  '2026/06/10,ﾖﾄﾞﾊﾞｼｶﾒﾗ,32780,,442910',
  '2026/07/03,ｽﾀｰﾊﾞﾂｸｽ ｼﾌﾞﾔ,1210,,441700',
  '',
].join('\r\n');
