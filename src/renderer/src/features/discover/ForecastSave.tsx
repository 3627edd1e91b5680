import { useState } from 'react';
import type { ForecastSource } from '../../../../shared/bridge-contract';
import type { Forecast } from '../../../../shared/surface-schemas';
import { clarity } from '../../bridge/clarity';
import { ExportMenu } from '../library/ExportMenu';

/** Save a shown forecast to the library, or export it, like an answer (no second paid forecast). */
export function ForecastSave({ entity, metric, horizon, forecast }: { entity: string; metric: string; horizon: string; forecast: Forecast }) {
  const [status, setStatus] = useState<string | null>(null);
  const source: ForecastSource = {
    kind: 'forecast',
    entity,
    metric,
    horizon,
    forecast: { forecast: forecast.forecast, method: forecast.method, basis: forecast.basis, history: forecast.history, confidence: forecast.confidence, cost_usd: forecast.cost_usd },
  };
  return (
    <div className="sf-follow-row" data-testid="forecast-save-row">
      <button
        type="button"
        data-testid="forecast-save"
        disabled={status === 'Saving…'}
        onClick={async () => {
          setStatus('Saving…');
          const result = await clarity().invoke('forecast.save', source);
          setStatus(result.ok ? `Saved to the library as “${result.value.title}”.` : result.error.message);
        }}
      >
        Save to library
      </button>
      <ExportMenu source={source} label="Export forecast" />
      {status ? (
        <span className="hint" role="status" data-testid="forecast-save-status">
          {status}
        </span>
      ) : null}
    </div>
  );
}
