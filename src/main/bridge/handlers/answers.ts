/**
 * Settings › Answers (issue 28): which composer the embedded service answers with. The setting
 * goes to settings.json, the model API key to the keychain (only its status comes back), and
 * the embedded service restarts with them when they change.
 */
import { DEFAULT_ANSWER_SETTING, type AnswerSetting, type AnswersStatus } from '../../../shared/answer-settings';
import { fail, ok } from '../../../shared/bridge-contract';
import { isOnThisMachine } from '../../../shared/model-location';
import { composerLaunch, sameLaunch } from '../../services/local-service/answer-composer-launch';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function answerHandlers({ settings, modelKeys, connection }: HandlerContext): HandlerMap<MethodsIn<'answers'>> {
  const status = async (): Promise<AnswersStatus> => {
    const setting = settings.get().answers ?? DEFAULT_ANSWER_SETTING;
    return {
      setting,
      key: await modelKeys.status(),
      modelOnThisMachine: setting.backend === 'model' ? isOnThisMachine(setting.modelUrl) : null,
      appliesToServiceInUse: connection.status.mode === 'local',
    };
  };
  // One change at a time: two quick saves restart the service once each, in order.
  let changing: Promise<unknown> = Promise.resolve();
  return {
    'answers.status': async () => ok(await status()),
    'answers.set': async ({ apiKey, clearKey, ...input }) => {
      const run = changing.then(async () => {
        const before = composerLaunch(settings.get().answers, await modelKeys.load());
        // A model that is not chosen keeps its address and name, for switching back.
        const setting: AnswerSetting = { backend: input.backend, modelUrl: input.modelUrl, model: input.model, markUnsupported: input.markUnsupported };
        try {
          if (clearKey) await modelKeys.clear();
          else if (apiKey) await modelKeys.set(apiKey);
        } catch {
          return fail({ code: 'keychain_unavailable', message: 'The OS keychain refused to store the model API key. Nothing was changed.' });
        }
        await settings.update({ answers: setting });
        if (!sameLaunch(before, composerLaunch(setting, modelKeys.current))) await connection.restartLocalService();
        return ok(await status());
      });
      changing = run.catch(() => undefined);
      return run;
    },
  };
}
