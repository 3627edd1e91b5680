/**
 * Settings › Network and logs through the browser host: the proxy in use, where trust comes
 * from, the logs folder, and "Test connection" walking to the running local service.
 */
import { expect, test } from './fixtures';

test('Settings shows the network path and a connection test that succeeds against the local service', async ({ page, app, chat }, testInfo) => {
  await chat.open(app);
  await expect(page.getByTestId('service-state')).toHaveText(/^ready/, { timeout: 60_000 });
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('network-proxy')).toContainText('none (direct connection)');
  await expect(page.getByTestId('network-certificates')).toContainText("Node's bundled roots");
  await expect(page.getByTestId('network-logs-dir')).toContainText(app.dataDir);
  await page.getByTestId('network-test').click();
  const report = page.getByTestId('network-report');
  await expect(report).toHaveAttribute('data-ok', 'true');
  await expect(report.locator('[data-hop="http"]')).toContainText('HTTP: the service answered HTTP 200');
  await expect(report.locator('[data-hop="dns"]')).toContainText('127.0.0.1 is an address');
  await page.getByTestId('network-open-logs').click();
  await expect(page.getByTestId('network-message')).toContainText('cannot open folders');
  await page.getByTestId('network-settings').screenshot({ path: testInfo.outputPath('network-settings.png') });
});
