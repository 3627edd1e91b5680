/**
 * The service's health rule in the app's words (issue 47 item 3): the health view sets out the
 * service's own `health_rule` clause by clause ("cadence" read as "fetch interval"), quotes a rule
 * in another form as the service wrote it, and says so when a service states none.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { HEALTH_RULE } from '../../src/service/feed/feed-health';
import { HealthFiguresExplained, ruleClauses } from '../../src/renderer/src/features/health/health-figures';

afterEach(cleanup);

describe('the health rule, clause by clause', () => {
  it("reads the local service's own rule as three words with their meanings", () => {
    expect(ruleClauses(HEALTH_RULE)).toEqual([
      { word: 'healthy', meaning: 'the last fetch succeeded in full and the last success is within 2 × its fetch interval' },
      { word: 'down', meaning: '3 or more consecutive failures, or no success within 6 × its fetch interval' },
      { word: 'degraded', meaning: 'anything else (a failed or partial last fetch, a late success, or not fetched yet)' },
    ]);
  });

  it('takes the words in any case and order, with or without spaces and a closing full stop', () => {
    expect(ruleClauses('Degraded : late;DOWN: never fetched;  healthy: fine.')).toEqual([
      { word: 'degraded', meaning: 'late' },
      { word: 'down', meaning: 'never fetched' },
      { word: 'healthy', meaning: 'fine' },
    ]);
    // "cadence" alone is the fetch interval too.
    expect(ruleClauses('healthy: fetched within one cadence')).toEqual([{ word: 'healthy', meaning: 'fetched within one fetch interval' }]);
  });

  it('is not in that form: a clause with another word, an empty clause, prose, or nothing', () => {
    expect(ruleClauses('healthy: ok; stale: older than a day; down: failing')).toBeNull();
    expect(ruleClauses('healthy: ok;; down: failing')).toBeNull();
    expect(ruleClauses('A source is healthy when it was fetched recently.')).toBeNull();
    expect(ruleClauses('')).toBeNull();
    expect(ruleClauses('healthy:')).toBeNull();
  });
});

describe('what the health view says about the rule', () => {
  const explained = (healthRule: string | null) => {
    render(<HealthFiguresExplained oracleWindow="24h" missRate={0} measured={false} healthRule={healthRule} />);
    return screen.getByTestId('health-rule-explained');
  };

  it("lists the local service's rule as Healthy, Down and Degraded, with no 'cadence' left", () => {
    const rule = explained(HEALTH_RULE);
    const items = within(rule).getAllByRole('listitem').map((item) => item.textContent);
    expect(items).toEqual([
      'Healthy: the last fetch succeeded in full and the last success is within 2 × its fetch interval.',
      'Down: 3 or more consecutive failures, or no success within 6 × its fetch interval.',
      'Degraded: anything else (a failed or partial last fetch, a late success, or not fetched yet).',
    ]);
    expect(rule.textContent).not.toMatch(/cadence|publishes less than usual/);
  });

  it("quotes another service's rule as it wrote it, and says when a service states none", () => {
    expect(explained('A source is degraded when it has not published for a week.').textContent).toContain('“A source is degraded when it has not published for a week.”');
    cleanup();
    expect(explained(null).textContent).toContain('(this service does not state it)');
  });

  it('the miss-rate is "not measured" with no reference feed, not 0.0%', () => {
    explained(HEALTH_RULE);
    expect(screen.getByText(/Oracle miss-rate/).textContent).toBe('Oracle miss-rate (not measured)');
    expect(screen.getByTestId('miss-rate-explained').textContent).toContain('Nothing is measured until a source is added as a reference feed');
  });
});
