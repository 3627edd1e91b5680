/**
 * The most turns one `conversations.turns` call returns (a window is ± 20 rows, far under it).
 * A module of its own, free of zod, so the renderer's start-up bundle can read it without the
 * bridge contract's schemas (scripts/check-bundle-size.mjs).
 */
export const TURN_READ_MAX = 200;
