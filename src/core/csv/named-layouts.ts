/**
 * The statement layouts of named Japanese banks and card companies, as data (issue 26). Each one says how
 * the file is recognised (its header row, or — for card files with no header — the holder line with the
 * card number), which columns hold the date, the description and the amount, which lines belong to the
 * layout (account details, holder lines, totals, notices), and what a sign means. Every layout names the
 * public evidence it is written from and how sure that evidence is; a bank or card with no public evidence
 * of its file has no layout here (README: 対応している銀行・カード). Adding one is data, a sample in
 * sim/csv-layout-samples.ts and nothing else: the tests run every sample.
 *
 * Column names are compared after NFKC, with spaces removed and a trailing (円) / (¥) dropped, so
 * 出金金額（円） and 出金金額(円) are one name.
 */
/** The side of a statement line. */
export type Direction = '入金' | '出金';

/** Header names one column may carry (any of them), or a 0-based position in a file with no header. */
export type ColumnSpec = readonly string[] | number;

export type DateSpec = ColumnSpec | { year: ColumnSpec; month: ColumnSpec; day: ColumnSpec };

export type AmountSpec =
  | { withdrawal: ColumnSpec; deposit: ColumnSpec }
  | {
      /** The amount column; further columns are read, in order, when it is empty. */
      signed: readonly ColumnSpec[];
      /** What a positive amount means. */
      positive: Direction;
      /**
       * What a minus means: `opposite` where the evidence shows the bank writes the other direction that
       * way (楽天銀行's 入出金 column); `refuse` where nothing shows it — the line is not imported and is
       * reported by number, never turned into the other direction on a guess.
       */
      negative: 'opposite' | 'refuse';
    };

export type Confidence = '高' | '中' | '低';

export interface NamedLayout {
  /** Stable id (the dialog sends it; saved formats name the layout by `name`). */
  id: string;
  /** Shown in the preview: 「三菱UFJ銀行の明細として読みました」. */
  name: string;
  /** A card layout's new 取込元 gets a card account (未払金), a bank's 普通預金. */
  kind: 'bank' | 'card';
  /**
   * No header row: a line whose fields match these patterns (null = any text) is the holder line that
   * marks the file, and every such line is part of the layout. Columns are then positions.
   */
  holder?: readonly (RegExp | null)[];
  date: DateSpec;
  /** Joined with a space, empty parts left out, so rules and AI see both the kind and the counterparty. */
  description: readonly ColumnSpec[];
  amount: AmountSpec;
  balance?: ColumnSpec;
  /** Header names that must also be present to recognise the file (besides the columns above). */
  also?: readonly (readonly string[])[];
  /** Lines of the layout below the header (matched on the fields joined with ','), never a dated line. */
  layoutLines?: readonly RegExp[];
  /** A line that opens a section whose amounts are written positive but mean the other direction. */
  reversedSection?: RegExp;
  /** What the bank sends (the samples are written in it; the reader detects UTF-8, Shift_JIS, UTF-16). */
  charset: 'Shift_JIS' | 'UTF-8 (BOM)' | '不明';
  /** Where the layout comes from. */
  evidence: readonly string[];
  confidence: Confidence;
  /** Cards or banks that send the same file. */
  shares?: string;
  /** What the evidence leaves open. */
  notes?: string;
}

const F2M = 'tmurakam/felica2money defs/CsvRules.xml@030db00ab3dcb856c8a22a1e0e23186a2c9eba7c';
const ZAIM = 'yukihiko-shinoda/zaim-csv-converter tests/testresources';

// A card number as holder lines print it: 4980-****-****-****, 0000-0000-0000-0***.
const CARD_NUMBER = /^[0-9*＊]{4}-[0-9*＊]{2,4}-?[0-9*＊]{0,4}-?[0-9*＊]{0,4}$/;

