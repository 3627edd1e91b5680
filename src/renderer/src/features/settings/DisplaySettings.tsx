/** Settings › Display: the time zone times are shown in, and how costs are shown (issue #16). */
import { useEffect, useState } from 'react';
import { DEFAULT_DISPLAY, IST, formatCost, systemZone, zoneLabel, type CostCurrency, type ZonePreference } from '../../../../shared/format';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';

export function DisplaySettings() {
  const current = useAppStore((s) => s.settings?.display) ?? DEFAULT_DISPLAY;
  const setSettings = useAppStore((s) => s.setSettings);
  const [timeZone, setTimeZone] = useState<ZonePreference>(current.timeZone);
  const [currency, setCurrency] = useState<CostCurrency>(current.costCurrency);
  const [rate, setRate] = useState(current.inrPerUsd ? String(current.inrPerUsd) : '');
  const [message, setMessage] = useState<string | null>(null);
  const system = systemZone();

  useEffect(() => {
    setTimeZone(current.timeZone);
    setCurrency(current.costCurrency);
    setRate(current.inrPerUsd ? String(current.inrPerUsd) : '');
  }, [current]);

  const save = async (): Promise<void> => {
    setMessage(null);
    const parsed = rate.trim() === '' ? null : Number(rate.replace(/,/g, ''));
    if (parsed !== null && !(parsed > 0)) return setMessage('Enter the rate as rupees per US dollar, e.g. 84.5.');
    if (currency === 'inr' && parsed === null) return setMessage('To show costs in rupees, enter a conversion rate.');
    const result = await clarity().invoke('settings.setDisplay', { timeZone, costCurrency: currency, inrPerUsd: parsed });
    if (result.ok) {
      setSettings(result.value);
      setMessage(`Saved. A cost of US$0.012 now reads ${formatCost(0.012, result.value.display)}.`);
    } else setMessage(result.error.message);
  };

  return (
    <fieldset data-testid="display-settings">
      <legend>Display</legend>
      <label>
        Times in{' '}
        <select value={timeZone} onChange={(e) => setTimeZone(e.target.value as ZonePreference)} data-testid="display-zone">
          <option value="ist">India Standard Time (IST)</option>
          {system !== IST && system !== 'Asia/Calcutta' ? <option value="system">This computer’s zone ({zoneLabel(system)}, {system})</option> : null}
        </select>
      </label>
      <label>
        Costs in{' '}
        <select value={currency} onChange={(e) => setCurrency(e.target.value as CostCurrency)} data-testid="display-currency">
          <option value="usd">US dollars, as the service reports them</option>
          <option value="inr">Rupees, at my rate (US dollars beside)</option>
        </select>
      </label>
      <label>
        ₹ per US$ <input inputMode="decimal" placeholder="e.g. 84.5" value={rate} onChange={(e) => setRate(e.target.value)} aria-label="Rupees per US dollar" data-testid="display-rate" />
      </label>
      <p className="hint">Numbers use Indian grouping (12,34,567) and lakh or crore where large; dates read like 18 Nov 2026.</p>
      <div className="row">
        <button type="button" onClick={() => void save()} data-testid="display-save">
          Save display settings
        </button>
        {message ? <span className="hint" role="status" data-testid="display-message">{message}</span> : null}
      </div>
    </fieldset>
  );
}
