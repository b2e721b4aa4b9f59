/**
 * One request and one answer per provider: OpenAI chat completions with a JSON-schema response
 * format, Anthropic messages with one forced tool, Gemini generateContent with a response schema.
 * Pure: the HTTP adapter (src/gas/http.ts) sends what is built here.
 */
import type { HttpRequest, HttpResponse } from '../ports';
import { ANSWER_SCHEMA } from './prompt';

export const AI_PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

/** Small, cheap models: one statement line needs no large model. AI_MODEL overrides. */
export const DEFAULT_MODEL: Record<AiProvider, string> = {
  openai: 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  gemini: 'gemini-2.5-flash',
};

export const DEFAULT_BASE_URL: Record<AiProvider, string> = {
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

/** Anthropic requires a version header; this one has tool use and tool_choice. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** The name of the forced tool (Anthropic) and of the response schema (OpenAI). */
export const ANSWER_NAME = 'record_judgement';

/** An answer is a few short strings and a number; a cap keeps a runaway reply cheap. */
const MAX_OUTPUT_TOKENS = 400;

export interface AiConfig {
  provider: AiProvider;
  apiKey: string;
  model: string;
  /** Scheme and host (optionally a path prefix) without the API version, e.g. https://api.openai.com. */
  baseUrl: string;
}

/** Joins base URL and API path; a base URL that already ends with the version is not doubled. */
function endpoint(baseUrl: string, versionAndPath: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const version = versionAndPath.split('/')[1];
  return base.endsWith(`/${version}`)
    ? base + versionAndPath.slice(version.length + 1)
    : base + versionAndPath;
}

/** Gemini's responseSchema is an OpenAPI subset: upper-case types, no additionalProperties. */
function geminiSchema() {
  const properties: Record<string, { type: string; description: string }> = {};
  for (const [name, p] of Object.entries(ANSWER_SCHEMA.properties)) {
    properties[name] = { type: p.type.toUpperCase(), description: p.description };
  }
  return {
    type: 'OBJECT',
    properties,
    required: [...ANSWER_SCHEMA.required],
    propertyOrdering: [...ANSWER_SCHEMA.required],
  };
}

export function buildAiRequest(config: AiConfig, instructions: string, data: string): HttpRequest {
  const json = (url: string, headers: Record<string, string>, body: unknown): HttpRequest => ({
    method: 'post',
    url,
    headers,
    payload: JSON.stringify(body),
    contentType: 'application/json',
  });
  switch (config.provider) {
    case 'openai':
      return json(
        endpoint(config.baseUrl, '/v1/chat/completions'),
        { Authorization: `Bearer ${config.apiKey}` },
        {
          model: config.model,
          messages: [
            { role: 'system', content: instructions },
            { role: 'user', content: data },
          ],
          response_format: {
            type: 'json_schema',
            json_schema: { name: ANSWER_NAME, strict: true, schema: ANSWER_SCHEMA },
          },
          max_completion_tokens: MAX_OUTPUT_TOKENS,
        },
      );
    case 'anthropic':
      return json(
        endpoint(config.baseUrl, '/v1/messages'),
        { 'x-api-key': config.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        {
          model: config.model,
          max_tokens: MAX_OUTPUT_TOKENS,
          system: instructions,
          messages: [{ role: 'user', content: data }],
          tools: [
            {
              name: ANSWER_NAME,
              description: '明細 1 行の判定結果を記録する',
              input_schema: ANSWER_SCHEMA,
            },
          ],
          tool_choice: { type: 'tool', name: ANSWER_NAME },
        },
      );
    case 'gemini':
      // The key goes in a header, never in the URL: Apps Script puts the URL in its error messages.
      return json(
        endpoint(config.baseUrl, `/v1beta/models/${encodeURIComponent(config.model)}:generateContent`),
        { 'x-goog-api-key': config.apiKey },
        {
          systemInstruction: { parts: [{ text: instructions }] },
          contents: [{ role: 'user', parts: [{ text: data }] }],
          generationConfig: {
            responseMimeType: 'application/json',
            responseSchema: geminiSchema(),
            maxOutputTokens: MAX_OUTPUT_TOKENS,
          },
        },
      );
  }
}

/**
 * What came back, by what it means for the row and the run:
 * - answer: the model's JSON (a parsed object, or the raw text when it was not JSON)
 * - malformed: a 2xx with no usable answer (refusal, safety block, truncated output)
 * - rate-limited / unavailable: try later; stop calling for this run
 * - refused: the provider rejects our requests (key, model, quota): stop calling, say what to fix
 */
export type AiReply =
  | { kind: 'answer'; value: unknown }
  | { kind: 'malformed'; reason: string }
  | { kind: 'rate-limited' }
  | { kind: 'unavailable'; status: number }
  | { kind: 'refused'; status: number; message: string };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (_e) {
    return undefined;
  }
}

function at(value: unknown, ...path: (string | number)[]): unknown {
  let v = value;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** The provider's own error text (each wraps it differently); empty when there is none. */
function errorMessage(body: unknown): string {
  const m = at(body, 'error', 'message');
  return typeof m === 'string' ? m : '';
}

/** Model output as text is parsed here; output that is not JSON is returned as the text itself. */
function answerFromText(text: unknown): AiReply {
  if (typeof text !== 'string' || text.trim() === '') return { kind: 'malformed', reason: '回答が空でした' };
  const parsed = parseJson(text);
  return { kind: 'answer', value: parsed === undefined ? text : parsed };
}

export function readAiResponse(provider: AiProvider, response: HttpResponse): AiReply {
  const body = parseJson(response.body);
  const status = response.status;
  // Anthropic answers 529 when overloaded; every 5xx means "not now".
  if (status === 429) return { kind: 'rate-limited' };
  if (status >= 500) return { kind: 'unavailable', status };
  if (status < 200 || status >= 300) return { kind: 'refused', status, message: errorMessage(body) };
  if (body === undefined) return { kind: 'malformed', reason: '応答が JSON ではありませんでした' };
  switch (provider) {
    case 'openai': {
      const message = at(body, 'choices', 0, 'message');
      const refusal = at(message, 'refusal');
      if (typeof refusal === 'string' && refusal !== '')
        return { kind: 'malformed', reason: 'AIが回答を拒否しました' };
      if (at(body, 'choices', 0, 'finish_reason') === 'length')
        return { kind: 'malformed', reason: '回答が途中で切れました' };
      return answerFromText(at(message, 'content'));
    }
    case 'anthropic': {
      const content = at(body, 'content');
      const blocks = Array.isArray(content) ? content : [];
      const tool = blocks.find((b) => at(b, 'type') === 'tool_use');
      if (tool) {
        const input = at(tool, 'input');
        return input !== null && typeof input === 'object'
          ? { kind: 'answer', value: input }
          : { kind: 'malformed', reason: '回答が空でした' };
      }
      // No tool call (should not happen with a forced tool): read any text as JSON.
      const text = blocks.find((b) => at(b, 'type') === 'text');
      return answerFromText(at(text, 'text'));
    }
    case 'gemini': {
      if (at(body, 'promptFeedback', 'blockReason'))
        return { kind: 'malformed', reason: 'AIが回答を拒否しました' };
      const parts = at(body, 'candidates', 0, 'content', 'parts');
      const texts = Array.isArray(parts)
        ? parts.map((p) => at(p, 'text')).filter((t) => typeof t === 'string')
        : [];
      if (texts.length === 0) return { kind: 'malformed', reason: '回答が空でした' };
      return answerFromText(texts.join(''));
    }
  }
}