export const NAMED_LAYOUTS: readonly NamedLayout[] = [
  // ---- banks ----
  {
    id: 'mufg',
    name: '三菱UFJ銀行',
    kind: 'bank',
    date: ['日付'],
    description: [['摘要'], ['摘要内容']],
    amount: { withdrawal: ['支払い金額'], deposit: ['預かり金額'] },
    balance: ['差引残高'],
    charset: 'Shift_JIS',
    evidence: [
      `${F2M} (MitsubishiTokyoUFJ: "日付","摘要","摘要内容","支払い金額","預かり金額","差引残高")`,
      `${ZAIM}/test_zaim_csv_converter/csvinput_test_success/mufg202304.csv (…,"メモ","未資金化区分","入払区分")`,
      'public code index file #6458574062 (Perl test fixture of 三菱東京UFJダイレクト, 2012, same header)',
    ],
    confidence: '高',
    notes: '摘要 is the kind (振込ＩＢ１, カ−ド), 摘要内容 the counterparty: both are joined.',
  },
  {
    id: 'smbc',
    name: '三井住友銀行',
    kind: 'bank',
    date: ['年月日'],
    description: [['お取り扱い内容']],
    amount: { withdrawal: ['お引出し'], deposit: ['お預入れ'] },
    balance: ['残高'],
    charset: 'Shift_JIS',
    evidence: [
      'public code index files #61710197443 (「実際のCSVフォーマット（文字コード: Shift-JIS）」年月日,お引出し,お預入れ,お取り扱い内容,残高,メモ,ラベル), #66288959388, #67487722556, #53227300964 (same header, several projects)',
    ],
    confidence: '高',
  },
  {
    id: 'smbc-wareki',
    name: '三井住友銀行（和暦の旧形式）',
    kind: 'bank',
    date: ['年月日（和暦）'],
    description: [['お取り扱い内容']],
    amount: { withdrawal: ['お引出し'], deposit: ['お預入れ'] },
    balance: ['残高'],
    charset: 'Shift_JIS',
    evidence: [
      'public code index file #7001429506 (cp932; header "年月日（和暦）","お引出し","お預入れ","お取り扱い内容","残高"; dates H30.01.05 read as 平成)',
    ],
    confidence: '中',
    notes: 'One source. Dates are 和暦 (H30.01.05); 令和 dates (R1.05.01) are read the same way.',
  },
  {
    id: 'mizuho',
    name: 'みずほ銀行',
    kind: 'bank',
    date: ['日付'],
    description: [['お取引内容']],
    amount: { withdrawal: ['お引出金額'], deposit: ['お預入金額'] },
    balance: ['残高'],
    charset: 'Shift_JIS',
    evidence: [
      'public code index file #10036716039 (a household importer: shift-jis, 9 lines above the header, 日付 as 2026.04.01, お預入金額 / お引出金額 / お取引内容)',
      'public code index files #2655418201, #66054717794 (same column names, Shift_JIS)',
    ],
    confidence: '中',
    notes:
      'The column names are confirmed by three sources; their order and the text of the 9 lines above the header are not (the sample uses the order 日付,お引出金額,お預入金額,お取引内容,残高).',
  },
  {
    id: 'yucho',
    name: 'ゆうちょ銀行',
    kind: 'bank',
    date: ['取引日'],
    description: [['詳細１'], ['詳細２']],
    amount: { withdrawal: ['払出金額'], deposit: ['受入金額'] },
    balance: ['現在（貸付）高'],
    also: [['入出金明細ＩＤ']],
    charset: 'Shift_JIS',
    evidence: [
      'public code index file #60507628537 (fixture: お客さま口座情報 / 現在高 / 出力日時：令和 08 年… / お客さま口座番号 / 照会対象 / 明細件数 above 取引日,入出金明細ＩＤ,受入金額（円）,払出金額（円）,詳細１,詳細２,現在（貸付）高)',
      'public code index files #16355448430, #13577609193, #39429956146 (same header, yyyyMMdd dates, cp932)',
    ],
    confidence: '高',
    notes: '詳細１ is the kind (送金, 振込), 詳細２ the counterparty: both are joined.',
  },
  {
    id: 'rakuten-bank',
    name: '楽天銀行',
    kind: 'bank',
    date: ['取引日'],
    description: [['入出金内容', '入出金先内容']],
    amount: { signed: [['入出金']], positive: '入金', negative: 'opposite' },
    balance: ['取引後残高', '残高'],
    charset: 'Shift_JIS',
    evidence: [
      'public code index files #33488033646 (Rust test, Shift_JIS: 20220902,-2214,497836,Mastercardデビット …), #59642867530 ("CP932, CRLF, one signed amount column", dates YYYYMMDD), #271540338',
      `${F2M} (ebank/楽天銀行: the older 取引日,入出金(円),残高(円),入出金先内容)`,
    ],
    confidence: '高',
    notes: 'One signed column: a minus is a payment, as the sources show.',
  },
  {
    id: 'sbi',
    name: '住信SBIネット銀行',
    kind: 'bank',
    date: ['日付'],
    description: [['内容']],
    amount: { withdrawal: ['出金金額'], deposit: ['入金金額'] },
    balance: ['残高'],
    also: [['メモ']],
    charset: '不明',
    evidence: [
      `${ZAIM}/zaim/test_zaim_csv_converter/csvinput_test_success/sbi_sumishin_net_bank202201.csv (newest first, all quoted, メモ "-")`,
      `${F2M} (SumishinSBI, Order Descent)`,
    ],
    confidence: '高',
    notes: 'No source states the charset; the sample is Shift_JIS and the reader detects UTF-8 as well.',
  },
  {
    id: 'paypay-bank',
    name: 'PayPay銀行',
    kind: 'bank',
    date: { year: ['操作日(年)'], month: ['操作日(月)'], day: ['操作日(日)'] },
    description: [['摘要']],
    amount: { withdrawal: ['お支払金額'], deposit: ['お預り金額'] },
    balance: ['残高'],
    charset: 'Shift_JIS',
    evidence: [
      'public code index files #14712617663, #14042907490 (shift_jis; "操作日(年)","操作日(月)","操作日(日)","操作時刻(時)","操作時刻(分)","操作時刻(秒)","取引順番号","摘要","お支払金額","お預り金額","残高","メモ")',
      `${F2M} (JapanNetBank, the former name)`,
    ],
    confidence: '高',
  },
  {
    id: 'sony',
    name: 'ソニー銀行',
    kind: 'bank',
    date: ['お取り引き日'],
    description: [['摘要']],
    amount: { withdrawal: ['お引き出し額'], deposit: ['お預け入れ額'] },
    balance: ['差し引き残高', '差引残高'],
    charset: 'Shift_JIS',
    evidence: [
      `${F2M} (SonyBank: "お取り引き日","摘要","参考情報","お預け入れ額","お引き出し額","差し引き残高")`,
      'public code index files #14022276820 (Sony Bank script, shift_jis, dates 2026年5月1日), #21670983415 (Shift-JIS)',
      'xkikeg/okane README (the same fields, date "%Y年%m月%d日")',
    ],
    confidence: '高',
  },
  {
    id: 'gmo-aozora',
    name: 'GMOあおぞらネット銀行',
    kind: 'bank',
    date: ['取引日'],
    description: [['摘要']],
    amount: { withdrawal: ['お支払金額'], deposit: ['お預り金額'] },
    balance: ['残高'],
    also: [['メモ']],
    charset: '不明',
    evidence: [
      'public code index file #68285503523 (an office app: 「GMOあおぞらネット銀行の明細CSVに対応（列: 取引日 / 摘要 / お支払金額 / お預り金額 / 残高 / メモ）」, UTF-8 or Shift-JIS)',
    ],
    confidence: '低',
    notes: 'One source, which names the columns but not their order or the date form; no fixture was found.',
  },
  {
    id: 'aeon-bank',
    name: 'イオン銀行',
    kind: 'bank',
    date: ['日付'],
    description: [['お取引内容']],
    amount: { withdrawal: ['お引出し'], deposit: ['お預入れ'] },
    balance: ['残高（お借入れはマイナス表示）'],
    // Its own balance name is what tells it from any 日付・お取引内容・お引出し・お預入れ file.
    also: [['残高（お借入れはマイナス表示）']],
    charset: '不明',
    evidence: [
      'public code index file #54726954978 (a household migration\'s header signatures: "日付","お取引内容","お引出し","お預入れ","残高（お借入れはマイナス表示）")',
    ],
    confidence: '中',
    notes: 'One source (a signature copied from real files).',
  },
  {
    id: 'hokuriku',
    name: '北陸銀行',
    kind: 'bank',
    date: ['取扱日付'],
    description: [['摘要']],
    amount: { withdrawal: ['お支払金額'], deposit: ['お預り金額'] },
    balance: ['残高'],
    also: [['起算日'], ['取引区分']],
    charset: '不明',
    evidence: [
      `${F2M} (HokurikuBank: "取扱日付","起算日","お支払金額","お預り金額","取引区分","残高","摘要")`,
    ],
    confidence: '中',
    notes: 'From 2012; the date form is not in the source.',
  },
  {
    id: 'gunma',
    name: '群馬銀行',
    kind: 'bank',
    date: ['取扱日付'],
    description: [['摘要']],
    amount: { withdrawal: ['お支払金額'], deposit: ['お預り金額'] },
    balance: ['残高'],
    also: [['取引区分'], ['メモ']],
    charset: '不明',
    evidence: [`${F2M} (GunmaBank: "取扱日付","お支払金額","お預り金額","取引区分","残高","摘要","メモ")`],
    confidence: '中',
    notes: 'From 2012; the date form is not in the source.',
  },
  {
    id: 'hyakugo',
    name: '百五銀行',
    kind: 'bank',
    date: ['日付'],
    description: [['振替文言'], ['摘要']],
    amount: { withdrawal: ['お支払い金額'], deposit: ['お預かり金額'] },
    balance: ['残高'],
    also: [['取扱店番']],
    charset: '不明',
    evidence: [
      `${F2M} (The Hyakugo Bank: "日付","振替文言","お支払い金額","お預かり金額","摘要","残高","取扱店番", newest first)`,
    ],
    confidence: '中',
    notes: 'From 2012; the date form is not in the source. 振替文言 and 摘要 are joined.',
  },
  {
    id: 'kyoto',
    name: '京都銀行',
    kind: 'bank',
    date: ['勘定日'],
    description: [['摘要']],
    amount: { withdrawal: ['出金金額'], deposit: ['入金金額'] },
    balance: ['残高'],
    also: [['照会口座'], ['起算日', '（起算日）']],
    charset: 'Shift_JIS',
    evidence: [
      'public code index file #53844269997 (京都銀行 CSV パーサー, 「実 CSV ヘッダー検証済」: "照会口座","番号","勘定日","（起算日）","出金金額（円）","入金金額（円）","小切手区分","残高（円）","取引区分","明細区分","金融機関名","支店名","摘要"; Shift-JIS, CRLF, all quoted, dates 2026年04月01日)',
    ],
    confidence: '中',
    notes: 'One source (法人 internet banking).',
  },
  // ---- cards ----
  {
    id: 'rakuten-card',
    name: '楽天カード',
    kind: 'card',
    date: ['利用日'],
    description: [['利用店名・商品名']],
    amount: { signed: [['利用金額']], positive: '出金', negative: 'refuse' },
    also: [['利用者'], ['支払方法']],
    layoutLines: [/現地利用額/],
    reversedSection: /^■.*キャンセル/,
    charset: 'UTF-8 (BOM)',
    evidence: [
      'public code index file #71285918319 (「10/6 に本物9つで確認」: UTF-8 with BOM, every field quoted; a 「現地利用額…変換レート…」 line after a foreign purchase; 「■ご利用キャンセルなど」 then cancellations written as positive amounts)',
      'public code index files #52544908796, #45194069118, #60403884614 (the header "利用日","利用店名・商品名","利用者","支払方法","利用金額","手数料/利息" or "支払手数料","支払総額","N月支払金額",…)',
    ],
    confidence: '高',
    notes:
      'Lines under 「■ご利用キャンセルなど」 are refunds (入金). A minus amount is not explained by any source: such a line is refused with its number.',
  },
  {
    id: 'vpass',
    name: '三井住友カード（Vpass）',
    kind: 'card',
    holder: [/様$/, CARD_NUMBER, null],
    date: 0,
    description: [1],
    amount: { signed: [2, 5], positive: '出金', negative: 'refuse' },
    charset: 'Shift_JIS',
    evidence: [
      'kosukeohmura/vpass-csv-converter README.md (no header; 「NAME　様,0000-0000-0000-0***,ＶＩＳＡ」 before each card, then date,店名,金額,回数,回数,支払金額,備考; totals ",,,,,123456" at the end)',
      'nanocloudx/vpass-csv-parser src/parse.ts (holder line /^(.*)　様,[0-9]{4}-.*,(.*)/, CRLF)',
      'public code index file #61874296091 (「Shift-JIS / CRLF、先頭にカード情報行、末尾に合計行、複数カードはブロックが繰り返す」)',
    ],
    confidence: '高',
    shares:
      'Amazon Mastercard and the other cards 三井住友カード issues (JP BANK VISA: public code index file #7001429506 reads its file with the same code)',
    notes:
      'No header: the holder line with the card number is what marks the file. A line with no date (e.g. a discount) is reported, never dropped.',
  },
  {
    id: 'jcb',
    name: 'JCBカード（MyJCB）',
    kind: 'card',
    date: ['ご利用日'],
    description: [['ご利用先など']],
    amount: { signed: [['ご利用金額']], positive: '出金', negative: 'refuse' },
    also: [['ご利用者'], ['支払区分']],
    charset: '不明',
    evidence: [
      'public code index file #54726954978 (header signature "ご利用者","カテゴリ","ご利用日","ご利用先など","ご利用金額(￥)","支払区分","今回回数","訂正サイン","お支払い金額(￥)","国内／海外","摘要","備考")',
      'public code index file #9954645309 (MyJCB importer: lines above the header, every field quoted, date in the 3rd column, amount in the 5th)',
    ],
    confidence: '中',
    notes: 'The text of the lines above the header is not in the sources.',
  },
  {
    id: 'amex',
    name: 'アメリカン・エキスプレス',
    kind: 'card',
    date: ['ご利用日'],
    description: [['ご利用内容']],
    amount: { signed: [['金額']], positive: '出金', negative: 'refuse' },
    also: [['データ処理日'], ['カード会員様名']],
    charset: 'Shift_JIS',
    evidence: [
      'public code index files #69885131666 (cp932: ご利用日,データ処理日,ご利用内容,カード会員様名,会員番号 #,金額,海外通貨利用金額,換算レート), #65985256836, #57075790713',
    ],
    confidence: '高',
  },
  {
    id: 'saison',
    name: 'セゾンカード',
    kind: 'card',
    date: ['利用日'],
    description: [['ご利用店名及び商品名']],
    amount: { signed: [['利用金額']], positive: '出金', negative: 'refuse' },
    also: [['本人・家族区分'], ['支払区分名称']],
    layoutLines: [/ご利用者名/],
    charset: '不明',
    evidence: [
      `${F2M} (SAISONCard and IdemitsuCard: 利用日,ご利用店名及び商品名,本人・家族区分,支払区分名称,締前入金区分,利用金額,備考)`,
      'public code index files #70785032432, #52308415241 (Netアンサー: カード名称 / お支払日 / 今回ご請求額 / blank above the header, 「,ご利用者名:… 様,1,,,,」 below it)',
    ],
    confidence: '高',
    shares: '出光カード (the same FirstLine in felica2money)',
  },
  {
    id: 'epos',
    name: 'エポスカード',
    kind: 'card',
    date: ['ご利用年月日'],
    description: [['ご利用場所'], ['ご利用内容']],
    amount: {
      signed: [['ご利用金額（キャッシングでは元金になります）']],
      positive: '出金',
      negative: 'refuse',
    },
    also: [['お支払開始月']],
    charset: 'Shift_JIS',
    evidence: [
      'public code index file #68467993715 (「月別ご利用明細　…　様　株式会社エポスカード,,,,,,,」, 種別（ショッピング、キャッシング、その他）,ご利用年月日,ご利用場所,ご利用内容,ご利用金額（キャッシングでは元金になります）,支払区分,お支払開始月,備考, 「ショッピング合計」 and 「※」 lines)',
      'public code index files #10036716039 (cp932, 1 line above, 5 below, dates 2026年1月1日), #35867322271, #65885371264',
    ],
    confidence: '高',
    notes: 'ご利用内容 is usually 「－」, which is left out of the description.',
  },
  {
    id: 'paypay-card',
    name: 'PayPayカード',
    kind: 'card',
    date: ['利用日/キャンセル日'],
    description: [['利用店名・商品名']],
    amount: { signed: [['利用金額']], positive: '出金', negative: 'refuse' },
    also: [['決済方法']],
    charset: '不明',
    evidence: [
      `${ZAIM}/test_zaim_csv_converter/csvinput_test_success/pay_pay_card_202505_202505.csv ("利用日/キャンセル日","利用店名・商品名","利用者","決済方法","支払区分","利用金額","手数料","支払総額","当月支払金額","翌月以降繰越金額","調整額","当月お支払日")`,
    ],
    confidence: '高',
    notes:
      'How a cancellation is written is not in the source: a minus amount is refused with its line number.',
  },
  {
    id: 'view',
    name: 'ビューカード',
    kind: 'card',
    date: ['ご利用年月日'],
    description: [['ご利用箇所']],
    amount: { withdrawal: ['ご利用額'], deposit: ['払戻額'] },
    also: [['支払区分（回数）']],
    charset: '不明',
    evidence: [
      `${ZAIM}/test_zaim_csv_converter/csvinput_test_success/view_card202005.csv (会員番号 / 対象カード / お支払日 / 今回お支払金額 / blank above the header; a 「****-****-****-1234 NAME」 line below it)`,
      'public code index file #54726954978 (the same header signature)',
    ],
    confidence: '高',
    notes: 'ご利用額 is a purchase (出金), 払戻額 a refund (入金).',
  },
];

/**
 * Banks and cards named in issue 26 that have no layout, and why (README lists them; the preview's
 * 列を指定 reads their files, and 「この形式を保存」 keeps the mapping).
 */
export const WITHOUT_LAYOUT: readonly { name: string; why: string }[] = [
  {
    name: 'りそな銀行',
    why: 'No public file, fixture or help page of its CSV was found (one code comment guesses 「取引日,摘要,支払金額,預り金額,残高」 and calls it 未検証の仮定).',
  },
  {
    name: 'dカード',
    why: 'The two public sources disagree (a positional importer reads date, shop, amount as columns 1–3; felica2money 2012 reads the amount in column 6) and neither names the columns.',
  },
  {
    name: '三菱UFJニコス',
    why: 'No public file or fixture of its CSV was found.',
  },
];
