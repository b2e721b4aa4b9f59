// The static Japanese data behind the seeded office: masters as a small 株式会社 would keep them, the
// everyday statement-line patterns of its bank and card feeds, and the fixed lines that exercise what
// clients get wrong. seed.ts turns this into a dataset with seeded ids, dates and amounts.

import type { AccountGroup, Side, TradePartner } from './types';

export const PERIODS = [
  { start_date: '2025-04-01', end_date: '2026-03-31', fiscal_year: 2025 },
  { start_date: '2026-04-01', end_date: '2027-03-31', fiscal_year: 2026 },
] as const;

export interface TaxSpec {
  name: string;
  abbreviation: string;
  rate: number | null;
  available?: boolean;
}

export const TAXES: readonly TaxSpec[] = [
  { name: '対象外', abbreviation: '対象外', rate: null },
  { name: '課税売上 10%', abbreviation: '課売 10%', rate: 0.1 },
  { name: '課税売上 8%（軽）', abbreviation: '課売 8%（軽）', rate: 0.08 },
  { name: '課税仕入 10%', abbreviation: '課仕 10%', rate: 0.1 },
  { name: '課税仕入 8%（軽）', abbreviation: '課仕 8%（軽）', rate: 0.08 },
  { name: '非課税売上', abbreviation: '非売', rate: 0 },
  { name: '非課税仕入', abbreviation: '非仕', rate: 0 },
  { name: '対象外売', abbreviation: '対外売', rate: null },
  { name: '対象外仕', abbreviation: '対外仕', rate: null },
  // The pre-2019 rate: still listed, no longer usable.
  { name: '課税仕入 8%', abbreviation: '課仕 8%', rate: 0.08, available: false },
];

export interface AccountSpec {
  name: string;
  reading: string;
  group: AccountGroup;
  category: string;
  tax: string;
  available?: boolean;
  subs?: string[];
}

