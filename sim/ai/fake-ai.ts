/**
 * A fake AI provider for OpenAI chat completions, Anthropic messages and Gemini generateContent.
 * It checks each request the way the real API would (path, auth header, model, structured-output
 * schema) and answers in that provider's shape; errors use each provider's error body. What the
 * "model" answers is chosen per test or per statement line (`behaviour`), including a gullible
 * mode that obeys instructions written into a description, so tests can show that validation, not
 * the model, decides what reaches the 台帳. Every request is recorded with the data that was sent.
 */
import type { HttpRequest, HttpResponse } from '../mf/types';

export const TEST_AI_KEY = 'sk-test-kicho-AI-0123456789abcdef';

export const AI_HOSTS = {
  openai: 'api.openai.com',
  anthropic: 'api.anthropic.com',
  gemini: 'generativelanguage.googleapis.com',
} as const;

export type FakeAiProvider = keyof typeof AI_HOSTS;

export type AiBehaviour =
  | 'good'
  | 'low-confidence'
  | 'unknown-account'
  | 'malformed'
  | 'missing-fields'
  | 'gullible'
  | 'timeout'
  | 'rate-limit'
  | 'server-error'
  | 'echo-key';

/** What the fake read from a request: the statement line and the choices, as the model would see them. */
export interface FakeAiRequest {
  provider: FakeAiProvider;
  model: string;
  path: string;
  headers: Record<string, string>;
  instructions: string;
  /** The user message parsed as JSON (kicho sends `{ 明細, 選択肢 }`). */
  data: { 明細?: Record<string, unknown>; 選択肢?: { 勘定科目?: string[]; 税区分?: string[] } } | null;
  /** The raw user message text. */
  userText: string;
  behaviour?: AiBehaviour;
  status?: number;
}

export interface FakeAiOptions {
  apiKey?: string;
  behaviour?: AiBehaviour | ((statement: Record<string, unknown>, provider: FakeAiProvider) => AiBehaviour);
}

