/** Menu 「ヘルプ」: the daily steps, what each 状態 means, and what to do when something stops. */
export function openHelp(): void {
  const html = HtmlService.createTemplateFromFile('help').evaluate().setWidth(560).setHeight(620);
  SpreadsheetApp.getUi().showModalDialog(html, 'ヘルプ');
}
