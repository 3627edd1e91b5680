/**
 * Acts on commands from the desktop shell: the application menu and validated
 * `clarity-desktop://` links (main validated them; a prefilled question is only put in the
 * composer, never sent). Links that launched the app are fetched once on mount.
 */
import { useEffect } from 'react';
import type { DesktopCommand } from '../../../shared/desktop';
import { clarity } from '../bridge/clarity';
import { useAppStore } from '../store/app-store';

export function runDesktopCommand(command: DesktopCommand): void {
  const store = useAppStore.getState();
  switch (command.command) {
    case 'new-conversation':
      store.setView('chat');
      void store.newConversation();
      return;
    case 'open-ask':
      return store.setView('chat');
    case 'open-research':
      return store.setView('research');
    case 'open-health':
      return store.setView('health');
    case 'open-library':
      return store.setView('library');
    case 'open-settings':
      return store.setView('settings');
    case 'open-link': {
      const { link } = command;
      if (link.kind === 'conversation') {
        store.setView('chat');
        void store.openConversation(link.id);
      } else if (link.kind === 'report') {
        store.setView('research');
        store.openReport(link.id);
      } else if (link.kind === 'saved') void store.openSaved(link.id);
      else {
        store.setView('chat');
        store.setDraft(link.question);
      }
      return;
    }
    default:
      return;
  }
}

export function useDesktopCommands(): void {
  useEffect(() => {
    const unsubscribe = clarity().onPush('desktop.command', runDesktopCommand);
    void clarity()
      .invoke('desktop.takePendingCommands')
      .then((result) => {
        if (result.ok) result.value.forEach(runDesktopCommand);
      });
    return unsubscribe;
  }, []);
}
