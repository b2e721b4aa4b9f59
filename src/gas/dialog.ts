/**
 * Questions to the person who clicked a menu. Without a UI (a trigger, the script editor) every
 * question is answered "no": only a person can take a risk on purpose.
 */

/** The spreadsheet's UI; throws when the execution has none (a trigger, the editor). */
export function spreadsheetUi(): GoogleAppsScript.Base.Ui {
  return SpreadsheetApp.getUi();
}

/** A template from one of the project's HTML files (src/ui/NAME.html), to fill and evaluate. */
export function htmlTemplate(file: string): GoogleAppsScript.HTML.HtmlTemplate {
  return HtmlService.createTemplateFromFile(file);
}

/** True only when the person typed `word` and pressed OK: a default click never confirms. */
export function confirmByTyping(title: string, message: string, word: string): boolean {
  try {
    const ui = SpreadsheetApp.getUi();
    const answer = ui.prompt(
      title,
      `${message}\n\n続けるには「${word}」と入力して OK を押してください。`,
      ui.ButtonSet.OK_CANCEL,
    );
    return answer.getSelectedButton() === ui.Button.OK && answer.getResponseText().trim() === word;
  } catch (_e) {
    return false;
  }
}
