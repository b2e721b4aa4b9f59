/**
 * LockService: one script lock shared by every execution, user locks per user, one document lock.
 * Released automatically when an execution ends or is killed (world.endExecution/killExecution).
 */
import { GAS_MESSAGES, GasError } from '../errors';
import { method, type ServiceContext, type ServiceTable } from './method';

export type LockScope = 'script' | 'user' | 'document';

export class LockTable {
  private holders = new Map<string, number>();

  private key(scope: LockScope, user: string): string {
    return scope === 'user' ? `user:${user}` : scope;
  }

  holder(scope: LockScope, user = ''): number | undefined {
    return this.holders.get(this.key(scope, user));
  }

  /** Takes the lock if free or already ours; returns whether we hold it. */
  tryTake(scope: LockScope, user: string, execId: number): boolean {
    const k = this.key(scope, user);
    const current = this.holders.get(k);
    if (current === undefined || current === execId) {
      this.holders.set(k, execId);
      return true;
    }
    return false;
  }

  release(scope: LockScope, user: string, execId: number): void {
    const k = this.key(scope, user);
    if (this.holders.get(k) === execId) this.holders.delete(k);
  }

  releaseAll(execId: number): void {
    for (const [k, holder] of [...this.holders]) if (holder === execId) this.holders.delete(k);
  }
}

/**
 * Waiting: run one at a time (world.lockWaits 'spend'), an execution cannot see a lock held by
 * another released while it waits, so the wait spends the timeout on the virtual clock and fails, as
 * a real wait behind a long holder does. Interleaved ('scheduler'), the scheduler holds a contended
 * call until the holder releases or the timeout has passed on the clock: a failure here is the end
 * of a wait already spent.
 */
function acquire(ctx: ServiceContext, scope: LockScope, timeoutMs: number): boolean {
  if (typeof timeoutMs !== 'number' || timeoutMs < 0) throw new GasError('Invalid argument: timeoutInMillis');
  const { world, exec } = ctx;
  if (world.locks.tryTake(scope, exec.user, exec.id)) return true;
  if (world.lockWaits === 'spend') world.clock.advance(timeoutMs);
  return false;
}

export const LOCK_SERVICE: ServiceTable = {
  tryLock: method('lock', (ctx, scope: LockScope, timeoutMs: number) => acquire(ctx, scope, timeoutMs)),
  waitLock: method('lock', (ctx, scope: LockScope, timeoutMs: number) => {
    if (!acquire(ctx, scope, timeoutMs)) throw new GasError(GAS_MESSAGES.lockTimeout);
  }),
  releaseLock: method('lock', (ctx, scope: LockScope) =>
    ctx.world.locks.release(scope, ctx.exec.user, ctx.exec.id),
  ),
  hasLock: method(
    'lock',
    (ctx, scope: LockScope) => ctx.world.locks.holder(scope, ctx.exec.user) === ctx.exec.id,
  ),
};
