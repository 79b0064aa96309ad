import type { BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, launchChromium } from './chromium';
import { locatorWait } from './locatorMatchers';

/**
 * The browser suites' waiting matchers (issue 44 §7), on a page the test changes itself: each
 * matcher is started before the page shows what it expects, so it passes only by waiting, and a
 * one-shot read taken at the same moment shows the race the old assertions lost.
 */
describeWithChromium('locator matchers that wait for what they assert', () => {
  let browser: BrowserContext;
  let page: Page;
  const render = (script: string) => page.evaluate(script);

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(() => browser?.close());
  beforeEach(() =>
    page.setContent(
      '<table><thead><tr><th>Asset</th></tr></thead></table><p data-testid="n">loading</p>' +
        '<input aria-label="Role" value="viewer"><button disabled>Go</button><ul></ul>',
    ),
  );

  it('toHaveCount waits for a column header the page adds later, where a one-shot count() reads 0', async () => {
    const header = page.getByRole('columnheader', { name: 'Fee rate' });
    const waiting = expect(header).toHaveCount(1);
    // What consoleSweeps read once on a loaded machine: the header not rendered yet.
    expect(await header.count()).toBe(0);
    await render('document.querySelector("thead tr").insertAdjacentHTML("beforeend", "<th>Fee rate</th>")');
    await waiting;
  });

  it('toHaveText, toContainText, toHaveValue, toHaveAttribute and toBeEnabled wait for the page to change', async () => {
    const n = page.getByTestId('n');
    const role = page.getByLabel('Role');
    const go = page.getByRole('button', { name: 'Go' });
    const items = page.locator('li');
    const waiting = Promise.all([
      expect(n).toHaveText('1 of 2'),
      expect(n).toHaveText(/^\d of 2$/),
      expect(n).toContainText('of 2'),
      expect(role).toHaveValue('admin'),
      expect(n).toHaveAttribute('data-state', 'counted'),
      expect(go).toBeEnabled(),
      expect(items).toHaveText(['prepared', expect.stringMatching(/^signed /)]),
      expect(n).not.toHaveText('loading'),
    ]);
    expect(await n.textContent()).toBe('loading');
    await render(`(() => {
      const n = document.querySelector('[data-testid=n]');
      n.textContent = '1 of 2';
      n.setAttribute('data-state', 'counted');
      document.querySelector('input').value = 'admin';
      document.querySelector('button').disabled = false;
      document.querySelector('ul').innerHTML = '<li>prepared</li><li>signed by ada</li>';
    })()`);
    await waiting;
  });

  it('a wrong expectation still fails once the wait is over, saying what the page showed', async () => {
    const before = locatorWait.timeoutMs;
    locatorWait.timeoutMs = 500;
    try {
      await expect(expect(page.getByTestId('n')).toHaveText('2 of 2')).rejects.toThrow(/Received: .*"loading"/);
      await expect(expect(page.locator('th')).toHaveCount(2)).rejects.toThrow(/Received: .*1/);
      await expect(expect(page.getByTestId('missing')).toHaveText('x')).rejects.toThrow(/Could not read it: .*Timeout/);
    } finally {
      locatorWait.timeoutMs = before;
    }
  });
});
