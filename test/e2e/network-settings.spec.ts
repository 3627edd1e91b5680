/**
 * Settings › Network and logs through the browser host: the proxy in use, where trust comes
 * from, the logs folder, and "Test connection" walking to the running local service.
 */
import { expect, test } from './fixtures';

test('Settings shows the network path and a connection test that succeeds against the local service', async ({ app, chat, settings, statusBar }, testInfo) => {
  await chat.open(app);
  await expect(statusBar.serviceState).toHaveText(/^ready/, { timeout: 60_000 });
  await settings.goTo('settings');
  await expect(settings.networkProxy).toContainText('none (direct connection)');
  await expect(settings.networkCertificates).toContainText("Node's bundled roots");
  await expect(settings.networkLogsDir).toContainText(app.dataDir);
  await settings.networkTest.click();
  const report = settings.networkReport;
  await expect(report).toHaveAttribute('data-ok', 'true');
  await expect(settings.networkHop('http')).toContainText('HTTP: the service answered HTTP 200');
  await expect(settings.networkHop('dns')).toContainText('127.0.0.1 is an address');
  await settings.networkOpenLogs.click();
  await expect(settings.networkMessage).toContainText('cannot open folders');
  await settings.network.screenshot({ path: testInfo.outputPath('network-settings.png') });
});
