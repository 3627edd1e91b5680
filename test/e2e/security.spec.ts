/**
 * Security properties checked in a real browser through the browser host: the CSP is enforced
 * (a violation is triggered and reported), the renderer cannot reach the network itself, and
 * window.clarity is the bridge contract and nothing more.
 */
import { expect, test, triggerCspViolation } from './fixtures';

test('the browser host exposes no bridge global, keeps its session cookie HttpOnly and drops the token from the URL', async ({ page, fileApp, chat }) => {
  // The file's first test: it opens the shared app through its one-time launch link, whose token must leave the URL.
  expect(fileApp.session, 'the app is opened here for the first time').toBeUndefined();
  await chat.open(fileApp);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { clarity?: object }).clarity)).toBe('undefined');
  // In the browser host the bridge is a module, not a global: nothing for injected code to grab.
  const keys = await page.evaluate(() => Object.keys(window).filter((key) => /clarity|ipc|bridge|token/i.test(key)));
  expect(keys).toEqual([]);
  expect(await page.evaluate(() => document.cookie)).toBe(''); // the session cookie is HttpOnly
  expect(await page.evaluate(() => location.search)).toBe(''); // the launch token left the address bar
});

test('the CSP is enforced: an injected inline script and inline handler do not run, and a violation is reported', async ({ page, fileApp, chat }) => {
  await chat.open(fileApp);
  const violation = await triggerCspViolation(page);
  expect(violation).toMatch(/^script-src/);
  expect(await page.evaluate(() => (window as unknown as { __injected?: number }).__injected)).toBeUndefined();
  // Wait for the image's error event itself: the inline handler, registered first, would have
  // run before this listener.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const img = document.createElement('img');
        img.setAttribute('onerror', 'window.__handler = 1');
        img.addEventListener('error', () => resolve(), { once: true });
        img.setAttribute('src', 'data:,x');
        document.body.append(img);
      }),
  );
  expect(await page.evaluate(() => (window as unknown as { __handler?: number }).__handler)).toBeUndefined();
});

test('the renderer cannot reach the network itself: the CSP blocks connect-src, not just CORS', async ({ page, fileApp, chat, statusBar }) => {
  await chat.open(fileApp);
  const serviceUrl = await statusBar.serviceUrl();
  // A CORS refusal would also make fetch fail; only a connect-src violation proves the CSP did it.
  const outcome = await page.evaluate(async (url) => {
    const violation = new Promise<string>((resolve) =>
      document.addEventListener('securitypolicyviolation', (event) => resolve(`${event.effectiveDirective} ${event.blockedURI}`), { once: true }),
    );
    let fetched = 'fetched';
    try {
      await fetch(`${url}/api/v1/sources/health`);
    } catch {
      fetched = 'blocked';
    }
    return { fetched, violation: await violation };
  }, serviceUrl);
  expect(outcome.fetched).toBe('blocked');
  expect(outcome.violation).toBe(`connect-src ${serviceUrl}/api/v1/sources/health`);
});
