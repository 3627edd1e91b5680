/**
 * `clarity-desktop://` links, the way a clicked link launches the app: the browser host is
 * started with the link (`--open`, parsed as strictly as Electron's) and the page opens it.
 */
import { expect, test } from './fixtures';

test('a clarity-desktop://saved/… link opens the saved item in the library reader', async ({ page, apps, chat, library }) => {
  const first = await apps.start();
  await chat.open(first);
  await chat.ask('Zudio store openings');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await chat.latest().saveButton.click();
  await expect(chat.lastAnswer().getByRole('status')).toHaveText('Saved to the library');
  await library.goTo('library');
  await expect(library.items).toHaveCount(1);
  const id = await library.items.first().getAttribute('data-id');
  expect(id).toMatch(/^lib_[0-9a-f]{16}$/);
  const title = await library.items.first().locator('.result-title').innerText();
  await apps.stop(first, { keepData: true });

  // Launched by the link (and by one that is not a link to anything, which is ignored).
  const second = await apps.start({ dataDir: first.dataDir, links: ['clarity-desktop://saved/../../etc/passwd', `clarity-desktop://saved/${id}`] });
  await library.open(second);
  await expect(page.getByTestId('nav-library')).toHaveAttribute('aria-current', 'page');
  await expect(library.reader.root).toBeVisible();
  await expect(library.reader.title).toHaveValue(title.trim());
  await expect(library.items.first()).toHaveClass(/active/);
  expect(second.logs()).toContain('Ignored a link given at launch');
});
