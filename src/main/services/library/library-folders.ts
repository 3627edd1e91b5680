/**
 * Which folders may become a team library (issue 29): never a system folder — the root of a
 * drive, the OS's own folders or anything inside them — checked on the real path, so a link
 * in the home folder that points at /etc is refused too.
 */
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve, sep } from 'node:path';

/** The folder and everything under it belongs to the system. */
const POSIX_SYSTEM = ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run', '/sbin', '/sys', '/usr', '/var', '/snap', '/System', '/Library', '/private', '/Applications'];
const WINDOWS_SYSTEM = ['windows', 'program files', 'program files (x86)', 'programdata', '$recycle.bin', 'system volume information', 'recovery'];

let realTmpDir: string | undefined;
const realTmp = (): string => (realTmpDir ??= (() => {
  try {
    return realpathSync(tmpdir());
  } catch {
    return tmpdir();
  }
})());

const inside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}/`);

/** Why `path` (already absolute) may not be a library folder, or null when it may. */
export function systemFolderReason(path: string, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'win32' || /^[a-zA-Z]:[\\/]|^\\\\/.test(path)) {
    const normal = path.replace(/\//g, '\\').replace(/\\+$/, '');
    if (/^[a-zA-Z]:$/.test(normal) || /^\\\\[^\\]+\\[^\\]+$/.test(normal)) return `${path} is the root of a drive or share; choose a folder inside it.`;
    const top = /^[a-zA-Z]:\\([^\\]+)/.exec(normal)?.[1]?.toLowerCase();
    return top && WINDOWS_SYSTEM.includes(top) ? `${path} is a system folder; choose a folder of your own (for example in Documents or a synced drive).` : null;
  }
  const normal = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (normal === '/') return 'The root folder (/) cannot be a library; choose a folder of your own.';
  // The temporary folder is the user's own, even where it lives under /var or /private (macOS).
  if ([tmpdir(), realTmp(), '/tmp'].some((folder) => inside(normal, folder))) return null;
  const system = POSIX_SYSTEM.find((folder) => inside(normal, folder));
  return system ? `${path} is a system folder (${system}); choose a folder of your own (for example in your home folder or a synced drive).` : null;
}

/** The check on the path as given and on the folder it really is (links resolved, when it exists). */
export async function refuseSystemFolder(path: string): Promise<string | null> {
  const given = systemFolderReason(resolve(path));
  if (given) return given;
  const real = await realpath(path).catch(() => null);
  if (real && real !== resolve(path)) {
    const reason = systemFolderReason(real);
    if (reason) return `${path} leads to ${real}: ${reason}`;
  }
  return null;
}
