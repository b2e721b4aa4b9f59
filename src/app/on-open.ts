import { spreadsheetUi } from '../gas/dialog';
import { addMenu } from '../ui/menu';

/** Simple trigger: only adds the menu (no authorised services, 30-second limit). */
export function onOpen(_e?: GoogleAppsScript.Events.SheetsOnOpen): void {
  addMenu(spreadsheetUi());
}
