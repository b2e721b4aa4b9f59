/** PropertiesService: script, document and per-user stores with the documented size limits. */
import { GAS_MESSAGES, GasError } from '../errors';
import { method, type ServiceContext, type ServiceTable } from './method';

export type PropertyScope = 'script' | 'user' | 'document';

/** 9 KB per value, 500 KB per store (reference/gas-platform.md §5.1); keys count toward the total. */
export const PROPERTY_VALUE_LIMIT = 9 * 1024;
export const PROPERTY_STORE_LIMIT = 500 * 1024;

export class PropertyStores {
  readonly script = new Map<string, string>();
  readonly document = new Map<string, string>();
  readonly users = new Map<string, Map<string, string>>();

  store(scope: PropertyScope, user: string): Map<string, string> {
    if (scope === 'script') return this.script;
    if (scope === 'document') return this.document;
    let store = this.users.get(user);
    if (!store) {
      store = new Map();
      this.users.set(user, store);
    }
    return store;
  }
}

function size(store: Map<string, string>): number {
  let n = 0;
  for (const [k, v] of store) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

function put(store: Map<string, string>, key: string, value: unknown): void {
  const text = String(value);
  if (Buffer.byteLength(text) > PROPERTY_VALUE_LIMIT) throw new GasError(GAS_MESSAGES.propertyValueTooLarge);
  const previous = store.get(key);
  store.set(key, text);
  if (size(store) > PROPERTY_STORE_LIMIT) {
    if (previous === undefined) store.delete(key);
    else store.set(key, previous);
    throw new GasError(GAS_MESSAGES.propertyQuota);
  }
}

function storeOf(ctx: ServiceContext, scope: PropertyScope) {
  return ctx.world.properties.store(scope, ctx.exec.user);
}

export const PROPERTIES_SERVICE: ServiceTable = {
  get: method('properties', (ctx, scope: PropertyScope, key: string) => storeOf(ctx, scope).get(key) ?? null),
  set: method('properties', (ctx, scope: PropertyScope, key: string, value: unknown) =>
    put(storeOf(ctx, scope), key, value),
  ),
  setMany: method(
    'properties',
    (ctx, scope: PropertyScope, values: Record<string, unknown>, deleteOthers: boolean) => {
      const store = storeOf(ctx, scope);
      if (deleteOthers) store.clear();
      for (const [k, v] of Object.entries(values)) put(store, k, v);
    },
  ),
  delete: method('properties', (ctx, scope: PropertyScope, key: string) => {
    storeOf(ctx, scope).delete(key);
  }),
  deleteAll: method('properties', (ctx, scope: PropertyScope) => storeOf(ctx, scope).clear()),
  all: method('properties', (ctx, scope: PropertyScope) => Object.fromEntries(storeOf(ctx, scope))),
  keys: method('properties', (ctx, scope: PropertyScope) => [...storeOf(ctx, scope).keys()]),
};