export const SGA = 'SELLING_GENERAL_AND_ADMINISTRATIVE_EXPENSES';
export const ACCOUNTS: readonly AccountSpec[] = [
  { name: '現金', reading: 'げんきん', group: 'ASSET', category: 'CASH_AND_DEPOSITS', tax: '対象外' },
  {
    name: '普通預金',
    reading: 'ふつうよきん',
    group: 'ASSET',
    category: 'CASH_AND_DEPOSITS',
    tax: '対象外',
    subs: ['三井住友銀行', '三井住友銀行 渋谷支店', 'ゆうちょ銀行'],
  },
  { name: '売掛金', reading: 'うりかけきん', group: 'ASSET', category: 'TRADE_RECEIVABLES', tax: '対象外' },
  {
    name: '仮払金',
    reading: 'かりばらいきん',
    group: 'ASSET',
    category: 'OTHER_CURRENT_ASSETS',
    tax: '対象外',
  },
  {
    name: '未払金',
    reading: 'みばらいきん',
    group: 'LIABILITY',
    category: 'OTHER_CURRENT_LIABILITIES',
    tax: '対象外',
    subs: ['三井住友カード'],
  },
  {
    name: '預り金',
    reading: 'あずかりきん',
    group: 'LIABILITY',
    category: 'OTHER_CURRENT_LIABILITIES',
    tax: '対象外',
  },
  { name: '資本金', reading: 'しほんきん', group: 'CAPITAL', category: 'CAPITAL_STOCK', tax: '対象外' },
  {
    name: '繰越利益剰余金',
    reading: 'くりこしりえき',
    group: 'CAPITAL',
    category: 'RETAINED_EARNINGS_BROUGHT_FORWARD',
    tax: '対象外',
  },
  { name: '売上高', reading: 'うりあげだか', group: 'REVENUE', category: 'NET_SALES', tax: '課税売上 10%' },
  {
    name: '受取利息',
    reading: 'うけとりりそく',
    group: 'REVENUE',
    category: 'NON_OPERATING_INCOME',
    tax: '非課税売上',
  },
  { name: '外注費', reading: 'がいちゅうひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '消耗品費', reading: 'しょうもうひんひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '旅費交通費', reading: 'りょひこうつうひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '通信費', reading: 'つうしんひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '地代家賃', reading: 'ちだいやちん', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  {
    name: '支払手数料',
    reading: 'しはらいてすうりょう',
    group: 'EXPENSE',
    category: SGA,
    tax: '課税仕入 10%',
  },
  { name: '会議費', reading: 'かいぎひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '接待交際費', reading: 'せったいこうさいひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '水道光熱費', reading: 'すいどうこうねつひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '新聞図書費', reading: 'しんぶんとしょひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '福利厚生費', reading: 'ふくりこうせいひ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  { name: '租税公課', reading: 'そぜいこうか', group: 'EXPENSE', category: SGA, tax: '対象外仕' },
  { name: '雑費', reading: 'ざっぴ', group: 'EXPENSE', category: SGA, tax: '課税仕入 10%' },
  // Inactive: posting to it must fail with "The specified account is inactive."
  {
    name: '諸会費',
    reading: 'しょかいひ',
    group: 'EXPENSE',
    category: SGA,
    tax: '対象外仕',
    available: false,
  },
];

// Registration numbers carry a valid check digit (MF checks a number against the NTA's data when it is
// entered [O], so a number MF holds is well formed). 鈴木デザイン is not a registered invoice issuer: its
// 外注費 lines are the seeded purchases from an unregistered seller (issue 27).
export const TRADE_PARTNERS: readonly TradePartner[] = [
  partner('000001', '株式会社山田商事', '4010001000011', 'やまだしょうじ', 'T4010001000011'),
  partner('000002', '有限会社佐藤工業', '5010002000022', 'さとうこうぎょう', 'T9010002000022'),
  partner('000003', '合同会社鈴木デザイン', '6010003000033', 'すずきでざいん', null),
  partner('000004', '株式会社福岡不動産', '7290001000044', 'ふくおかふどうさん', 'T1290001000044'),
  partner(
    '000005',
    '東京電力エナジーパートナー株式会社',
    '8010001000055',
    'とうきょうでんりょく',
    'T1010001000055',
  ),
  partner('000006', '株式会社田中物産', '9010001000066', 'たなかぶっさん', 'T7010001000066', false),
];

function partner(
  code: string,
  name: string,
  corporate: string,
  reading: string,
  registration: string | null,
  available = true,
): TradePartner {
  return {
    code,
    name,
    available,
    invoice_registration_number: registration,
    corporate_number: corporate,
    search_key: reading,
  };
}

/** Where a line comes from: a connected (sub-)account of the fake's services. */
export type Source = 'smbc' | 'shibuya' | 'yucho' | 'card';

export interface LineTemplate {
  content: string;
  side: Side;
  source: Source;
  account: string;
  subAccount?: string;
  tax?: string;
  partner?: string;
  amounts: readonly number[];
  weight: number;
}

export const TEMPLATES: readonly LineTemplate[] = [
  // 三井住友銀行 代表口座
  {
    content: 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ',
    side: 'INCOME',
    source: 'smbc',
    account: '売掛金',
    partner: '000001',
    amounts: [330000, 550000, 110000],
    weight: 4,
  },
  {
    content: 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ',
    side: 'INCOME',
    source: 'smbc',
    account: '売掛金',
    partner: '000002',
    amounts: [88000, 132000],
    weight: 3,
  },
  {
    content: 'ﾌﾘｺﾐ ﾄﾞ)ｽｽﾞｷﾃﾞｻﾞｲﾝ',
    side: 'EXPENSE',
    source: 'smbc',
    account: '外注費',
    partner: '000003',
    amounts: [220000, 165000],
    weight: 3,
  },
  {
    content: 'ﾃﾞﾝｷﾀﾞｲ',
    side: 'EXPENSE',
    source: 'smbc',
    account: '水道光熱費',
    partner: '000005',
    amounts: [12345, 9876, 15210],
    weight: 3,
  },
  {
    content: 'ｽｲﾄﾞｳﾘﾖｳｷﾝ',
    side: 'EXPENSE',
    source: 'smbc',
    account: '水道光熱費',
    amounts: [4320, 3980],
    weight: 2,
  },
  {
    content: 'ﾃｽｳﾘﾖｳ',
    side: 'EXPENSE',
    source: 'smbc',
    account: '支払手数料',
    amounts: [110, 220, 330, 440],
    weight: 6,
  },
  {
    content: 'NTTｺﾐﾕﾆｹｰｼﾖﾝｽﾞ',
    side: 'EXPENSE',
    source: 'smbc',
    account: '通信費',
    amounts: [5500, 6050],
    weight: 2,
  },
  // 三井住友銀行 渋谷支店
  {
    content: 'ATM ﾋｷﾀﾞｼ',
    side: 'EXPENSE',
    source: 'shibuya',
    account: '現金',
    amounts: [10000, 30000, 50000],
    weight: 3,
  },
  { content: 'ﾘｿｸ', side: 'INCOME', source: 'shibuya', account: '受取利息', amounts: [1, 3, 12], weight: 1 },
  // ゆうちょ銀行
  {
    content: 'ﾕｳﾋﾞﾝ ｷﾘﾂﾃ',
    side: 'EXPENSE',
    source: 'yucho',
    account: '通信費',
    amounts: [1100, 4200, 840],
    weight: 2,
  },
  {
    content: 'ﾄﾘｱﾂｶｲﾃｽｳﾘﾖｳ',
    side: 'EXPENSE',
    source: 'yucho',
    account: '支払手数料',
    amounts: [145, 165],
    weight: 2,
  },
  // 三井住友カード
  {
    content: 'ｱﾏｿﾞﾝ',
    side: 'EXPENSE',
    source: 'card',
    account: '消耗品費',
    amounts: [1980, 3280, 598, 12800],
    weight: 10,
  },
  {
    content: 'AMAZON.CO.JP',
    side: 'EXPENSE',
    source: 'card',
    account: '消耗品費',
    amounts: [2480, 7650],
    weight: 4,
  },
  {
    content: 'JR ﾋｶﾞｼﾆﾎﾝ',
    side: 'EXPENSE',
    source: 'card',
    account: '旅費交通費',
    amounts: [1340, 2640, 14170],
    weight: 6,
  },
  {
    content: 'ﾓﾊﾞｲﾙｽｲｶ ﾁﾔｰｼﾞ',
    side: 'EXPENSE',
    source: 'card',
    account: '旅費交通費',
    amounts: [3000, 5000],
    weight: 4,
  },
  {
    content: 'ﾆﾎﾝｺｳﾂｳ ﾀｸｼｰ',
    side: 'EXPENSE',
    source: 'card',
    account: '旅費交通費',
    amounts: [1500, 2380],
    weight: 3,
  },
  { content: 'ｽﾀｰﾊﾞｯｸｽ', side: 'EXPENSE', source: 'card', account: '会議費', amounts: [1210, 980], weight: 4 },
  {
    content: 'ｾﾌﾞﾝｲﾚﾌﾞﾝ',
    side: 'EXPENSE',
    source: 'card',
    account: '会議費',
    tax: '課税仕入 8%（軽）',
    amounts: [648, 432],
    weight: 4,
  },
  {
    content: 'ﾖﾄﾞﾊﾞｼｶﾒﾗ',
    side: 'EXPENSE',
    source: 'card',
    account: '消耗品費',
    amounts: [15800, 4980],
    weight: 2,
  },
  {
    content: 'GOOGLE *WORKSPACE',
    side: 'EXPENSE',
    source: 'card',
    account: '通信費',
    amounts: [2040, 4080],
    weight: 2,
  },
  {
    content: 'ｷﾞﾝｻﾞ ｽｼ ﾏﾂﾓﾄ',
    side: 'EXPENSE',
    source: 'card',
    account: '接待交際費',
    amounts: [33000, 48400],
    weight: 1,
  },
  {
    content: 'ﾏﾙｾﾞﾝｼﾞﾕﾝｸﾄﾞｳ',
    side: 'EXPENSE',
    source: 'card',
    account: '新聞図書費',
    amounts: [3520, 2970],
    weight: 1,
  },
];

/** Lines every dataset has, whatever the seed: the cases clients most often get wrong. */
export interface FixedLine {
  date: string;
  content: string | null;
  side: Side;
  source: Source;
  value: number;
}

export const FIXED_LINES: readonly FixedLine[] = [
  // Genuine duplicates: same day, same amount, same content, distinct ids. Both must be posted.
  { date: '2026-02-10', content: 'ｱﾏｿﾞﾝ', side: 'EXPENSE', source: 'card', value: 1980 },
  { date: '2026-02-10', content: 'ｱﾏｿﾞﾝ', side: 'EXPENSE', source: 'card', value: 1980 },
  { date: '2026-04-15', content: 'ﾃｽｳﾘﾖｳ', side: 'EXPENSE', source: 'smbc', value: 440 },
  { date: '2026-04-15', content: 'ﾃｽｳﾘﾖｳ', side: 'EXPENSE', source: 'smbc', value: 440 },
  // Text a spreadsheet would evaluate as a formula if written naively.
  {
    date: '2026-03-03',
    content: '=HYPERLINK("http://example.com","click")',
    side: 'EXPENSE',
    source: 'card',
    value: 1000,
  },
  { date: '2026-03-04', content: '+81-3-1234-5678 ﾃﾞﾝﾜﾀﾞｲ', side: 'EXPENSE', source: 'smbc', value: 3300 },
  { date: '2026-04-06', content: '-ﾍﾝｷﾝ ﾁﾖｳｾｲ', side: 'INCOME', source: 'smbc', value: 500 },
  { date: '2026-05-07', content: '@ｺﾝﾋﾞﾆ ｺｳｷﾝ', side: 'EXPENSE', source: 'card', value: 2200 },
  // Lines without content.
  { date: '2026-01-20', content: null, side: 'EXPENSE', source: 'yucho', value: 770 },
  { date: '2026-04-20', content: null, side: 'INCOME', source: 'shibuya', value: 10000 },
  { date: '2026-06-01', content: null, side: 'EXPENSE', source: 'card', value: 1650 },
];
