/** ContentService: a web app answers with a TextOutput (Apps Script redirects the sender to it). */
export function jsonOutput(value: unknown): GoogleAppsScript.Content.TextOutput {
  return ContentService.createTextOutput(JSON.stringify(value)).setMimeType(ContentService.MimeType.JSON);
}
