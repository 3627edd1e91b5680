/** pino-roll ships no types; this is the part of its API log-files.ts uses. */
declare module 'pino-roll' {
  import type SonicBoom from 'sonic-boom';
  interface RollOptions {
    file: string;
    extension?: string;
    size?: string | number;
    frequency?: 'daily' | 'hourly' | number;
    limit?: { count: number; removeOtherLogFiles?: boolean };
    mkdir?: boolean;
    mode?: number;
    sync?: boolean;
    symlink?: boolean;
    dateFormat?: string;
  }
  export default function roll(options: RollOptions): Promise<SonicBoom>;
}
