/** The desktop decisions that need no Electron: links, window placement, menu, policy, updates. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronProxyConfig, loadPolicy, parsePolicy, policyPath } from '../../src/main/desktop/admin-policy';
import { deepLinkFromArgv, formatDeepLink, parseDeepLink } from '../../src/main/desktop/deep-link';
import { buildMenuTemplate, commandsIn, rolesIn } from '../../src/main/desktop/menu-template';
import { decideUpdates, releaseNotesText } from '../../src/main/desktop/update-policy';
import { parseWindowState, restoreBounds } from '../../src/main/desktop/window-state';

describe('clarity-desktop:// links', () => {
  it('opens a conversation, a saved item, a report, or prefills a question', () => {
    expect(parseDeepLink('clarity-desktop://conversation/cnv_0123456789abcdef')).toEqual({ ok: true, link: { kind: 'conversation', id: 'cnv_0123456789abcdef' } });
    expect(parseDeepLink('clarity-desktop://saved/lib_0123456789abcdef/')).toEqual({ ok: true, link: { kind: 'saved', id: 'lib_0123456789abcdef' } });
    expect(parseDeepLink('CLARITY-DESKTOP://report/run_0123456789abcdef')).toEqual({ ok: true, link: { kind: 'report', id: 'run_0123456789abcdef' } });
    expect(parseDeepLink('clarity-desktop://ask?q=Which%20jewellery%20chains%20opened%20stores%20in%20Pune%3F')).toEqual({
      ok: true,
      link: { kind: 'ask', question: 'Which jewellery chains opened stores in Pune?' },
    });
  });

  it('rejects everything else, saying why', () => {
    const rejected: Array<[unknown, RegExp]> = [
      [42, /not a string/],
      ['not a url', /not a URL/],
      ['https://conversation/cnv_0123456789abcdef', /scheme https:/],
      ['clarity-desktop://conversation/../../etc/passwd', /exactly one id/],
      ['clarity-desktop://conversation/%2E%2E%2Fsecret', /not a conversation id/],
      ['clarity-desktop://conversation/cnv_0123456789ABCDEF', /not a conversation id/],
      ['clarity-desktop://conversation/cnv_0123456789abcdef/extra', /exactly one id/],
      ['clarity-desktop://saved/cnv_0123456789abcdef', /not a saved id/],
      ['clarity-desktop://report/run_0123456789abcdef?autorun=1', /no parameters/],
      ['clarity-desktop://user:pw@ask?q=x', /credentials/],
      ['clarity-desktop://ask?q=%20%0B%20', /empty/],
      ['clarity-desktop://ask?q=a&send=1', /exactly one parameter/],
      [`clarity-desktop://ask?q=${'a'.repeat(8_001)}`, /longer than 8000/],
      ['clarity-desktop://settings/credentials', /unknown link kind/],
      ['clarity-desktop://ask?q=hi#frag', /fragment/],
      [`clarity-desktop://ask?q=${'x'.repeat(20_000)}`, /longer than 10000 characters/],
    ];
    for (const [input, reason] of rejected) {
      const result = parseDeepLink(input);
      expect(result.ok, String(input).slice(0, 60)).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
    }
  });

  it('strips control and bidi-override characters from a prefilled question', () => {
    const result = parseDeepLink(`clarity-desktop://ask?q=${encodeURIComponent('Zudio\u202e stores\u0007 in Surat')}`);
    expect(result).toEqual({ ok: true, link: { kind: 'ask', question: 'Zudio stores in Surat' } });
  });

  it('finds the link in a second launch\'s command line, and formats links that parse back', () => {
    expect(deepLinkFromArgv(['/opt/Clarity Desktop/clarity-desktop', '--no-sandbox', 'clarity-desktop://saved/lib_0123456789abcdef'])).toBe('clarity-desktop://saved/lib_0123456789abcdef');
    expect(deepLinkFromArgv(['app', '--flag=clarity-desktop://x'])).toBeNull();
    const link = { kind: 'ask', question: 'GMV of D2C beauty brands & their margins?' } as const;
    expect(parseDeepLink(formatDeepLink(link))).toEqual({ ok: true, link });
  });
});

describe('window state', () => {
  const laptop = { x: 0, y: 0, width: 1440, height: 875 };
  const monitor = { x: 1440, y: -200, width: 2560, height: 1400 };

  it('opens centred at the default size the first time', () => {
    expect(restoreBounds(null, [laptop])).toEqual({ x: 80, y: 28, width: 1280, height: 820, maximized: false });
  });

  it('restores the window on the second monitor where it was', () => {
    const saved = { x: 1600, y: 0, width: 1800, height: 1000, maximized: false };
    expect(restoreBounds(saved, [laptop, monitor])).toEqual(saved);
  });

  it('brings the window back when its monitor is gone, keeping its size where it fits', () => {
    const saved = { x: 1600, y: 0, width: 1800, height: 1000, maximized: true };
    expect(restoreBounds(saved, [laptop])).toEqual({ x: 0, y: 0, width: 1440, height: 875, maximized: true });
  });

  it('pulls a window hanging off an edge back inside the display it is on', () => {
    const saved = { x: 1200, y: 700, width: 900, height: 600, maximized: false };
    expect(restoreBounds(saved, [laptop])).toEqual({ x: 540, y: 275, width: 900, height: 600, maximized: false });
  });

  it('ignores a corrupt saved state', () => {
    expect(parseWindowState({ x: 'a', y: 0, width: 10, height: 10 })).toBeNull();
    expect(parseWindowState({ x: 0, y: 0, width: -5, height: 10 })).toBeNull();
    expect(parseWindowState(null)).toBeNull();
    expect(parseWindowState({ x: 1.4, y: 2, width: 800.6, height: 600, maximized: 'yes' })).toEqual({ x: 1, y: 2, width: 801, height: 600, maximized: false });
  });
});

describe('application menu', () => {
  it('has the standard roles and the app\'s shortcuts', () => {
    const template = buildMenuTemplate({ platform: 'linux', appName: 'Clarity Desktop', packaged: true, updatesEnabled: false });
    expect(rolesIn(template)).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'quit', 'windowMenu', 'zoomIn', 'zoomOut', 'resetZoom', 'about']));
    expect(commandsIn(template)).toEqual(expect.arrayContaining(['new-conversation', 'open-settings', 'open-logs-folder', 'open-ask', 'open-library']));
    expect(JSON.stringify(template)).toContain('"accelerator":"CmdOrCtrl+N"');
  });

  it('has no Reload or DevTools in a packaged build; development builds have both', () => {
    const packaged = rolesIn(buildMenuTemplate({ platform: 'win32', appName: 'Clarity Desktop', packaged: true, updatesEnabled: false }));
    expect(packaged).not.toContain('toggleDevTools');
    expect(packaged).not.toContain('reload');
    const dev = rolesIn(buildMenuTemplate({ platform: 'win32', appName: 'Clarity Desktop', packaged: false, updatesEnabled: false }));
    expect(dev).toEqual(expect.arrayContaining(['toggleDevTools', 'reload']));
  });

  it('on macOS puts About, Settings and Quit in the app menu; updates appear only when allowed', () => {
    const template = buildMenuTemplate({ platform: 'darwin', appName: 'Clarity Desktop', packaged: true, updatesEnabled: true });
    expect(template[0]!.label).toBe('Clarity Desktop');
    expect(rolesIn([template[0]!])).toEqual(expect.arrayContaining(['about', 'hide', 'quit']));
    expect(commandsIn([template[0]!])).toEqual(['check-for-updates', 'open-settings']);
    expect(commandsIn(buildMenuTemplate({ platform: 'darwin', appName: 'x', packaged: true, updatesEnabled: false }))).not.toContain('check-for-updates');
  });
});

describe('administrator policy', () => {
  it('lives where only administrators write, per platform', () => {
    expect(policyPath('linux', {})).toBe('/etc/clarity-desktop/policy.json');
    expect(policyPath('win32', { ProgramData: 'C:\\ProgramData' })).toContain('Clarity Desktop');
    expect(policyPath('darwin', {})).toBe('/Library/Application Support/Clarity Desktop/policy.json');
    expect(policyPath('linux', { CLARITY_POLICY_FILE: '/tmp/p.json' })).toBe('/tmp/p.json');
  });

  it('names the field that is wrong, and applies nothing from an invalid file', async () => {
    expect(parsePolicy('{"updates":{"enabled":true,"feedUrl":"http://updates.example.com"}}')).toEqual({ ok: false, problem: 'updates.feedUrl: must be an https:// URL' });
    expect(parsePolicy('{"updates":{"enable":true}}')).toEqual({ ok: false, problem: 'updates: unknown field enable' });
    expect(parsePolicy('{nope')).toMatchObject({ ok: false, problem: expect.stringMatching(/^not valid JSON/) });
    const dir = await mkdtemp(join(tmpdir(), 'clarity-policy-'));
    try {
      const file = join(dir, 'policy.json');
      expect(await loadPolicy('linux', { CLARITY_POLICY_FILE: file })).toMatchObject({ state: 'absent', policy: {} });
      await writeFile(file, '{"updates":{"enabled":true,"feedUrl":"https://updates.example.com/clarity"},"crashReports":{"allowUpload":"yes"}}');
      const invalid = await loadPolicy('linux', { CLARITY_POLICY_FILE: file });
      expect(invalid).toMatchObject({ state: 'invalid', policy: {}, problem: expect.stringContaining('crashReports.allowUpload') });
      await writeFile(file, '{"updates":{"enabled":true,"feedUrl":"https://updates.example.com/clarity"}}');
      const applied = await loadPolicy('linux', { CLARITY_POLICY_FILE: file });
      expect(applied.state).toBe('applied');
      expect(decideUpdates(applied, true)).toEqual({ enabled: true, feedUrl: 'https://updates.example.com/clarity', channel: 'latest', checkOnStart: true });
      expect(decideUpdates(invalid, true)).toMatchObject({ enabled: false, reason: expect.stringContaining('invalid') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('maps the proxy policy to Electron, keeping loopback direct', () => {
    expect(electronProxyConfig({})).toEqual({ mode: 'system' });
    expect(electronProxyConfig({ proxy: { mode: 'fixed', proxyRules: 'http=proxy:3128;https=proxy:3128', bypassRules: '.corp.example' } })).toEqual({
      mode: 'fixed_servers',
      proxyRules: 'http=proxy:3128;https=proxy:3128',
      proxyBypassRules: '<local>,127.0.0.1,::1,.corp.example',
    });
    expect(electronProxyConfig({ proxy: { mode: 'pac', pacUrl: 'http://wpad.corp.example/wpad.dat' } })).toEqual({ mode: 'pac_script', pacScript: 'http://wpad.corp.example/wpad.dat' });
  });
});

describe('updates', () => {
  const absent = { policy: {}, state: 'absent' as const, path: '/etc/clarity-desktop/policy.json' };
  it('are off by default and in development builds', () => {
    expect(decideUpdates(absent, true)).toMatchObject({ enabled: false, reason: expect.stringContaining('no administrator policy') });
    expect(decideUpdates({ ...absent, state: 'applied', policy: { updates: { enabled: true, feedUrl: 'https://u.example.com', channel: 'latest', checkOnStart: true } } }, false)).toMatchObject({ enabled: false });
    expect(decideUpdates({ ...absent, state: 'applied', policy: { updates: { enabled: true, channel: 'latest', checkOnStart: true } } }, true)).toMatchObject({ enabled: false, reason: expect.stringContaining('feedUrl') });
  });

  it('show what changed as plain text, whatever shape the notes come in', () => {
    expect(releaseNotesText('<h2>1.2.0</h2><ul><li>Faster <b>research</b></li><li>Fix &amp; polish</li></ul><script>alert(1)</script>')).toBe('1.2.0\n• Faster research\n• Fix & polish\nalert(1)');
    expect(releaseNotesText([{ version: '1.2.0', note: 'New export' }, { version: '1.1.0', note: null }])).toBe('1.2.0\nNew export');
    expect(releaseNotesText(undefined)).toBe('No release notes were published for this version.');
  });
});
