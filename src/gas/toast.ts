/** Progress for the person who clicked a menu item; triggers have nobody to tell. */
export function toast(fromTrigger: boolean, message: string, title = '記帳'): void {
  if (fromTrigger) return;
  try {
    // Without a UI (a trigger that passed no event, the editor) there is nobody to show it to.
    SpreadsheetApp.getUi();
    SpreadsheetApp.getActiveSpreadsheet().toast(message, title, 5);
  } catch (_e) {
    // Run from the editor: no spreadsheet UI. The result still goes to ログ.
  }
}
