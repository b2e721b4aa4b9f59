/** CacheService with the documented limits (reference/gas-platform.md §5.2). */
import { GasError } from '../errors';
import { method, type ServiceContext, type ServiceTable } from './method';

export type CacheScope = 'script' | 'user' | 'document';

const KEY_LIMIT = 250;
const VALUE_LIMIT = 100 * 1024;
const MAX_TTL_S = 21_600;
const DEFAULT_TTL_S = 600;
const CAPACITY = 1000;
const KEEP_AFTER_EVICTION = 900;

interface Entry {
  value: string;
  expires: number;
}

export class CacheStores {
  private stores = new Map<string, Map<string, Entry>>();
  /** When true, every get misses: "expiration is only a suggestion". */
  evictEverything = false;

  constructor(private readonly now: () => number) {}

  store(scope: CacheScope, user: string): Map<string, Entry> {
    const k = scope === 'user' ? `user:${user}` : scope;
    let s = this.stores.get(k);
    if (!s) {
      s = new Map();
      this.stores.set(k, s);
    }
    return s;
  }

  get(store: Map<string, Entry>, key: string): string | null {
    const e = store.get(key);
    if (!e || this.evictEverything) return null;
    if (e.expires <= this.now()) {
      store.delete(key);
      return null;
    }
    return e.value;
  }

  put(store: Map<string, Entry>, key: string, value: unknown, ttlSeconds?: number): void {
    if (key.length > KEY_LIMIT) throw new GasError('Argument too large: key');
    const text = String(value);
    if (Buffer.byteLength(text) > VALUE_LIMIT) throw new GasError('Argument too large: value');
    const ttl = Math.min(Math.max(ttlSeconds ?? DEFAULT_TTL_S, 1), MAX_TTL_S);
    store.set(key, { value: text, expires: this.now() + ttl * 1000 });
    if (store.size > CAPACITY) {
      // Keep the entries farthest from expiry, as documented.
      const kept = [...store].sort((a, b) => b[1].expires - a[1].expires).slice(0, KEEP_AFTER_EVICTION);
      store.clear();
      for (const [k, e] of kept) store.set(k, e);
    }
  }
}

function storeOf(ctx: ServiceContext, scope: CacheScope) {
  return ctx.world.caches.store(scope, ctx.exec.user);
}

export const CACHE_SERVICE: ServiceTable = {
  get: method('other', (ctx, scope: CacheScope, key: string) =>
    ctx.world.caches.get(storeOf(ctx, scope), key),
  ),
  getAll: method('other', (ctx, scope: CacheScope, keys: string[]) => {
    const out: Record<string, string> = {};
    for (const k of keys) {
      const v = ctx.world.caches.get(storeOf(ctx, scope), k);
      if (v !== null) out[k] = v;
    }
    return out;
  }),
  put: method('other', (ctx, scope: CacheScope, key: string, value: unknown, ttl?: number) =>
    ctx.world.caches.put(storeOf(ctx, scope), key, value, ttl ?? undefined),
  ),
  putAll: method('other', (ctx, scope: CacheScope, values: Record<string, unknown>, ttl?: number) => {
    for (const [k, v] of Object.entries(values))
      ctx.world.caches.put(storeOf(ctx, scope), k, v, ttl ?? undefined);
  }),
  remove: method('other', (ctx, scope: CacheScope, key: string) => {
    storeOf(ctx, scope).delete(key);
  }),
  removeAll: method('other', (ctx, scope: CacheScope, keys: string[]) => {
    for (const k of keys) storeOf(ctx, scope).delete(k);
  }),
};
