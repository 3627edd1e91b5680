/**
 * The administrator policy file: how IT controls updates and the proxy
 * for every user of a machine, in a place users cannot write to.
 *   Linux    /etc/clarity-desktop/policy.json
 *   Windows  %ProgramData%\Clarity Desktop\policy.json
 *   macOS    /Library/Application Support/Clarity Desktop/policy.json
 * CLARITY_POLICY_FILE overrides the path (tests, portable installs). A missing file means the
 * defaults (updates off, system proxy). A file that does not parse or validate
 * is not half-applied: the defaults apply and the problem is reported, naming the field.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

const HttpsUrl = z
  .string()
  .max(2_048)
  .url()
  .refine((value) => value.startsWith('https://'), 'must be an https:// URL');

export const PolicySchema = z
  .object({
    updates: z
      .object({
        enabled: z.boolean().default(false),
        /** A generic electron-updater feed (a folder with latest.yml and the installers). */
        feedUrl: HttpsUrl.optional(),
        channel: z.enum(['latest', 'beta']).default('latest'),
        /** Whether users may choose to skip or delay; false: checks happen at every start. */
        checkOnStart: z.boolean().default(true),
      })
      .strict()
      .optional(),
    crashReports: z
      .object({
        /**
         * Accepted so that an older policy file stays valid (its proxy and updates still apply),
         * and ignored: crash dumps are never uploaded (docs/decisions/0012-no-crash-upload-or-update-restart-prompt.md).
         */
        allowUpload: z.boolean().default(false),
        submitUrl: HttpsUrl.optional(),
      })
      .strict()
      .optional(),
    proxy: z
      .discriminatedUnion('mode', [
        z.object({ mode: z.literal('system') }).strict(),
        z.object({ mode: z.literal('direct') }).strict(),
        z.object({ mode: z.literal('fixed'), proxyRules: z.string().min(1).max(2_048), bypassRules: z.string().max(2_048).optional() }).strict(),
        z.object({ mode: z.literal('pac'), pacUrl: z.string().url().max(2_048) }).strict(),
      ])
      .optional(),
  })
  .strict();

export type AdminPolicy = z.infer<typeof PolicySchema>;

export interface LoadedPolicy {
  policy: AdminPolicy;
  /** Where it was looked for. */
  path: string;
  state: 'absent' | 'applied' | 'invalid';
  /** For `invalid`: what is wrong, naming the field. */
  problem?: string;
}

export function policyPath(platform: NodeJS.Platform, env: Record<string, string | undefined>): string {
  if (env.CLARITY_POLICY_FILE) return env.CLARITY_POLICY_FILE;
  if (platform === 'win32') return join(env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData', 'Clarity Desktop', 'policy.json');
  if (platform === 'darwin') return '/Library/Application Support/Clarity Desktop/policy.json';
  return '/etc/clarity-desktop/policy.json';
}

export function parsePolicy(text: string): { ok: true; policy: AdminPolicy } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not valid JSON (${(error as Error).message})` };
  }
  const parsed = PolicySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? issue.path.join('.') : 'the top level';
    const keys = (issue as { keys?: string[] }).keys;
    return { ok: false, problem: `${where}: ${keys ? `unknown field ${keys.join(', ')}` : issue.message}` };
  }
  return { ok: true, policy: parsed.data };
}

export async function loadPolicy(platform: NodeJS.Platform = process.platform, env: Record<string, string | undefined> = process.env): Promise<LoadedPolicy> {
  const path = policyPath(platform, env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { policy: {}, path, state: 'absent' };
    return { policy: {}, path, state: 'invalid', problem: `cannot be read (${code ?? 'error'})` };
  }
  if (text.length > 64 * 1024) return { policy: {}, path, state: 'invalid', problem: 'larger than 64 KB' };
  const parsed = parsePolicy(text);
  return parsed.ok ? { policy: parsed.policy, path, state: 'applied' } : { policy: {}, path, state: 'invalid', problem: parsed.problem };
}

/** Electron's session.setProxy configuration for a policy (system settings when none). */
export function electronProxyConfig(policy: AdminPolicy): { mode: 'system' | 'direct' | 'fixed_servers' | 'pac_script'; proxyRules?: string; proxyBypassRules?: string; pacScript?: string } {
  const proxy = policy.proxy ?? { mode: 'system' };
  switch (proxy.mode) {
    case 'direct':
      return { mode: 'direct' };
    case 'fixed':
      // Loopback stays direct: the embedded service listens on 127.0.0.1.
      return { mode: 'fixed_servers', proxyRules: proxy.proxyRules, proxyBypassRules: ['<local>', '127.0.0.1', '::1', proxy.bypassRules].filter(Boolean).join(',') };
    case 'pac':
      return { mode: 'pac_script', pacScript: proxy.pacUrl };
    default:
      return { mode: 'system' };
  }
}