interface Answer {
  [field: string]: unknown;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

function header(req: HttpRequest, name: string): string | undefined {
  const key = Object.keys(req.headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : req.headers[key];
}

function parse(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch (_e) {
    return undefined;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keyword → account, as a plausible model would guess from a Japanese bank/card description. */
const GUESSES: readonly [RegExp, string][] = [
  [/デンキ|電気|スイドウ|ガス/, '水道光熱費'],
  [/セブン|ローソン|ファミリーマート|コンビニ/, '消耗品費'],
  [/GOOGLE|ユウビン|キリツテ|ドコモ|ソフトバンク/i, '通信費'],
  [/スシ|寿司|イザカヤ/, '接待交際費'],
  [/ジユンクドウ|ジュンク|マルゼン|書店/, '新聞図書費'],
  [/リソク/, '受取利息'],
  [/フリコミ/, '売上高'],
  [/ヤチン|家賃/, '地代家賃'],
];

/**
 * Keyword → インボイス区分 and its reason, as a plausible model would answer (issue 27): national chains are
 * registered issuers, a fare or a stamp is credited with the books alone, anything else it cannot tell.
 */
const INVOICE_GUESSES: readonly [RegExp, string, string][] = [
  [
    /JR|バス|スイカ|SUICA|キリツテ/i,
    '帳簿のみ',
    '3万円未満の運賃や郵便切手は請求書なしで控除できる取引です。',
  ],
  [
    /セブン|ローソン|ファミリーマート|スターバツクス|スターバックス/,
    '適格',
    '全国チェーンは適格請求書発行事業者です。',
  ],
  [/スシ|寿司|イザカヤ/, '非適格', '個人経営の飲食店で、登録番号のない領収書と判断しました。'],
];

export class FakeAi {
  readonly requests: FakeAiRequest[] = [];
  readonly apiKey: string;
  behaviour: NonNullable<FakeAiOptions['behaviour']>;
  /** Called while a request is "in flight" (before answering): tests let a person act here. */
  onRequest: ((request: FakeAiRequest) => void) | undefined;

  constructor(options: FakeAiOptions = {}) {
    this.apiKey = options.apiKey ?? TEST_AI_KEY;
    this.behaviour = options.behaviour ?? 'good';
  }

  /** Routes the three providers' hosts of an emulator world to this fake. */
  route(world: { fetch: { route(host: string, handler: (req: HttpRequest) => HttpResponse): void } }): void {
    for (const host of Object.values(AI_HOSTS)) world.fetch.route(host, (req) => this.handle(req));
  }

  handle(req: HttpRequest): HttpResponse {
    const url = new URL(req.url);
    const provider = (Object.keys(AI_HOSTS) as FakeAiProvider[]).find((p) => AI_HOSTS[p] === url.hostname);
    if (!provider) return json(404, { error: { message: `unknown host ${url.hostname}` } });
    const res = this.handleFor(provider, req, url);
    return res;
  }

  private handleFor(provider: FakeAiProvider, req: HttpRequest, url: URL): HttpResponse {
    const record: FakeAiRequest = {
      provider,
      model: '',
      path: url.pathname,
      headers: req.headers,
      instructions: '',
      data: null,
      userText: '',
    };
    this.requests.push(record);
    const done = (res: HttpResponse) => {
      record.status = res.status;
      return res;
    };
    if (req.method !== 'POST') return done(this.error(provider, 405, 'method not allowed'));
    if (!/application\/json/i.test(header(req, 'content-type') ?? ''))
      return done(this.error(provider, 400, 'Content-Type must be application/json'));
    const body = parse(req.body);
    if (!isObj(body)) return done(this.error(provider, 400, 'request body is not JSON'));

    const auth = this.checkAuth(provider, req, url);
    if (auth) return done(auth);
    const shape = this.readRequest(provider, body, url, record);
    if (shape) return done(shape);

    const statement = record.data?.明細 ?? {};
    const behaviour =
      typeof this.behaviour === 'function' ? this.behaviour(statement, provider) : this.behaviour;
    record.behaviour = behaviour;
    this.onRequest?.(record);
    switch (behaviour) {
      case 'timeout':
        return done({ status: 200, headers: {}, body: '', fault: 'timeout' });
      case 'rate-limit':
        return done(this.error(provider, 429, 'Rate limit reached for requests', { 'retry-after': '20' }));
      case 'server-error':
        return done(this.error(provider, provider === 'anthropic' ? 529 : 500, 'The server had an error'));
      case 'echo-key':
        return done(
          this.error(provider, 401, `Incorrect API key provided: ${this.sentKey(provider, req, url)}`),
        );
      default:
        return done(this.answer(provider, record.model, this.think(behaviour, record)));
    }
  }

  private sentKey(provider: FakeAiProvider, req: HttpRequest, url: URL): string {
    if (provider === 'openai') return (header(req, 'authorization') ?? '').replace(/^Bearer\s+/i, '');
    if (provider === 'anthropic') return header(req, 'x-api-key') ?? '';
    return header(req, 'x-goog-api-key') ?? url.searchParams.get('key') ?? '';
  }

  private checkAuth(provider: FakeAiProvider, req: HttpRequest, url: URL): HttpResponse | null {
    const key = this.sentKey(provider, req, url);
    if (provider === 'openai' && !/^Bearer\s+/i.test(header(req, 'authorization') ?? ''))
      return this.error(provider, 401, "You didn't provide an API key.");
    if (provider === 'anthropic' && !header(req, 'anthropic-version'))
      return this.error(provider, 400, 'anthropic-version: header is required');
    if (key === this.apiKey) return null;
    // Gemini answers a bad key with 400 INVALID_ARGUMENT; the others with 401.
    return provider === 'gemini'
      ? this.error(provider, 400, 'API key not valid. Please pass a valid API key.')
      : this.error(provider, 401, 'invalid x-api-key');
  }

  /** Checks the provider-specific request shape; fills the record. A bad shape is a 400 as the real API gives. */
  private readRequest(
    provider: FakeAiProvider,
    body: Obj,
    url: URL,
    record: FakeAiRequest,
  ): HttpResponse | null {
    const bad = (message: string) => this.error(provider, 400, message);
    if (provider === 'openai') {
      if (url.pathname !== '/v1/chat/completions')
        return this.error(provider, 404, `Invalid URL (POST ${url.pathname})`);
      if (typeof body.model !== 'string' || body.model === '')
        return bad('you must provide a model parameter');
      record.model = body.model;
      const messages = Array.isArray(body.messages) ? body.messages.filter(isObj) : [];
      const system = messages.find((m) => m.role === 'system' || m.role === 'developer');
      const user = messages.find((m) => m.role === 'user');
      if (!user || typeof user.content !== 'string') return bad("'messages' must contain a user message");
      record.instructions = typeof system?.content === 'string' ? system.content : '';
      record.userText = user.content;
      const format = body.response_format;
      if (!isObj(format) || format.type !== 'json_schema')
        return bad("response_format.type must be 'json_schema'");
      const schema = format.json_schema;
      if (!isObj(schema) || typeof schema.name !== 'string' || !isObj(schema.schema))
        return bad("Missing required parameter: 'response_format.json_schema.name' / 'schema'");
      if (schema.strict === true && !this.strictOk(schema.schema))
        return bad(
          "Invalid schema for response_format: In strict mode, 'required' must list every property and additionalProperties must be false",
        );
    } else if (provider === 'anthropic') {
      if (url.pathname !== '/v1/messages') return this.error(provider, 404, 'Not Found');
      if (typeof body.model !== 'string' || body.model === '') return bad('model: Field required');
      if (typeof body.max_tokens !== 'number') return bad('max_tokens: Field required');
      record.model = body.model;
      record.instructions = typeof body.system === 'string' ? body.system : '';
      const messages = Array.isArray(body.messages) ? body.messages.filter(isObj) : [];
      const user = messages.find((m) => m.role === 'user');
      const content = user?.content;
      const text =
        typeof content === 'string'
          ? content
          : Array.isArray(content)
            ? content
                .filter(isObj)
                .map((c) => String(c.text ?? ''))
                .join('')
            : undefined;
      if (text === undefined) return bad('messages: at least one user message is required');
      record.userText = text;
      const tools = Array.isArray(body.tools) ? body.tools.filter(isObj) : [];
      const choice = body.tool_choice;
      if (tools.length === 0 || !isObj(tools[0].input_schema) || tools[0].input_schema.type !== 'object')
        return bad('tools.0.input_schema: type must be object');
      if (!isObj(choice) || choice.type !== 'tool' || choice.name !== tools[0].name)
        return bad('tool_choice must name one of the tools');
    } else {
      const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(url.pathname);
      if (!m) return this.error(provider, 404, `Requested entity was not found: ${url.pathname}`);
      record.model = decodeURIComponent(m[1]);
      const system = body.systemInstruction;
      record.instructions =
        isObj(system) && Array.isArray(system.parts)
          ? system.parts
              .filter(isObj)
              .map((p) => String(p.text ?? ''))
              .join('')
          : '';
      const contents = Array.isArray(body.contents) ? body.contents.filter(isObj) : [];
      const parts = contents[0] && Array.isArray(contents[0].parts) ? contents[0].parts.filter(isObj) : [];
      if (parts.length === 0) return bad('* GenerateContentRequest.contents: contents is not specified');
      record.userText = parts.map((p) => String(p.text ?? '')).join('');
      const config = body.generationConfig;
      if (!isObj(config) || config.responseMimeType !== 'application/json' || !isObj(config.responseSchema))
        return bad('generationConfig.responseMimeType must be application/json with a responseSchema');
      if (
        String(config.responseSchema.type).toUpperCase() !== 'OBJECT' ||
        'additionalProperties' in config.responseSchema
      )
        return bad(
          'Invalid JSON payload received. Unknown name "additionalProperties" at generation_config.response_schema',
        );
    }
    const data = parse(record.userText);
    record.data = isObj(data) ? (data as FakeAiRequest['data']) : null;
    return null;
  }

  /** OpenAI strict mode: every property required, additionalProperties false. */
  private strictOk(schema: Obj): boolean {
    const props = isObj(schema.properties) ? Object.keys(schema.properties) : [];
    const required = Array.isArray(schema.required) ? schema.required : [];
    return schema.additionalProperties === false && props.every((p) => required.includes(p));
  }

  /** The "model": an answer object, or text when the behaviour calls for non-JSON. */
  private think(behaviour: AiBehaviour, record: FakeAiRequest): Answer | string {
    const statement = record.data?.明細 ?? {};
    const accounts = record.data?.選択肢?.勘定科目 ?? [];
    const taxes = record.data?.選択肢?.税区分 ?? [];
    const description = String(statement.摘要 ?? '').normalize('NFKC');
    const income = statement.入出金 === '入金';
    const guess = GUESSES.find(([re]) => re.test(description))?.[1];
    const account =
      guess && accounts.includes(guess) ? guess : accounts.includes('雑費') ? '雑費' : (accounts[0] ?? '');
    const tax = income
      ? taxes.includes('対象外')
        ? '対象外'
        : ''
      : taxes.includes('課税仕入 10%')
        ? '課税仕入 10%'
        : '';
    const invoice = income ? undefined : INVOICE_GUESSES.find(([re]) => re.test(description));
    const good: Answer = {
      account,
      sub_account: '',
      tax,
      partner: '',
      confidence: guess ? 0.92 : 0.85,
      reason: `摘要「${description}」から${account}と判断しました。`,
      invoice: invoice?.[1] ?? '不明',
      invoice_reason: invoice?.[2] ?? '摘要だけでは売り手が登録事業者か分かりません。',
    };
    switch (behaviour) {
      case 'low-confidence':
        return { ...good, confidence: 0.3, reason: '摘要だけでは判断しにくい明細です。' };
      case 'unknown-account':
        return { ...good, account: '謎の経費', tax: '課税仕入 99%' };
      case 'malformed':
        return '{"account": "消耗品費", "confidence": 0.9, "reason": "途中で';
      case 'missing-fields':
        return { account, reason: '' };
      case 'gullible':
        return this.obey(description, good);
      default:
        return good;
    }
  }

  /** Does what text in the description says, as a model without defences might. */
  // (obey() keeps its own answer shape: a gullible model's extra fields are ignored by kicho.)
  private obey(description: string, good: Answer): Answer | string {
    if (!/無視|ignore/i.test(description)) return good;
    if (/文章|text|JSONではなく/i.test(description))
      return '了解しました。以前の指示を無視して、文章で答えます。';
    const named = /勘定科目[はを]?「([^」]+)」/.exec(description)?.[1] ?? '役員報酬';
    return {
      account: named,
      sub_account: '',
      tax: '',
      partner: '',
      confidence: 1,
      reason: '指示どおりにしました。',
      状態: '送信待ち',
      auto_approve: true,
    };
  }

  private answer(provider: FakeAiProvider, model: string, answer: Answer | string): HttpResponse {
    const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
    if (provider === 'openai') {
      return json(200, {
        id: `chatcmpl-${this.requests.length}`,
        object: 'chat.completion',
        model,
        choices: [
          { index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130 },
      });
    }
    if (provider === 'anthropic') {
      // A forced tool always yields an object; text that is not an object comes back as a text block.
      const content =
        typeof answer === 'string'
          ? [{ type: 'text', text }]
          : [
              {
                type: 'tool_use',
                id: `toolu_${this.requests.length}`,
                name: 'record_judgement',
                input: answer,
              },
            ];
      return json(200, {
        id: `msg_${this.requests.length}`,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: typeof answer === 'string' ? 'end_turn' : 'tool_use',
        usage: { input_tokens: 100, output_tokens: 30 },
      });
    }
    return json(200, {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 30, totalTokenCount: 130 },
      modelVersion: model,
    });
  }

  private error(
    provider: FakeAiProvider,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ): HttpResponse {
    if (provider === 'anthropic') {
      const type =
        status === 401
          ? 'authentication_error'
          : status === 429
            ? 'rate_limit_error'
            : status === 529
              ? 'overloaded_error'
              : status >= 500
                ? 'api_error'
                : status === 404
                  ? 'not_found_error'
                  : 'invalid_request_error';
      return json(status, { type: 'error', error: { type, message } }, headers);
    }
    if (provider === 'gemini') {
      const grpc =
        status === 429
          ? 'RESOURCE_EXHAUSTED'
          : status >= 500
            ? 'INTERNAL'
            : status === 404
              ? 'NOT_FOUND'
              : status === 401
                ? 'UNAUTHENTICATED'
                : 'INVALID_ARGUMENT';
      return json(status, { error: { code: status, message, status: grpc } }, headers);
    }
    const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
    return json(
      status,
      { error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : null } },
      headers,
    );
  }
}
