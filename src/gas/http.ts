/**
 * HttpPort over UrlFetchApp: HTTP errors are returned; a request Apps Script refused before sending
 * becomes HttpNotSentError, any other exception an HttpTransportError (outcome unknown).
 */
import { notSentReason } from '../core/platform-errors';
import {
  HttpNotSentError,
  type HttpPort,
  type HttpRequest,
  type HttpResponse,
  HttpTransportError,
} from '../core/ports';

let fetchesThisExecution = 0;

/** UrlFetch calls this execution made through the port (the daily quota counts each). */
export function fetchCount(): number {
  return fetchesThisExecution;
}

export function urlFetchPort(): HttpPort {
  return {
    send(request: HttpRequest): HttpResponse {
      const params: GoogleAppsScript.URL_Fetch.URLFetchRequestOptions = {
        method: request.method,
        headers: request.headers,
        muteHttpExceptions: true,
        followRedirects: true,
      };
      if (request.payload !== undefined) {
        params.payload = request.payload;
        params.contentType = request.contentType ?? 'application/json';
      }
      let response: GoogleAppsScript.URL_Fetch.HTTPResponse;
      try {
        fetchesThisExecution++;
        response = UrlFetchApp.fetch(request.url, params);
      } catch (e) {
        const text = String(e instanceof Error ? e.message : e);
        const refused = notSentReason(text);
        if (refused) throw new HttpNotSentError(refused.reason, refused.message);
        // A timeout or connection failure: the server may or may not have acted on the request.
        throw new HttpTransportError(
          /timeout/i.test(text) ? 'timeout' : 'network',
          text.replace(/\?.*$/, ''),
        );
      }
      const headers: Record<string, string> = {};
      const raw = response.getHeaders() as Record<string, unknown>;
      for (const k of Object.keys(raw)) headers[k] = String(raw[k]);
      return { status: response.getResponseCode(), headers, body: response.getContentText() };
    },
  };
}
