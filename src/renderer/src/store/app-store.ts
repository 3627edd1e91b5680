/** Kept so existing imports keep working; the store is ./index.ts, one file per slice. */
export * from './index';
