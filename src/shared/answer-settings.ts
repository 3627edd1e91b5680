/**
 * Settings › Answers (issue 28): which composer the embedded local service answers with. The
 * app keeps this in settings.json; the model API key is never part of it (it lives in the OS
 * keychain, see src/main/services/credentials/model-key-store.ts).
 */
import { z } from 'zod';
import { isOnThisMachine } from './model-location';

/** What the user can see of the stored model API key: never the key itself. */
export interface ModelKeyStatus {
  set: boolean;
  /** The last four characters only. */
  last4: string | null;
  backend: 'keychain' | 'session-only';
  backendDetail: string;
}

const ModelUrlProblem = (value: string): string | null => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter the model API’s address, e.g. http://127.0.0.1:11434/v1 for Ollama.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The model API’s address starts with http:// or https://.';
  // SECURITY: a key in the address would be written to settings.json and shown on screen.
  if (url.username || url.password) return 'Leave the user name and password out of the address; put an API key in the API key field.';
  if (url.hash) return 'The model API’s address cannot have a #fragment.';
  return null;
};

export const AnswerSettingFields = z.object({
  backend: z.enum(['extractive', 'model']),
  modelUrl: z.string().trim().max(2_000, 'That address is too long.'),
  model: z.string().trim().max(200, 'That model name is too long.'),
  markUnsupported: z.boolean(),
});

function checkModelFields(value: { backend: string; modelUrl: string; model: string }, context: z.RefinementCtx): void {
  if (value.backend !== 'model') return;
  const problem = value.modelUrl === '' ? 'Enter the model API’s address, e.g. http://127.0.0.1:11434/v1 for Ollama.' : ModelUrlProblem(value.modelUrl);
  if (problem) context.addIssue({ code: 'custom', path: ['modelUrl'], message: problem });
  else if (value.model === '') context.addIssue({ code: 'custom', path: ['model'], message: 'Enter the model’s name, e.g. llama3.1.' });
  else if (/\s/.test(value.model)) context.addIssue({ code: 'custom', path: ['model'], message: 'A model name has no spaces, e.g. llama3.1 or gpt-4o-mini.' });
}

export const AnswerSetting = AnswerSettingFields.superRefine(checkModelFields);
export type AnswerSetting = z.infer<typeof AnswerSettingFields>;

export const DEFAULT_ANSWER_SETTING: AnswerSetting = { backend: 'extractive', modelUrl: '', model: '', markUnsupported: false };

/** `answers.set`: the setting, and optionally a new key (write-only) or clearing the stored one. */
export const AnswerSettingInput = AnswerSettingFields.extend({
  apiKey: z.string().trim().max(8_192, 'That key is too long.').optional(),
  clearKey: z.boolean().optional(),
})
  .superRefine(checkModelFields)
  .superRefine((value, context) => {
    // SECURITY: a key sent over plain http to another machine could be read on the way.
    if (value.backend === 'model' && value.apiKey && value.modelUrl.startsWith('http:') && !isOnThisMachine(value.modelUrl)) {
      context.addIssue({ code: 'custom', path: ['apiKey'], message: 'An API key would cross the network unencrypted over http://; use the API’s https:// address.' });
    }
  });

export interface AnswersStatus {
  setting: AnswerSetting;
  key: ModelKeyStatus;
  /** The model's address is on this machine (null: no model configured). */
  modelOnThisMachine: boolean | null;
  /** The service in use is the embedded one, which these settings start; false for a remote service. */
  appliesToServiceInUse: boolean;
}
