/**
 * What a person must know before AI 判定 is switched on (issue 29), said by the 設定 dialog before it asks
 * for a yes and by the user guide: what leaves the spreadsheet (exactly what prompt.ts and mask.ts send),
 * to which company, and roughly what it costs. No price is stated that the provider's own page does not
 * state; prices change, so the page is named for the person to check.
 */
import { AI_PROVIDERS, type AiProvider, DEFAULT_MODEL } from './providers';

export interface AiDisclosure {
  provider: AiProvider;
  /** The company the data goes to. */
  company: string;
  /** What is sent, one item a line. */
  sent: string[];
  /** What the provider says it does with API data, with the page that says it. */
  keeps: string;
  /** How many requests, and what decides the price. */
  cost: string;
}

/** Exactly the fields of StatementForAi and AiCatalog (prompt.ts), in a person's words. */
export const AI_SENT = [
  '明細 1 行ごとに: 取引日・金額・入出金・摘要（明細の説明の文字）・口座名。6 桁以上続く数字（口座番号・カード番号・電話番号など）は下 4 桁のほかを * にしてから送ります。',
  'この事業者の MF のマスタの名前: 勘定科目・補助科目・税区分・取引先（取引先は 300 件まで）。',
  '送らないもの: 台帳のほかの列（メモ・取引先の入力・明細ID・キー）、MF の接続情報、ほかの行。',
];

const COMPANY: Record<AiProvider, string> = {
  openai: 'OpenAI（米国）',
  anthropic: 'Anthropic（米国）',
  gemini: 'Google（Gemini API）',
};

/** Only what each provider's own page says, with the page (found with the search tools, 2026). */
const KEEPS: Record<AiProvider, string> = {
  openai:
    'OpenAI は、API に送られた内容をモデルの学習に使わず（利用者が共有を選んだときを除く）、不正利用の監視のため最大 30 日保存すると公開しています（https://developers.openai.com/api/docs/guides/your-data）。',
  anthropic:
    'Anthropic がAPIに送られた内容をどう扱うかは、Anthropic の利用規約とプライバシーの説明で確かめてください（kicho はここに書ける一次資料を確かめられていません）。',
  gemini:
    'Google の価格表は、Gemini API の無料枠では送った内容が Google の製品の改善に使われるとしています（https://ai.google.dev/gemini-api/docs/pricing）。依頼主の明細を送るなら、有料の設定のキーを使い、Google の規約を確かめてください。',
};

/** The provider's own price page; a price is quoted only where that page was read. */
const PRICE: Record<AiProvider, string> = {
  openai: `料金は OpenAI の API の価格表（openai.com の「API Pricing」）の ${DEFAULT_MODEL.openai} の入力・出力の単価によります（使う量に応じた後払いで、キーには支払い方法の登録が要ります）。`,
  anthropic: `${DEFAULT_MODEL.anthropic} の料金は、Anthropic の案内では入力 100 万トークンあたり 1 ドル、出力 100 万トークンあたり 5 ドルです（https://platform.claude.com/docs/zh-CN/models/haiku-4-5/overview。変わることがあるので、使う前に確かめてください）。`,
  gemini: `料金は Google の価格表（https://ai.google.dev/gemini-api/docs/pricing）の ${DEFAULT_MODEL.gemini} の入力・出力の単価によります。`,
};

export function aiDisclosure(provider: AiProvider, perDay: number): AiDisclosure {
  const month = perDay * 31;
  return {
    provider,
    company: COMPANY[provider],
    sent: AI_SENT,
    keeps: KEEPS[provider],
    cost:
      `AI に聞くのは、ルールに当てはまらなかった明細 1 件につき 1 回です（答えのあった明細は二度と聞きません）。` +
      `1 日に多くても「AI1日の上限」の ${perDay.toLocaleString('ja-JP')} 回、1 か月で多くても約 ${month.toLocaleString('ja-JP')} 回です。` +
      `たとえば月 300 件の明細のうち 3 割がルールに当てはまらなければ、月 90 回ほどです。1 回の問い合わせは、上の明細 1 行とマスタの名前の分の大きさです。` +
      PRICE[provider] +
      ' API キーは提供元で作る有料のキーです。',
  };
}

export function allAiDisclosures(perDay: number): Record<AiProvider, AiDisclosure> {
  return Object.fromEntries(AI_PROVIDERS.map((p) => [p, aiDisclosure(p, perDay)])) as Record<
    AiProvider,
    AiDisclosure
  >;
}

/** The yes the 設定 dialog asks for, and what saving without it says. */
export const AI_CONSENT_LABEL = (company: string) =>
  `上の内容を確かめ、明細の持ち主（依頼主）の了解を得たうえで、${company} に送ることに同意します`;

export const AI_CONSENT_MISSING =
  'AI判定をオンにする（または提供元を変える）前に、下の「AI に送るもの」を確かめ、同意のチェックを入れてください。保存していません。';

/** True when saving `next` switches AI 判定 on or to another provider, which needs a yes. */
export function needsAiConsent(previous: string, next: string | undefined): boolean {
  if (next === undefined) return false;
  const to = next.trim().toLowerCase();
  return (AI_PROVIDERS as readonly string[]).includes(to) && to !== previous.trim().toLowerCase();
}
