/** Who runs this execution. getActiveUser() can be empty (triggers, consumer accounts), so fall back. */
export function currentUserEmail(): string {
  const active = Session.getActiveUser().getEmail();
  if (active) return active;
  return Session.getEffectiveUser().getEmail();
}

/** Trigger executions receive an event carrying triggerUid; menu clicks receive nothing. */
export function isTriggerEvent(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'triggerUid' in e;
}
