/**
 * The shape of an emulated service method, apart from the registry (index.ts): every service imports
 * this file, and the registry imports every service, so the two never import each other.
 */
import type { ExecutionState, ServiceKind, World } from '../world';

export interface ServiceContext {
  world: World;
  exec: ExecutionState;
}

export interface ServiceMethod {
  kind: ServiceKind;
  // biome-ignore lint/suspicious/noExplicitAny: arguments arrive as decoded JSON from the guest
  fn: (ctx: ServiceContext, ...args: any[]) => unknown;
}

export type ServiceTable = Record<string, ServiceMethod>;

/** Shorthand for declaring a method. */
export function method(kind: ServiceKind, fn: ServiceMethod['fn']): ServiceMethod {
  return { kind, fn };
}
