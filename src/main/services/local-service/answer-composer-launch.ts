/**
 * How Settings › Answers starts the embedded service (issue 28): the flags that choose its
 * composer, and the model API key in its environment. Pure, so a test reads exactly what the
 * supervisor passes.
 */
import { DEFAULT_ANSWER_SETTING, type AnswerSetting } from '../../../shared/answer-settings';

/** What the app's settings add to the embedded service's launch; a `null` env value is removed. */
export interface LaunchExtras {
  args: string[];
  env: Record<string, string | null>;
}

export const MODEL_KEY_ENV = 'CLARITY_MODEL_API_KEY';

export function composerLaunch(setting: AnswerSetting | undefined, key: string | null): LaunchExtras {
  const chosen = setting ?? DEFAULT_ANSWER_SETTING;
  const mark = chosen.markUnsupported ? ['--mark-unsupported'] : [];
  // SECURITY: the key travels in the child's environment only (never an argument, which any
  // process may list); one inherited from the app's own environment is not passed on, so the
  // service uses exactly the key Settings shows.
  if (chosen.backend !== 'model') return { args: mark, env: { [MODEL_KEY_ENV]: null } };
  return { args: ['--model-url', chosen.modelUrl, '--model', chosen.model, ...mark], env: { [MODEL_KEY_ENV]: key || null } };
}

/** Two launches start the same service (no restart needed when nothing changed). */
export function sameLaunch(a: LaunchExtras, b: LaunchExtras): boolean {
  return JSON.stringify(a.args) === JSON.stringify(b.args) && JSON.stringify(Object.entries(a.env).sort()) === JSON.stringify(Object.entries(b.env).sort());
}
