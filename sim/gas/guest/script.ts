/** ScriptApp and Session. */
import type { ClockSchedule } from '../services/triggers';
import { call, GasException } from './channel';
import { enumOf } from './spreadsheet';

interface TriggerView {
  id: string;
  handler: string;
  source: string;
  eventType: string;
  sourceId: string | null;
}

class Trigger {
  constructor(private readonly v: TriggerView) {}
  getUniqueId(): string {
    return this.v.id;
  }
  getHandlerFunction(): string {
    return this.v.handler;
  }
  getEventType(): string {
    return this.v.eventType;
  }
  getTriggerSource(): string {
    return this.v.source;
  }
  getTriggerSourceId(): string | null {
    return this.v.sourceId;
  }
}

class ClockTriggerBuilder {
  private readonly schedule: ClockSchedule = {};
  constructor(private readonly handler: string) {}
  everyMinutes(n: number) {
    this.schedule.everyMinutes = n;
    return this;
  }
  everyHours(n: number) {
    this.schedule.everyHours = n;
    return this;
  }
  everyDays(n: number) {
    this.schedule.everyDays = n;
    return this;
  }
  everyWeeks(n: number) {
    this.schedule.everyWeeks = n;
    return this;
  }
  atHour(h: number) {
    this.schedule.atHour = h;
    return this;
  }
  nearMinute(m: number) {
    this.schedule.nearMinute = m;
    return this;
  }
  onWeekDay(day: string) {
    this.schedule.onWeekDay = String(day);
    return this;
  }
  inTimezone(tz: string) {
    this.schedule.timeZone = tz;
    return this;
  }
  at(date: Date) {
    this.schedule.at = date.getTime();
    return this;
  }
  after(ms: number) {
    this.schedule.after = ms;
    return this;
  }
  create(): Trigger {
    return new Trigger(
      call<TriggerView>('script', 'createTrigger', {
        handler: this.handler,
        source: 'CLOCK',
        eventType: 'CLOCK',
        schedule: this.schedule,
      }),
    );
  }
}

class SpreadsheetTriggerBuilder {
  constructor(
    private readonly handler: string,
    private readonly sourceId: string,
  ) {}
  private make(eventType: string): { create: () => Trigger } {
    return {
      create: () =>
        new Trigger(
          call<TriggerView>('script', 'createTrigger', {
            handler: this.handler,
            source: 'SPREADSHEETS',
            eventType,
            sourceId: this.sourceId,
          }),
        ),
    };
  }
  onOpen() {
    return this.make('ON_OPEN');
  }
  onEdit() {
    return this.make('ON_EDIT');
  }
  onChange() {
    return this.make('ON_CHANGE');
  }
  onFormSubmit() {
    return this.make('ON_FORM_SUBMIT');
  }
}

class StateTokenBuilder {
  private method = '';
  private readonly args: Record<string, string> = {};
  private timeout = 60;
  withMethod(name: string) {
    this.method = name;
    return this;
  }
  withArgument(name: string, value: string) {
    this.args[name] = String(value);
    return this;
  }
  withTimeout(seconds: number) {
    this.timeout = seconds;
    return this;
  }
  createToken(): string {
    return call<string>('script', 'stateToken', this.method, this.args, this.timeout);
  }
}

interface AuthorizationView {
  status: string;
  url: string | null;
  authorized: string[];
}

class AuthorizationInfo {
  constructor(private readonly v: AuthorizationView) {}
  getAuthorizationStatus(): string {
    return this.v.status;
  }
  getAuthorizationUrl(): string | null {
    return this.v.url;
  }
  getAuthorizedScopes(): string[] {
    return [...this.v.authorized];
  }
}

export function makeScriptApp() {
  return {
    getAuthorizationInfo: (_authMode: unknown, scopes?: string[]) =>
      new AuthorizationInfo(
        call<AuthorizationView>(
          'script',
          'authorizationInfo',
          Array.isArray(scopes) ? scopes.map(String) : null,
        ),
      ),
    requireScopes: (_authMode: unknown, scopes: string[]) => {
      if (!Array.isArray(scopes)) throw new GasException('Invalid argument: oAuthScopes');
      call('script', 'requireScopes', scopes.map(String));
    },
    requireAllScopes: (_authMode: unknown) => {
      call('script', 'requireAllScopes');
    },
    newTrigger: (handler: string) => ({
      timeBased: () => new ClockTriggerBuilder(handler),
      forSpreadsheet: (ss: string | { getId(): string }) =>
        new SpreadsheetTriggerBuilder(handler, typeof ss === 'string' ? ss : ss.getId()),
    }),
    getProjectTriggers: () => call<TriggerView[]>('script', 'projectTriggers').map((v) => new Trigger(v)),
    getUserTriggers: () => call<TriggerView[]>('script', 'projectTriggers').map((v) => new Trigger(v)),
    deleteTrigger: (t: Trigger) => {
      if (!(t instanceof Trigger)) throw new GasException('Invalid argument: trigger');
      call('script', 'deleteTrigger', t.getUniqueId());
    },
    getScriptId: () => call<string>('script', 'scriptId'),
    getOAuthToken: () => call<string>('script', 'oauthToken'),
    newStateToken: () => new StateTokenBuilder(),
    getService: () => ({
      getUrl: () => call<string | null>('script', 'serviceUrl'),
    }),
    AuthMode: enumOf(['NONE', 'CUSTOM_FUNCTION', 'LIMITED', 'FULL']),
    AuthorizationStatus: enumOf(['REQUIRED', 'NOT_REQUIRED']),
    TriggerSource: enumOf(['SPREADSHEETS', 'CLOCK', 'FORMS', 'DOCUMENTS', 'CALENDAR']),
    EventType: enumOf(['CLOCK', 'ON_OPEN', 'ON_EDIT', 'ON_FORM_SUBMIT', 'ON_CHANGE']),
    WeekDay: enumOf(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']),
  };
}

export function makeSession() {
  const user = (m: string) => ({ getEmail: () => call<string>('session', m) });
  return {
    getActiveUser: () => user('activeUser'),
    getEffectiveUser: () => user('effectiveUser'),
    getScriptTimeZone: () => call<string>('session', 'timeZone'),
    getActiveUserLocale: () => call<string>('session', 'locale'),
    getTemporaryActiveUserKey: () => call<string>('session', 'temporaryUserKey'),
  };
}
