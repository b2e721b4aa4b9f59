/**
 * The triggers kicho installs, each with what 初期設定, 設定 and 自動実行の設定 say about it (DESIGN §3: one
 * owner for every trigger): the schedule every 照合間隔（分）, the nightly backup, the weekly 売掛金チェック.
 */
import { blockingProblems } from '../core/settings';
import { readSettings } from '../gas/settings-sheet';
import { installBackupTrigger, installReceivablesTrigger, installScheduleTrigger } from '../gas/triggers';

/** Installs (or replaces) the runScheduled trigger every 照合間隔（分）. */
export function scheduleMessage(): string {
  const { settings, problems } = readSettings();
  const bad = blockingProblems(problems, ['照合間隔（分）']);
  if (bad.length > 0)
    return `${bad.map((p) => `${p.cell} ${p.message}`).join(' ')} 定期実行のトリガーは変えていません（直してから「初期設定」を実行してください）。`;
  const outcome = installScheduleTrigger(settings.reconcileIntervalMinutes);
  if (outcome.kind === 'owned-by-other') {
    return `定期実行のトリガーは ${outcome.owner} が設定しています（トリガーは作った人のアカウントで動き、ほかの人には見えません）。変更は ${outcome.owner} が「初期設定」を実行してください。`;
  }
  return outcome.kind === 'installed'
    ? `定期実行（照合）を ${outcome.interval} 分ごとに設定しました。`
    : `定期実行（照合）は ${outcome.interval} 分ごとのままです。`;
}

/** Installs the daily backup trigger once (DESIGN §3 records one owner for every trigger). */
export function backupTriggerMessage(): string {
  return installBackupTrigger() === 'installed'
    ? '台帳のバックアップを毎日 3 時ごろに行うよう設定しました。'
    : '';
}

/** The weekly 売掛金チェック follows 設定 売掛金の定期チェック. */
export function receivablesTriggerMessage(): string {
  const { settings, problems } = readSettings();
  const bad = blockingProblems(problems, ['売掛金の定期チェック']);
  if (bad.length > 0)
    return `${bad.map((p) => `${p.cell} ${p.message}`).join(' ')} 売掛金の定期チェックのトリガーは変えていません。`;
  const outcome = installReceivablesTrigger(settings.receivablesWeekly);
  if (outcome === 'installed') return '売掛金チェックを毎週月曜 8 時ごろに行うよう設定しました。';
  if (outcome === 'removed') return '売掛金の定期チェックを止めました。';
  return '';
}
