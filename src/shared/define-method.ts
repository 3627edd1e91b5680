/**
 * One entry of the bridge's method table: the argument schema main validates with, and the
 * result type the renderer receives. `defineMethod(ArgsSchema).returns<Result>()`.
 */
import type { z } from 'zod';

export interface MethodSpec<Args extends z.ZodType, R> {
  readonly args: Args;
  /** Type-only marker carrying the result type; never called. */
  readonly result: (value: R) => void;
}

export function defineMethod<Args extends z.ZodType>(args: Args): { returns<R>(): MethodSpec<Args, R> } {
  return { returns: () => ({ args, result: () => undefined }) };
}

/** The result type a method spec declares. */
export type MethodResult<S> = S extends MethodSpec<z.ZodType, infer R> ? R : never;
