import { Construct, IConstruct } from 'constructs';

/** A child that holds what the library remembers of its parent (found by id: it works with two copies of the library loaded). */
class State<T> extends Construct {
  constructor(scope: Construct, id: string, public readonly value: T) {
    super(scope, id);
  }
}

/**
 * The state the library keeps on `scope` under `id` (namespaced, e.g. `cdk-s3files-lambda.Volumes`),
 * created by `init` on first use. No module-level maps: the state lives and dies with its construct.
 */
export function stateOf<T>(scope: IConstruct, id: string, init: () => T): T {
  const existing = scope.node.tryFindChild(id) as (IConstruct & { readonly value?: T }) | undefined;
  if (existing?.value !== undefined) return existing.value;
  return new State(scope as Construct, id, init()).value;
}

/** The state on `scope` under `id`, if some was kept. */
export function findState<T>(scope: IConstruct, id: string): T | undefined {
  return (scope.node.tryFindChild(id) as (IConstruct & { readonly value?: T }) | undefined)?.value;
}

/**
 * Marks `scope` with a flag (a non-enumerable property under a global symbol, so another copy of
 * the library reads it too): cheaper than a child construct where there is nothing to keep but the fact.
 */
export function mark(scope: IConstruct, key: string): void {
  Object.defineProperty(scope, Symbol.for(key), { value: true, enumerable: false, configurable: true });
}

/** Whether `scope` carries the flag `mark` set. */
export function isMarked(scope: IConstruct, key: string): boolean {
  return (scope as unknown as Record<symbol, unknown>)[Symbol.for(key)] === true;
}

/** Like `mark`, with a string to keep (read with `noteOf`). */
export function note(scope: IConstruct, key: string, value: string): void {
  Object.defineProperty(scope, Symbol.for(key), { value, enumerable: false, configurable: true });
}

/** The string `note` kept on `scope` under `key`, if any. */
export function noteOf(scope: IConstruct, key: string): string | undefined {
  const value = (scope as unknown as Record<symbol, unknown>)[Symbol.for(key)];
  return typeof value === 'string' ? value : undefined;
}
