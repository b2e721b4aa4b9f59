/** LockService, PropertiesService and CacheService: small objects over world calls. */
import { call } from './channel';

class Lock {
  constructor(private readonly scope: 'script' | 'user' | 'document') {}
  tryLock(timeoutInMillis: number): boolean {
    return call<boolean>('lock', 'tryLock', this.scope, timeoutInMillis);
  }
  waitLock(timeoutInMillis: number): void {
    call('lock', 'waitLock', this.scope, timeoutInMillis);
  }
  releaseLock(): void {
    call('lock', 'releaseLock', this.scope);
  }
  hasLock(): boolean {
    return call<boolean>('lock', 'hasLock', this.scope);
  }
}

export function makeLockService() {
  return {
    getScriptLock: () => new Lock('script'),
    getUserLock: () => new Lock('user'),
    getDocumentLock: () => new Lock('document'),
  };
}

class Properties {
  constructor(private readonly scope: 'script' | 'user' | 'document') {}
  getProperty(key: string): string | null {
    return call<string | null>('properties', 'get', this.scope, key);
  }
  setProperty(key: string, value: string): Properties {
    call('properties', 'set', this.scope, key, value);
    return this;
  }
  setProperties(values: Record<string, string>, deleteAllOthers?: boolean): Properties {
    call('properties', 'setMany', this.scope, values, !!deleteAllOthers);
    return this;
  }
  getProperties(): Record<string, string> {
    return call<Record<string, string>>('properties', 'all', this.scope);
  }
  getKeys(): string[] {
    return call<string[]>('properties', 'keys', this.scope);
  }
  deleteProperty(key: string): Properties {
    call('properties', 'delete', this.scope, key);
    return this;
  }
  deleteAllProperties(): Properties {
    call('properties', 'deleteAll', this.scope);
    return this;
  }
}

export function makePropertiesService() {
  return {
    getScriptProperties: () => new Properties('script'),
    getUserProperties: () => new Properties('user'),
    getDocumentProperties: () => new Properties('document'),
  };
}

class Cache {
  constructor(private readonly scope: 'script' | 'user' | 'document') {}
  get(key: string): string | null {
    return call<string | null>('cache', 'get', this.scope, key);
  }
  getAll(keys: string[]): Record<string, string> {
    return call<Record<string, string>>('cache', 'getAll', this.scope, keys);
  }
  put(key: string, value: string, expirationInSeconds?: number): void {
    call('cache', 'put', this.scope, key, value, expirationInSeconds ?? null);
  }
  putAll(values: Record<string, string>, expirationInSeconds?: number): void {
    call('cache', 'putAll', this.scope, values, expirationInSeconds ?? null);
  }
  remove(key: string): void {
    call('cache', 'remove', this.scope, key);
  }
  removeAll(keys: string[]): void {
    call('cache', 'removeAll', this.scope, keys);
  }
}

export function makeCacheService() {
  return {
    getScriptCache: () => new Cache('script'),
    getUserCache: () => new Cache('user'),
    getDocumentCache: () => new Cache('document'),
  };
}
